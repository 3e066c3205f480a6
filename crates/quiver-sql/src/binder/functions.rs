//! Function calls: dispatch to aggregates and window functions, and the
//! scalar functions with their MySQL result types.

use arrow_schema::DataType;
use quiver_common::types::{datetime_type, is_string};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{BinaryOp, DatePart, Expr, ScalarFunc};
use sqlparser::ast;

use super::coerce::{self, cast, null_lit, string_arg, to_bool};
use super::collation;
use super::{Binder, Ctx};

/// One argument of a call: an expression or `*`.
pub(crate) enum Arg<'e> {
    Expr(&'e ast::Expr),
    Star,
}

const AGGREGATES: &[&str] = &["count", "sum", "avg", "min", "max"];

pub(crate) fn is_aggregate(name: &str) -> bool {
    AGGREGATES.contains(&name)
}

/// MySQL functions Quiver knows of but does not implement (1235, not 1305).
const UNSUPPORTED: &[&str] = &[
    "unhex",
    "now",
    "curdate",
    "current_date",
    "current_timestamp",
    "sysdate",
    "locate",
    "instr",
    "replace",
    "left",
    "right",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    "ntile",
    "percent_rank",
    "cume_dist",
    "ascii",
    "ord",
    "char",
    "space",
    // The session keeps no count of found or affected rows yet.
    "found_rows",
    "row_count",
    "timestampdiff",
    "timestampadd",
    "cast",
    "concat_ws",
    "any_value",
    "strcmp",
];

impl Binder<'_> {
    /// The statement's time in microseconds: UTC, or in the session's time
    /// zone when it names an offset (`SET time_zone = '+02:00'`).
    fn statement_time(&self, utc: bool) -> i64 {
        let now = *self.now.get_or_init(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros() as i64)
        });
        if utc {
            return now;
        }
        let offset = match self.vars.system.get("time_zone") {
            Some(ScalarValue::Utf8(z)) => zone_offset_micros(z),
            _ => 0,
        };
        now + offset
    }

    /// GET_FORMAT({DATE | DATETIME | TIMESTAMP | TIME}, 'EUR' | 'USA' | 'JIS'
    /// | 'ISO' | 'INTERNAL'): the format string, a constant (NULL for
    /// another name). The type is a bare keyword, which the parser reads
    /// as an identifier.
    fn get_format(&mut self, exprs: &[&&ast::Expr], display: &str, ctx: &Ctx) -> Result<Expr> {
        let kind = match exprs.first() {
            Some(ast::Expr::Identifier(i)) if i.quote_style.is_none() => {
                i.value.to_ascii_lowercase()
            }
            _ => String::new(),
        };
        let (2, "date" | "datetime" | "timestamp" | "time") = (exprs.len(), kind.as_str()) else {
            return Err(QuiverError::syntax_msg(format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{display}'"
            )));
        };
        let standard = match self.expr(exprs[1], ctx)? {
            Expr::Literal(ScalarValue::Utf8(s), _) => s.to_ascii_uppercase(),
            Expr::Literal(ScalarValue::Null, _) => String::new(),
            _ => {
                return Err(QuiverError::not_supported(
                    "GET_FORMAT of a standard that is not a constant",
                ))
            }
        };
        let i = match standard.as_str() {
            "USA" => 0,
            "JIS" => 1,
            "ISO" => 2,
            "EUR" => 3,
            "INTERNAL" => 4,
            _ => return Ok(null_lit(DataType::Utf8)),
        };
        let formats: [&str; 5] = match kind.as_str() {
            "date" => ["%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%d.%m.%Y", "%Y%m%d"],
            "time" => ["%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H.%i.%s", "%H%i%s"],
            _ => [
                "%Y-%m-%d %H.%i.%s",
                "%Y-%m-%d %H:%i:%s",
                "%Y-%m-%d %H:%i:%s",
                "%Y-%m-%d %H.%i.%s",
                "%Y%m%d%H%i%s",
            ],
        };
        Ok(Expr::lit(ScalarValue::Utf8(formats[i].into())))
    }

    /// UNIX_TIMESTAMP and FROM_UNIXTIME convert in the session's time zone:
    /// Quiver's is UTC (SYSTEM is UTC here), any other is refused.
    fn utc_session(&self, name: &str) -> Result<()> {
        match self.vars.system.get("time_zone") {
            Some(ScalarValue::Utf8(z))
                if !matches!(z.as_str(), "SYSTEM" | "+00:00" | "-00:00" | "+0:00" | "UTC") =>
            {
                Err(QuiverError::not_supported(format!(
                    "{} under time_zone '{z}'",
                    name.to_uppercase()
                )))
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn function(&mut self, f: &ast::Function, ctx: &Ctx) -> Result<Expr> {
        let name = match f.name.0.as_slice() {
            [ast::ObjectNamePart::Identifier(i)] => i.value.to_lowercase(),
            _ => return Err(QuiverError::unknown_function(&f.name.to_string())),
        };
        if name == "group_concat" {
            return self.group_concat(f, ctx, None);
        }
        if name == "json_arrayagg" {
            return self.json_arrayagg(f, ctx);
        }
        if name == "json_objectagg" {
            return self.json_objectagg(f, ctx);
        }
        // REGEXP and RLIKE are operators in MySQL's grammar (the registry
        // holds them as the REGEXP function), never called as functions.
        if matches!(name.as_str(), "regexp" | "rlike") {
            return Err(self.syntax_error_at(&ast::Expr::Function(f.clone())));
        }
        if matches!(
            name.as_str(),
            "percentile_cont" | "percentile_disc" | "median"
        ) {
            return self.percentile(f, &name, ctx);
        }
        if f.filter.is_some()
            || !f.within_group.is_empty()
            || f.null_treatment.is_some()
            || f.uses_odbc_syntax
        {
            return Err(QuiverError::not_supported(format!("{f}")));
        }
        if !matches!(f.parameters, ast::FunctionArguments::None) {
            return Err(QuiverError::not_supported(format!("{f}")));
        }
        let (distinct, args) = match &f.args {
            ast::FunctionArguments::None => (false, vec![]),
            ast::FunctionArguments::Subquery(_) => {
                return Err(QuiverError::not_supported(format!("{f}")))
            }
            ast::FunctionArguments::List(list) => {
                if !list.clauses.is_empty() {
                    return Err(QuiverError::not_supported(format!("{f}")));
                }
                let distinct = matches!(
                    list.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                );
                let args = list
                    .args
                    .iter()
                    .map(|a| match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                            Ok(Arg::Expr(e))
                        }
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) => Ok(Arg::Star),
                        other => Err(QuiverError::syntax_msg(format!(
                            "You have an error in your SQL syntax; check the manual near '{other}'"
                        ))),
                    })
                    .collect::<Result<Vec<_>>>()?;
                (distinct, args)
            }
        };
        let display = f.to_string();
        if let Some(over) = &f.over {
            return self.window_function(&name, distinct, &args, over, display, ctx);
        }
        if is_aggregate(&name) || self.catalog.functions().aggregate(&name).is_some() {
            return self.aggregate(&name, distinct, &args, display, ctx);
        }
        if distinct {
            return Err(QuiverError::syntax_msg(format!(
                "You have an error in your SQL syntax; DISTINCT is only allowed in aggregates near '{display}'"
            )));
        }
        let mut exprs = Vec::with_capacity(args.len());
        for a in &args {
            match a {
                Arg::Expr(e) => exprs.push(e),
                Arg::Star => {
                    return Err(QuiverError::syntax_msg(format!(
                        "You have an error in your SQL syntax near '{display}'"
                    )))
                }
            }
        }
        // DATE_ADD(d, INTERVAL n unit) and friends take an INTERVAL argument.
        if matches!(
            name.as_str(),
            "date_add" | "adddate" | "date_sub" | "subdate"
        ) {
            if exprs.len() != 2 {
                return Err(QuiverError::wrong_arguments(&name.to_uppercase()));
            }
            let d = self.expr(exprs[0], ctx)?;
            let negate = name.ends_with("sub") || name == "subdate";
            return match exprs[1] {
                ast::Expr::Interval(iv) => self.interval_add(d, iv, negate, ctx),
                // ADDDATE(d, n) adds days.
                n if name == "adddate" || name == "subdate" => {
                    let n = self.expr(n, ctx)?;
                    let n = if negate { coerce::negate(n)? } else { n };
                    coerce::date_add(d, n, DatePart::Day)
                }
                _ => Err(QuiverError::syntax_msg(format!(
                    "You have an error in your SQL syntax near '{display}'"
                ))),
            };
        }
        // TIMESTAMPADD(unit, n, d) / TIMESTAMPDIFF(unit, a, b): a single unit
        // (SQL_TSI_ prefix allowed), written as a bare word.
        if name == "timestampadd" || name == "timestampdiff" {
            let unit = match exprs.first() {
                Some(ast::Expr::Identifier(u)) if u.quote_style.is_none() => {
                    let u = u.value.to_ascii_uppercase();
                    DatePart::from_name(u.strip_prefix("SQL_TSI_").unwrap_or(&u))
                        .filter(|p| !p.is_compound())
                }
                _ => None,
            };
            let (Some(part), 3) = (unit, exprs.len()) else {
                return Err(QuiverError::syntax_msg(format!(
                    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{display}'"
                )));
            };
            let a = self.expr(exprs[1], ctx)?;
            let b = self.expr(exprs[2], ctx)?;
            return if name == "timestampadd" {
                coerce::date_add(b, a, part)
            } else {
                timestamp_diff(part, a, b)
            };
        }
        if name == "get_format" {
            return self.get_format(&exprs, &display, ctx);
        }
        let args = exprs
            .iter()
            .map(|e| self.expr(e, ctx))
            .collect::<Result<Vec<_>>>()?;
        if matches!(
            name.as_str(),
            "now"
                | "current_timestamp"
                | "localtime"
                | "localtimestamp"
                | "sysdate"
                | "utc_timestamp"
                | "curdate"
                | "current_date"
                | "utc_date"
                | "curtime"
                | "current_time"
                | "utc_time"
        ) {
            return self.clock(&name, &args);
        }
        if name == "unix_timestamp" || name == "from_unixtime" {
            self.utc_session(&name)?;
            if name == "unix_timestamp" && args.is_empty() {
                let now = self.statement_time(true).div_euclid(1_000_000);
                return Ok(Expr::lit(ScalarValue::Int64(now)));
            }
        }
        if name == "find_in_set" {
            if let Some(e) = super::members::find_in_set(&args)? {
                return Ok(e);
            }
        }
        if let Some(f) = self.catalog.functions().scalar(&name) {
            return super::registry::call(f, &name, args);
        }
        scalar(&name, args)
    }

    // The statement's time (one reading per statement, as MySQL's), in
    // the session's time zone: an offset it names, else the system's
    // (UTC, as @@system_time_zone says).
    fn clock(&self, name: &str, args: &[Expr]) -> Result<Expr> {
        let date = matches!(name, "curdate" | "current_date" | "utc_date");
        arity(name, args, 0..=usize::from(!date))?;
        let digits = match args.first() {
            None => 0,
            Some(Expr::Literal(v, _)) => match v.as_i64() {
                Some(d @ 0..=6) => d as u8,
                _ => {
                    // MariaDB names NOW and LOCALTIME by their common name.
                    let name = match name {
                        "sysdate" | "utc_timestamp" => name,
                        _ => "current_timestamp",
                    };
                    return Err(QuiverError::new(
                        1426,
                        "42000",
                        format!("Too big precision specified for '{name}'. Maximum is 6"),
                    ));
                }
            },
            Some(_) => {
                return Err(QuiverError::syntax_msg(format!(
                    "You have an error in your SQL syntax near '{name}'"
                )))
            }
        };
        let utc = name.starts_with("utc_");
        let now = self.statement_time(utc);
        // NOW(n) is DATETIME(n): the time cut to n digits.
        let t = quiver_common::types::truncate_fsp(now, digits);
        let time = matches!(name, "curtime" | "current_time" | "utc_time");
        Ok(if date {
            Expr::lit(ScalarValue::Date(t.div_euclid(86_400_000_000) as i32))
        } else if time {
            // CURTIME(n) is TIME(n): the time of day.
            Expr::lit(ScalarValue::Time(t.rem_euclid(86_400_000_000), digits))
        } else {
            Expr::lit(ScalarValue::DateTime(t, digits))
        })
    }
}

fn arity(name: &str, args: &[Expr], range: std::ops::RangeInclusive<usize>) -> Result<()> {
    if range.contains(&args.len()) {
        Ok(())
    } else {
        Err(QuiverError::wrong_arguments(&name.to_uppercase()))
    }
}

/// A scalar function call by (lower-case) name.
pub(super) fn scalar(name: &str, args: Vec<Expr>) -> Result<Expr> {
    let one = |args: Vec<Expr>| args.into_iter().next().expect("arity checked");
    match name {
        // What MariaDB says about a value's collation; constants at bind time.
        "collation" | "charset" | "coercibility" => {
            arity(name, &args, 1..=1)?;
            let a = &args[0];
            let (c, co) = super::derivation::derivation(a);
            let string = quiver_common::types::is_string(&a.data_type());
            Ok(match name {
                "coercibility" => Expr::Literal(ScalarValue::Int64(co as i64), DataType::Int64),
                // Numbers and NULL have the binary collation and charset.
                _ if !string => Expr::Literal(ScalarValue::Utf8("binary".into()), DataType::Utf8),
                "collation" => Expr::Literal(ScalarValue::Utf8(c.name().into()), DataType::Utf8),
                _ => Expr::Literal(ScalarValue::Utf8(c.charset().name().into()), DataType::Utf8),
            })
        }
        "greatest" | "least" => {
            arity(name, &args, 2..=usize::MAX)?;
            let func = if name == "greatest" {
                ScalarFunc::Greatest
            } else {
                ScalarFunc::Least
            };
            extreme(func, name, args)
        }
        "field" => {
            arity(name, &args, 2..=usize::MAX)?;
            field(name, args)
        }
        "md5" | "sha1" | "sha" => {
            arity(name, &args, 1..=1)?;
            let func = if name == "md5" {
                ScalarFunc::Md5
            } else {
                ScalarFunc::Sha1
            };
            Ok(digest(func, args))
        }
        "sha2" => {
            arity(name, &args, 2..=2)?;
            Ok(digest(ScalarFunc::Sha2, args))
        }
        // STRCMP(a, b): -1, 0 or 1 under the collation a and b resolve to.
        "strcmp" => {
            arity(name, &args, 2..=2)?;
            let args = args.into_iter().map(string_arg).collect();
            // Resolved here so that an illegal mix names 'strcmp'.
            let mut it = super::collation::collate_operands(args, "strcmp")?.into_iter();
            let (a, b) = (it.next().expect("2"), it.next().expect("2"));
            let int = |v: i64| Expr::Literal(ScalarValue::Int64(v), DataType::Int64);
            let lt = super::collation::compare(BinaryOp::Lt, a.clone(), b.clone())?;
            let gt = super::collation::compare(BinaryOp::Gt, a.clone(), b.clone())?;
            let eq = super::collation::compare(BinaryOp::Eq, a, b)?;
            Ok(super::coerce::case(
                vec![(lt, int(-1)), (gt, int(1)), (eq, int(0))],
                None,
            ))
        }
        "mod" => {
            arity(name, &args, 2..=2)?;
            let mut it = args.into_iter();
            let (a, b) = (it.next().expect("two"), it.next().expect("two"));
            coerce::arith(BinaryOp::Mod, a, b)
        }
        "if" => {
            arity(name, &args, 3..=3)?;
            let mut it = args.into_iter();
            let (c, a, b) = (
                it.next().expect("three"),
                it.next().expect("three"),
                it.next().expect("three"),
            );
            collation::check_result_collations(&[&a, &b], "if")?;
            Ok(coerce::case(vec![(to_bool(c), a)], Some(b)))
        }
        // ISNULL(x): x IS NULL.
        "isnull" => {
            arity(name, &args, 1..=1)?;
            Ok(coerce::is_null(one(args), false))
        }
        // NVL2(x, a, b): IF(x IS NOT NULL, a, b).
        "nvl2" => {
            arity(name, &args, 3..=3)?;
            let mut it = args.into_iter();
            let (x, a, b) = (
                it.next().expect("three"),
                it.next().expect("three"),
                it.next().expect("three"),
            );
            collation::check_result_collations(&[&a, &b], "nvl2")?;
            Ok(coerce::case(vec![(coerce::is_null(x, true), a)], Some(b)))
        }
        // NVL is IFNULL's other name.
        "ifnull" | "nvl" | "coalesce" => {
            arity(
                name,
                &args,
                if name != "coalesce" {
                    2..=2
                } else {
                    1..=usize::MAX
                },
            )?;
            collation::check_result_collations(&args.iter().collect::<Vec<_>>(), name)?;
            Ok(coalesce(args))
        }
        "nullif" => {
            arity(name, &args, 2..=2)?;
            let t = match args[0].data_type() {
                DataType::Null => args[1].data_type(),
                t => t,
            };
            if is_string(&args[0].data_type()) && is_string(&args[1].data_type()) {
                // Strings are equal under their combined collation (1267
                // when there is none): CASE WHEN a = b THEN NULL ELSE a END.
                let mut it = collation::collate_operands(args, "nullif")?.into_iter();
                let (a, b) = (it.next().expect("two"), it.next().expect("two"));
                let eq = collation::compare(BinaryOp::Eq, a.clone(), b)?;
                return Ok(coerce::case(
                    vec![(eq, Expr::lit(ScalarValue::Null))],
                    Some(a),
                ));
            }
            Ok(Expr::Function {
                func: ScalarFunc::NullIf,
                args,
                data_type: t,
            })
        }
        "concat" => {
            arity(name, &args, 1..=usize::MAX)?;
            if args
                .iter()
                .any(|a| matches!(a, Expr::Literal(ScalarValue::Null, _)))
            {
                return Ok(null_lit(DataType::Utf8));
            }
            // One charset for the result: operands of others are converted
            // (error 1267 for a literal the result charset cannot hold).
            let args: Vec<Expr> = args.into_iter().map(string_arg).collect();
            let args = match super::collation::collate_operands(args.clone(), "concat") {
                Ok(args) => args,
                // Collations of one charset that do not combine leave the
                // result without one (coercibility NONE, as MariaDB): it can
                // be shown, sorted and grouped, but not compared.
                Err(_) if super::collation::leaves_no_collation(&args) => args,
                Err(e) => return Err(e),
            };
            Ok(Expr::Function {
                func: ScalarFunc::Concat,
                args,
                data_type: DataType::Utf8,
            })
        }
        "length" | "octet_length" | "char_length" | "character_length" => {
            arity(name, &args, 1..=1)?;
            // latin1 and ascii take one byte per character.
            let func = if name.starts_with("char") || single_byte(&args[0]) {
                ScalarFunc::CharLength
            } else {
                ScalarFunc::Length
            };
            Ok(string_fn(func, args, DataType::Int64))
        }
        "bit_length" => {
            arity(name, &args, 1..=1)?;
            let func = if single_byte(&args[0]) {
                ScalarFunc::CharLength
            } else {
                ScalarFunc::Length
            };
            let bytes = string_fn(func, args, DataType::Int64);
            let eight = Expr::Literal(ScalarValue::Int64(8), DataType::Int64);
            coerce::arith(BinaryOp::Mul, bytes, eight)
        }
        "locate" | "instr" => {
            arity(name, &args, 2..=if name == "instr" { 2 } else { 3 })?;
            let mut args: Vec<Expr> = args.into_iter().map(string_arg).collect();
            if name == "instr" {
                args.swap(0, 1);
            }
            locate(args)
        }
        "replace" => {
            arity(name, &args, 3..=3)?;
            // Byte-exact, but its strings must still meet under one collation.
            collated_string_fn(
                string_fn(ScalarFunc::Replace, args, DataType::Utf8),
                "replace",
                false,
            )
        }
        "insert" => {
            arity(name, &args, 4..=4)?;
            Ok(string_int_fn(
                ScalarFunc::Insert,
                args,
                &[false, true, true, false],
            ))
        }
        "unhex" => {
            arity(name, &args, 1..=1)?;
            Ok(string_fn(ScalarFunc::Unhex, args, DataType::Binary))
        }
        "ascii" | "ord" => {
            arity(name, &args, 1..=1)?;
            let func = if name == "ascii" {
                ScalarFunc::Ascii
            } else {
                ScalarFunc::Ord
            };
            if matches!(args[0], Expr::Literal(ScalarValue::Null, _)) {
                return Ok(null_lit(DataType::Int64));
            }
            // The bytes are the string's charset's: under its collation.
            let s = super::collation::collated(string_arg(one(args)));
            Ok(Expr::Function {
                func,
                args: vec![s],
                data_type: DataType::Int64,
            })
        }
        "reverse" => {
            arity(name, &args, 1..=1)?;
            Ok(string_fn(ScalarFunc::Reverse, args, DataType::Utf8))
        }
        "repeat" => {
            arity(name, &args, 2..=2)?;
            Ok(string_int_fn(ScalarFunc::Repeat, args, &[false, true]))
        }
        "lpad" | "rpad" => {
            arity(name, &args, 2..=3)?;
            let mut args = args;
            if args.len() == 2 {
                // MariaDB's two-argument form pads with spaces.
                args.push(Expr::lit(ScalarValue::Utf8(" ".into())));
            }
            let func = if name == "lpad" {
                ScalarFunc::Lpad
            } else {
                ScalarFunc::Rpad
            };
            let f = string_int_fn(func, args, &[false, true, false]);
            collated_string_fn(f, "lpad", true)
        }
        "space" => {
            arity(name, &args, 1..=1)?;
            Ok(string_int_fn(ScalarFunc::Space, args, &[true]))
        }
        "concat_ws" => {
            arity(name, &args, 2..=usize::MAX)?;
            if matches!(args[0], Expr::Literal(ScalarValue::Null, _)) {
                return Ok(null_lit(DataType::Utf8));
            }
            // NULL arguments after the separator are skipped, not NULL.
            let args: Vec<Expr> = args
                .into_iter()
                .enumerate()
                .filter(|(i, a)| *i == 0 || !matches!(a, Expr::Literal(ScalarValue::Null, _)))
                .map(|(_, a)| string_arg(a))
                .collect();
            let f = Expr::Function {
                func: ScalarFunc::ConcatWs,
                args,
                data_type: DataType::Utf8,
            };
            collated_string_fn(f, "concat_ws", true)
        }
        "substring_index" => {
            arity(name, &args, 3..=3)?;
            let f = string_int_fn(ScalarFunc::SubstringIndex, args, &[false, false, true]);
            collated_string_fn(f, "substring_index", false)
        }
        "left" | "right" => {
            arity(name, &args, 2..=2)?;
            if args
                .iter()
                .any(|a| matches!(a, Expr::Literal(ScalarValue::Null, _)))
            {
                return Ok(null_lit(DataType::Utf8));
            }
            let mut it = args.into_iter();
            let s = string_arg(it.next().expect("2"));
            let n = cast(it.next().expect("2"), &DataType::Int64);
            Ok(Expr::Function {
                func: if name == "left" {
                    ScalarFunc::Left
                } else {
                    ScalarFunc::Right
                },
                args: vec![s, n],
                data_type: DataType::Utf8,
            })
        }
        "weight_string" => {
            arity(name, &args, 1..=1)?;
            // MariaDB weighs strings only: a number's weight is NULL.
            if !is_string(&args[0].data_type()) {
                return Ok(null_lit(DataType::Binary));
            }
            let s = super::collation::collated(one(args));
            Ok(Expr::Function {
                func: ScalarFunc::WeightString,
                args: vec![s],
                data_type: DataType::Binary,
            })
        }
        "upper" | "ucase" => {
            arity(name, &args, 1..=1)?;
            Ok(string_fn(ScalarFunc::Upper, args, DataType::Utf8))
        }
        "lower" | "lcase" => {
            arity(name, &args, 1..=1)?;
            Ok(string_fn(ScalarFunc::Lower, args, DataType::Utf8))
        }
        "trim" | "ltrim" | "rtrim" => {
            arity(name, &args, 1..=1)?;
            let func = match name {
                "ltrim" => ScalarFunc::LTrim,
                "rtrim" => ScalarFunc::RTrim,
                _ => ScalarFunc::Trim,
            };
            Ok(string_fn(func, args, DataType::Utf8))
        }
        "substring" | "substr" | "mid" => {
            arity(name, &args, 2..=3)?;
            let mut it = args.into_iter();
            let (s, p) = (it.next().expect("two"), it.next().expect("two"));
            Ok(substring(s, p, it.next()))
        }
        "hex" => {
            arity(name, &args, 1..=1)?;
            let x = one(args);
            Ok(match x.data_type() {
                // Bytes (WEIGHT_STRING) as they are.
                DataType::Binary => Expr::Function {
                    func: ScalarFunc::Hex,
                    args: vec![x],
                    data_type: DataType::Utf8,
                },
                // The bytes in the string's charset: under its collation.
                t if is_string(&t) => string_fn(
                    ScalarFunc::Hex,
                    vec![super::collation::collated(x)],
                    DataType::Utf8,
                ),
                DataType::Null => null_lit(DataType::Utf8),
                t if t.is_integer() => Expr::Function {
                    func: ScalarFunc::Hex,
                    args: vec![x],
                    data_type: DataType::Utf8,
                },
                // Other numbers are rounded to an integer first (a truth
                // value is 0 or 1), dates are strings.
                t if t.is_numeric() || t == DataType::Boolean => Expr::Function {
                    func: ScalarFunc::Hex,
                    args: vec![cast(x, &DataType::Int64)],
                    data_type: DataType::Utf8,
                },
                _ => string_fn(ScalarFunc::Hex, vec![x], DataType::Utf8),
            })
        }
        "date" => {
            arity(name, &args, 1..=1)?;
            Ok(cast(one(args), &DataType::Date32))
        }
        "year" | "quarter" | "month" | "day" | "dayofmonth" | "hour" | "minute" | "second"
        | "microsecond" => {
            arity(name, &args, 1..=1)?;
            let part = match name {
                "year" => DatePart::Year,
                "quarter" => DatePart::Quarter,
                "month" => DatePart::Month,
                "day" | "dayofmonth" => DatePart::Day,
                "hour" => DatePart::Hour,
                "minute" => DatePart::Minute,
                "second" => DatePart::Second,
                _ => DatePart::Microsecond,
            };
            extract(one(args), part)
        }
        n if UNSUPPORTED.contains(&n) => Err(QuiverError::not_supported(format!(
            "the function {}",
            n.to_uppercase()
        ))),
        n => Err(QuiverError::unknown_function(&format!("quiver.{n}"))),
    }
}

/// Whether a string argument's charset takes one byte per character
/// (latin1, ascii), so that its byte length is its character length.
fn single_byte(e: &Expr) -> bool {
    quiver_common::types::is_string(&e.data_type())
        && quiver_collation::text::is_single_byte_text(super::collation::charset_of(e))
}

/// LOCATE(substr, str [, pos]): substr and str under one collation.
pub(crate) fn locate(args: Vec<Expr>) -> Result<Expr> {
    if args
        .iter()
        .any(|a| matches!(a, Expr::Literal(ScalarValue::Null, _)))
    {
        return Ok(null_lit(DataType::Int64));
    }
    let mut it = args.into_iter();
    let (sub, s) = (it.next().expect("2"), it.next().expect("2"));
    // MariaDB names the searched string first in an illegal mix.
    let mut pair = super::collation::collate_operands(vec![s, sub], "locate")?;
    let sub = pair.pop().expect("2");
    let s = pair.pop().expect("2");
    let mut args = vec![sub, s];
    args.extend(it.next().map(|p| cast(p, &DataType::Int64)));
    Ok(Expr::Function {
        func: ScalarFunc::Locate,
        args,
        data_type: DataType::Int64,
    })
}

fn string_fn(func: ScalarFunc, args: Vec<Expr>, data_type: DataType) -> Expr {
    if args
        .iter()
        .any(|a| matches!(a, Expr::Literal(ScalarValue::Null, _)))
    {
        return null_lit(data_type);
    }
    Expr::Function {
        func,
        args: args.into_iter().map(string_arg).collect(),
        data_type,
    }
}

/// A string function of string and integer arguments (`ints[i]`: argument
/// i is a count); NULL when an argument is the NULL literal.
fn string_int_fn(func: ScalarFunc, args: Vec<Expr>, ints: &[bool]) -> Expr {
    if args
        .iter()
        .any(|a| matches!(a, Expr::Literal(ScalarValue::Null, _)))
    {
        return null_lit(DataType::Utf8);
    }
    let args = args
        .into_iter()
        .zip(ints)
        .map(|(a, int)| {
            if *int {
                cast(a, &DataType::Int64)
            } else {
                string_arg(a)
            }
        })
        .collect();
    Expr::Function {
        func,
        args,
        data_type: DataType::Utf8,
    }
}

/// A string function whose string arguments combine into one collation as
/// CONCAT's do (operands of other charsets converted; 1267 if they cannot).
/// `f` with its string arguments under one collation (error 1267 / 1270
/// named `op`); with `none_allowed`, a function that builds a string
/// without comparing, collations of one charset that do not combine leave
/// its result without one instead.
fn collated_string_fn(f: Expr, op: &str, none_allowed: bool) -> Result<Expr> {
    let Expr::Function {
        func,
        args,
        data_type,
    } = f
    else {
        return Ok(f);
    };
    let args = match super::collation::collate_operands(args.clone(), op) {
        Ok(args) => args,
        Err(_) if none_allowed && super::collation::leaves_no_collation(&args) => args,
        Err(e) => return Err(e),
    };
    Ok(Expr::Function {
        func,
        args,
        data_type,
    })
}

/// The type GREATEST / LEAST compare and return in, as MariaDB picks it
/// from the arguments' types (NULLs left out): strings when all are, dates
/// among dates and strings, DOUBLE when strings meet numbers, else the
/// numbers' common type.
fn extreme_type(args: &[Expr]) -> Result<DataType> {
    use quiver_common::types::is_temporal;
    let types: Vec<DataType> = args
        .iter()
        .map(Expr::data_type)
        .filter(|t| *t != DataType::Null)
        .collect();
    if types.iter().all(is_string) {
        return Ok(DataType::Utf8);
    }
    if types.iter().any(is_temporal) {
        if !types.iter().all(|t| is_temporal(t) || is_string(t)) {
            return Err(QuiverError::not_supported(
                "GREATEST / LEAST of dates and numbers",
            ));
        }
        return Ok(
            if types.iter().any(|t| matches!(t, DataType::Timestamp(..))) {
                // The most fraction digits of the datetimes.
                datetime_type(
                    types
                        .iter()
                        .filter_map(quiver_common::types::datetime_fsp)
                        .max()
                        .unwrap_or(0),
                )
            } else {
                DataType::Date32
            },
        );
    }
    if types.iter().any(is_string) {
        return Ok(DataType::Float64);
    }
    Ok(numbers_common_type(args))
}

/// The common type of numeric `args` (NULLs left out), as CASE's.
fn numbers_common_type(args: &[Expr]) -> DataType {
    let args: Vec<&Expr> = args
        .iter()
        .filter(|a| a.data_type() != DataType::Null)
        .collect();
    coerce::branches_common_type(
        &args.iter().map(|a| a.data_type()).collect::<Vec<_>>(),
        &args
            .iter()
            .map(|a| coerce::integer_decimal_type(a))
            .collect::<Vec<_>>(),
    )
}

/// GREATEST / LEAST over `args` (at least two).
fn extreme(func: ScalarFunc, name: &str, args: Vec<Expr>) -> Result<Expr> {
    let t = extreme_type(&args)?;
    if args
        .iter()
        .any(|a| matches!(a, Expr::Literal(ScalarValue::Null, _)))
    {
        // MariaDB types a NULL among numbers as DOUBLE.
        let t = if is_string(&t) || t == DataType::Null {
            t
        } else {
            DataType::Float64
        };
        return Ok(null_lit(t));
    }
    let args = if is_string(&t) {
        // Compared under the collation the strings resolve to (1267 if
        // none); a binary argument makes them all bytes.
        collation::collate_operands(args, name)?
    } else {
        args.into_iter().map(|a| cast(a, &t)).collect()
    };
    let data_type = args[0].data_type();
    Ok(coerce::fold(Expr::Function {
        func,
        args,
        data_type,
    }))
}

/// FIELD(x, a, ...): strings compare under their collation when all
/// arguments are strings, numbers in their common type when all are
/// numbers, anything else as DOUBLE (MariaDB's rule).
fn field(name: &str, args: Vec<Expr>) -> Result<Expr> {
    let int = |v: i64| Expr::Literal(ScalarValue::Int64(v), DataType::Int64);
    if matches!(args[0], Expr::Literal(ScalarValue::Null, _)) {
        return Ok(int(0));
    }
    let types: Vec<DataType> = args
        .iter()
        .map(Expr::data_type)
        .filter(|t| *t != DataType::Null)
        .collect();
    let args: Vec<Expr> = if types.iter().all(is_string) {
        collation::collate_operands(args, name)?
    } else {
        let t = if types.iter().all(quiver_common::types::is_numeric) {
            numbers_common_type(&args)
        } else {
            DataType::Float64
        };
        args.into_iter().map(|a| cast(a, &t)).collect()
    };
    Ok(Expr::Function {
        func: ScalarFunc::Field,
        args,
        data_type: DataType::Int64,
    })
}

/// MD5 / SHA1 / SHA2 of a value's text in its charset (numbers and dates
/// as they print); NULL for a NULL string.
fn digest(func: ScalarFunc, args: Vec<Expr>) -> Expr {
    let mut it = args.into_iter();
    let s = it.next().expect("arity checked");
    if matches!(s, Expr::Literal(ScalarValue::Null, _)) {
        return null_lit(DataType::Utf8);
    }
    let s = string_arg(s);
    // The bytes hashed are the string's in its own charset.
    let s = if is_string(&s.data_type()) && !quiver_common::types::is_binary(&s.data_type()) {
        collation::collated(s)
    } else {
        s
    };
    let mut args = vec![s];
    // SHA2's bit count: MariaDB reads a NULL as 0 (SHA-256).
    args.extend(it.map(|bits| match bits {
        Expr::Literal(ScalarValue::Null, _) => {
            Expr::Literal(ScalarValue::Int64(0), DataType::Int64)
        }
        bits => cast(bits, &DataType::Int64),
    }));
    Expr::Function {
        func,
        args,
        data_type: DataType::Utf8,
    }
}

/// COALESCE / IFNULL: the common type of the arguments.
fn coalesce(args: Vec<Expr>) -> Expr {
    let t = coerce::branches_common_type(
        &args.iter().map(Expr::data_type).collect::<Vec<_>>(),
        &args
            .iter()
            .map(coerce::integer_decimal_type)
            .collect::<Vec<_>>(),
    );
    let args: Vec<Expr> = args.into_iter().map(|a| cast(a, &t)).collect();
    coerce::fold(Expr::Function {
        func: ScalarFunc::Coalesce,
        args,
        data_type: t,
    })
}

/// SUBSTRING(s, pos [, len]).
pub(crate) fn substring(s: Expr, pos: Expr, len: Option<Expr>) -> Expr {
    let mut args = vec![s, pos];
    args.extend(len);
    if args
        .iter()
        .any(|a| matches!(a, Expr::Literal(ScalarValue::Null, _)))
    {
        return null_lit(DataType::Utf8);
    }
    let mut it = args.into_iter();
    let mut args = vec![string_arg(it.next().expect("string"))];
    args.extend(it.map(|a| cast(a, &DataType::Int64)));
    Expr::Function {
        func: ScalarFunc::Substring,
        args,
        data_type: DataType::Utf8,
    }
}

/// TRIM([BOTH | LEADING | TRAILING] [what FROM] s): args are [s] or [s, what].
pub(crate) fn trim(
    side: Option<&ast::TrimWhereField>,
    s: Expr,
    what: Option<Expr>,
) -> Result<Expr> {
    let (func, op) = match side {
        Some(ast::TrimWhereField::Leading) => (ScalarFunc::LTrim, "ltrim"),
        Some(ast::TrimWhereField::Trailing) => (ScalarFunc::RTrim, "rtrim"),
        _ => (ScalarFunc::Trim, "trim"),
    };
    // What is trimmed meets the string under one collation (MariaDB names
    // it first in an illegal mix).
    let (s, what) = match what {
        Some(w) if is_string(&w.data_type()) && is_string(&s.data_type()) => {
            let mut v = super::collation::collate_operands(vec![w, s], op)?;
            let s = v.pop().expect("2");
            (s, v.pop())
        }
        w => (s, w),
    };
    let mut args = vec![s];
    // Trimming spaces is the default form the executor implements directly.
    args.extend(what.filter(|w| w.as_str_literal() != Some(" ")));
    Ok(string_fn(func, args, DataType::Utf8))
}

/// TIMESTAMPDIFF(part, a, b): whole parts from a to b, a BIGINT.
fn timestamp_diff(part: DatePart, a: Expr, b: Expr) -> Result<Expr> {
    // Strings are read with all their fraction digits.
    let as_datetime = |x: Expr| match x.data_type() {
        DataType::Timestamp(..) => Ok(x),
        DataType::Date32 => Ok(cast(x, &datetime_type(0))),
        DataType::Null => Ok(x),
        t if is_string(&t) => Ok(cast(x, &datetime_type(6))),
        other => Err(QuiverError::not_supported(format!(
            "TIMESTAMPDIFF of {other}"
        ))),
    };
    let (a, b) = (as_datetime(a)?, as_datetime(b)?);
    if a.data_type() == DataType::Null || b.data_type() == DataType::Null {
        return Ok(null_lit(DataType::Int64));
    }
    Ok(Expr::Function {
        func: ScalarFunc::TimestampDiff(part),
        args: vec![a, b],
        data_type: DataType::Int64,
    })
}

/// EXTRACT(part FROM d): a BIGINT.
pub(crate) fn extract(x: Expr, part: DatePart) -> Result<Expr> {
    let x = match x.data_type() {
        DataType::Date32 | DataType::Timestamp(..) => x,
        t if quiver_common::types::is_time(&t) => x,
        DataType::Null => return Ok(null_lit(DataType::Int64)),
        // A string is a DATETIME or else a TIME for the parts of a time
        // (HOUR('10:05:03') is 10): the executor reads it as either.
        t if is_string(&t) && part.is_time_of_day() => x,
        // A date with a zero month or day is read as written (MONTH of
        // '2019-00-03' is 0): the executor reads text dates.
        DataType::Utf8
            if matches!(
                part,
                DatePart::Year
                    | DatePart::Quarter
                    | DatePart::Month
                    | DatePart::Day
                    | DatePart::YearMonth
            ) =>
        {
            x
        }
        t if is_string(&t) => cast(x, &datetime_type(6)),
        other => return Err(QuiverError::not_supported(format!("EXTRACT from {other}"))),
    };
    Ok(Expr::Function {
        func: ScalarFunc::Extract(part),
        args: vec![x],
        data_type: DataType::Int64,
    })
}

/// The offset of a time zone written `+hh:mm` / `-hh:mm`, in microseconds;
/// 0 for SYSTEM (UTC here) and names.
fn zone_offset_micros(zone: &str) -> i64 {
    let (sign, rest) = match zone.as_bytes().first() {
        Some(b'+') => (1, &zone[1..]),
        Some(b'-') => (-1, &zone[1..]),
        _ => return 0,
    };
    let Some((h, m)) = rest.split_once(':') else {
        return 0;
    };
    match (h.parse::<i64>(), m.parse::<i64>()) {
        (Ok(h), Ok(m)) => sign * (h * 60 + m) * 60_000_000,
        _ => 0,
    }
}
