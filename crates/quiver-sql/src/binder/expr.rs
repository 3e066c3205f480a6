//! Expressions: column references, literals and operators. Functions are in
//! `functions.rs`, subqueries in `subquery.rs`.

use arrow_schema::DataType;
use quiver_common::types::{
    datetime_type, is_string, parse_date, parse_datetime, parse_decimal256,
};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{BinaryOp, DatePart, Expr};
use sqlparser::ast::{self, BinaryOperator as B, DateTimeField, UnaryOperator};

use super::coerce::{
    self, and, arith, bool_lit, cast, is_null, not, null_lit, or, sql_cast, string_arg, to_bool,
};
use super::collation::{self, compare};
use super::{Binder, Ctx, Lookup, MAX_EXPR_DEPTH};
use crate::{cast_type, sql_type};

impl Binder<'_> {
    /// Binds an expression in `ctx`.
    pub(crate) fn expr(&mut self, e: &ast::Expr, ctx: &Ctx) -> Result<Expr> {
        if self.depth >= MAX_EXPR_DEPTH {
            return Err(QuiverError::not_supported(format!(
                "expressions nested more than {MAX_EXPR_DEPTH} levels deep"
            )));
        }
        self.depth += 1;
        let r = self.expr_inner(e, ctx);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, e: &ast::Expr, ctx: &Ctx) -> Result<Expr> {
        use ast::Expr as A;
        match e {
            A::Identifier(i) if i.value.starts_with("@@") => self.system_variable(&i.value),
            A::Identifier(i) if i.quote_style.is_none() && i.value.starts_with('@') => {
                Ok(self.user_variable(&i.value[1..]))
            }
            // MySQL's reserved words that are calls without parentheses:
            // never a column's name unless quoted.
            A::Identifier(i) if i.quote_style.is_none() => {
                match call_without_parentheses(&i.value) {
                    Some(call) => self.expr(&call, ctx),
                    None => self.column(None, &i.value, ctx),
                }
            }
            A::Identifier(i) => self.column(None, &i.value, ctx),
            A::CompoundIdentifier(parts)
                if parts.first().is_some_and(|p| p.value.starts_with("@@")) =>
            {
                let name: Vec<&str> = parts.iter().map(|p| p.value.as_str()).collect();
                self.system_variable(&name.join("."))
            }
            A::CompoundIdentifier(parts) => match parts.as_slice() {
                [t, c] | [_, t, c] => self.column(Some(&t.value), &c.value, ctx),
                _ => Err(QuiverError::not_supported(format!("the name {e}"))),
            },
            A::Value(v) => {
                // X'..' needs whole bytes; 0x.. (the same token) does not.
                if let ast::Value::HexStringLiteral(h) = &v.value {
                    if h.len() % 2 == 1 && self.written_with_x(v.span.start) {
                        return Err(QuiverError::syntax_msg(format!(
                            "You have an error in your SQL syntax near 'X'{h}''"
                        )));
                    }
                }
                if let ast::Value::HexStringLiteral(_) = &v.value {
                    if self.source.is_some() && !self.written_with_x(v.span.start) {
                        if let Expr::Literal(ScalarValue::Binary(b), _) = literal(&v.value)? {
                            return Ok(coerce::hex_literal(b));
                        }
                    }
                }
                // String literals are in the connection's collation (COERCIBLE).
                let x = literal(&v.value)?;
                let conn = self.vars.collation_connection;
                Ok(match x {
                    Expr::Literal(ScalarValue::Utf8(s), t)
                        if conn != quiver_plan::default_collation()
                            && !matches!(v.value, ast::Value::NationalStringLiteral(_)) =>
                    {
                        // A character the connection's charset cannot hold
                        // (`SET NAMES latin1` in the embedded engine, whose
                        // statements are Unicode) becomes `?`, as MySQL
                        // converts a literal from the client's charset.
                        let mut held = String::new();
                        quiver_collation::text::convert_lossy_str(conn.charset(), &s, &mut held);
                        Expr::Literal(ScalarValue::Utf8(held), t)
                            .with_collation(conn, quiver_plan::Coercibility::Coercible)
                    }
                    // N'..': the national charset, utf8mb3 (what it cannot
                    // hold becomes '?').
                    Expr::Literal(ScalarValue::Utf8(s), t)
                        if matches!(v.value, ast::Value::NationalStringLiteral(_)) =>
                    {
                        let c = quiver_collation::Collation::from_name("utf8mb3_general_ci")
                            .expect("a built-in collation")
                            .over_utf8();
                        let mut held = String::new();
                        quiver_collation::text::convert_lossy_str(c.charset(), &s, &mut held);
                        Expr::Literal(ScalarValue::Utf8(held), t)
                            .with_collation(c, quiver_plan::Coercibility::Coercible)
                    }
                    x => x,
                })
            }
            A::TypedString(ts) => typed_string(ts),
            A::Nested(inner) => self.expr(inner, ctx),
            A::UnaryOp { op, expr } => {
                let x = self.expr(expr, ctx)?;
                match op {
                    UnaryOperator::Minus => coerce::negate(x),
                    UnaryOperator::Plus => Ok(x),
                    UnaryOperator::Not | UnaryOperator::BangNot => Ok(not(x)),
                    UnaryOperator::BitwiseNot => self.operator("~", vec![x]),
                    other => Err(QuiverError::not_supported(format!("operator {other}"))),
                }
            }
            A::BinaryOp { left, op, right } => self.binary(left, op, right, ctx),
            A::IsNull(x) => Ok(is_null(self.expr(x, ctx)?, false)),
            A::IsNotNull(x) => Ok(is_null(self.expr(x, ctx)?, true)),
            A::IsTrue(x) => Ok(coerce::is_truth(self.expr(x, ctx)?, true, false)),
            A::IsNotTrue(x) => Ok(coerce::is_truth(self.expr(x, ctx)?, true, true)),
            A::IsFalse(x) => Ok(coerce::is_truth(self.expr(x, ctx)?, false, false)),
            A::IsNotFalse(x) => Ok(coerce::is_truth(self.expr(x, ctx)?, false, true)),
            A::IsUnknown(x) => Ok(is_null(to_bool(self.expr(x, ctx)?), false)),
            A::IsNotUnknown(x) => Ok(is_null(to_bool(self.expr(x, ctx)?), true)),
            A::IsNotDistinctFrom(a, b) => Ok(coerce::null_safe_eq(self.expr(a, ctx)?, self.expr(b, ctx)?)),
            A::IsDistinctFrom(a, b) => Ok(not(coerce::null_safe_eq(self.expr(a, ctx)?, self.expr(b, ctx)?))),
            A::InList { expr, list, negated } => self.in_list(expr, list, *negated, ctx),
            A::InSubquery { expr, subquery, negated } => self.in_subquery_value(expr, subquery, *negated, ctx),
            A::Between { expr, negated, low, high } => {
                let x = self.expr(expr, ctx)?;
                let (lo, hi) = (self.expr(low, ctx)?, self.expr(high, ctx)?);
                // One collation for all three (MySQL resolves BETWEEN as one operation).
                let mut v = collation::collate_operands(vec![x, lo, hi], "between")?;
                let (hi, lo, x) = (v.pop().expect("3"), v.pop().expect("3"), v.pop().expect("3"));
                Ok(if *negated {
                    or(compare(BinaryOp::Lt, x.clone(), lo)?, compare(BinaryOp::Gt, x, hi)?)
                } else {
                    and(compare(BinaryOp::GtEq, x.clone(), lo)?, compare(BinaryOp::LtEq, x, hi)?)
                })
            }
            A::Like { negated, any, expr, pattern, escape_char } => {
                if *any {
                    return Err(QuiverError::not_supported("LIKE ANY"));
                }
                self.like(expr, pattern, escape_char.as_deref(), *negated, ctx)
            }
            A::RLike { negated, expr, pattern, .. } => {
                // `x REGEXP p` / `x RLIKE p`: the registered REGEXP function.
                let f = self
                    .catalog
                    .functions()
                    .scalar("regexp")
                    .ok_or_else(|| QuiverError::not_supported(format!("the operator in {e}")))?;
                let args = vec![self.expr(expr, ctx)?, self.expr(pattern, ctx)?];
                let m = super::registry::call(f, "regexp", args)?;
                Ok(if *negated { not(m) } else { m })
            }
            A::ILike { .. } | A::SimilarTo { .. } => {
                Err(QuiverError::not_supported(format!("the operator in {e}")))
            }
            A::Cast { kind, expr, data_type, format } => {
                if format.is_some() || !matches!(kind, ast::CastKind::Cast) {
                    return Err(QuiverError::not_supported(format!("{e}")));
                }
                // sqlparser reads MySQL's `BINARY a = b` as `CAST(a = b AS
                // BINARY)`; in MySQL BINARY binds tighter than any operator,
                // so it applies to the leftmost operand: `(BINARY a) = b`.
                if matches!(data_type, ast::DataType::Binary(None)) {
                    if let Some(rewritten) = binary_on_leftmost(expr) {
                        // Without the text, the far more common operator.
                        if self.binary_prefix(expr).unwrap_or(true) {
                            return self.expr(&rewritten, ctx);
                        }
                    }
                }
                let x = self.expr(expr, ctx)?;
                if let Some(b) = binary_string(&x, data_type) {
                    return b;
                }
                crate::check_fsp(data_type, &item_name(expr))?;
                let to = cast_type(data_type)?;
                // A number cast to a number takes a quotient's (or AVG's)
                // full internal value: CAST(1/3 AS DECIMAL(20,10)) is
                // 0.3333333330 in MariaDB, not 0.3333 padded.
                let x = if quiver_common::types::is_numeric(&to) {
                    datetime_as_number(coerce::declared_parts(x).0, &to)
                } else {
                    x
                };
                let cast = self.in_connection_collation(char_length_limit(sql_cast(x, &to), data_type));
                Ok(self.char_cast(cast, &to))
            }
            A::Convert { expr, data_type, charset, styles, .. } => {
                if !styles.is_empty() {
                    return Err(QuiverError::not_supported(format!("{e}")));
                }
                let x = self.expr(expr, ctx)?;
                if let Some(t) = data_type {
                    crate::check_fsp(t, &item_name(expr))?;
                }
                match (data_type, charset) {
                    (Some(t), None) => match binary_string(&x, t) {
                        Some(b) => b,
                        None => {
                            let to = cast_type(t)?;
                            let x = datetime_as_number(x, &to);
                            let cast = self.in_connection_collation(char_length_limit(
                                sql_cast(x, &to),
                                t,
                            ));
                            Ok(self.char_cast(cast, &to))
                        }
                    },
                    // CONVERT(x, CHAR CHARACTER SET cs), also CAST(x AS CHAR CHARACTER SET cs).
                    (Some(t), Some(cs)) => {
                        let c = collation::column_charset_default(&cs.to_string())?;
                        // Bytes are read in the charset, as CONVERT(x USING cs)
                        // reads them (not first as utf8mb4 text).
                        let x = if quiver_common::types::is_binary(&x.data_type()) {
                            x
                        } else {
                            cast(x, &cast_type(t)?)
                        };
                        let x = char_length_limit(coerce::to_charset(x, c.charset()), t);
                        Ok(x.with_collation(c, quiver_plan::Coercibility::Implicit))
                    }
                    // CONVERT(x USING charset): the charset's default collation, IMPLICIT.
                    (None, Some(cs)) => {
                        let c = collation::column_charset_default(&cs.to_string())?;
                        let x = coerce::to_charset(string_arg(x), c.charset());
                        Ok(x.with_collation(c, quiver_plan::Coercibility::Implicit))
                    }
                    (None, None) => Ok(string_arg(x)),
                }
            }
            A::Extract { field, expr, .. } => {
                let part = date_part(field)?;
                let x = self.expr(expr, ctx)?;
                super::functions::extract(x, part)
            }
            A::Ceil { expr, field } | A::Floor { expr, field } => {
                let name = if matches!(e, A::Ceil { .. }) { "ceiling" } else { "floor" };
                let f = self
                    .catalog
                    .functions()
                    .scalar(name)
                    .ok_or_else(|| QuiverError::unknown_function(&format!("quiver.{name}")))?;
                match field {
                    ast::CeilFloorKind::DateTimeField(DateTimeField::NoDateTime) => {}
                    // FLOOR(x, 2): one argument too many.
                    ast::CeilFloorKind::Scale(_) => return Err(f.arity_error(name)),
                    _ => return Err(QuiverError::not_supported(format!("{e}"))),
                }
                let x = self.expr(expr, ctx)?;
                super::registry::call(f, name, vec![x])
            }
            A::Substring { expr, substring_from, substring_for, .. } => {
                let s = self.expr(expr, ctx)?;
                let from = match substring_from {
                    Some(f) => self.expr(f, ctx)?,
                    None => return Err(QuiverError::wrong_arguments("SUBSTRING")),
                };
                let len = substring_for.as_ref().map(|l| self.expr(l, ctx)).transpose()?;
                collation::string_function_charset(super::functions::substring(s, from, len))
            }
            A::Trim { trim_where, trim_what, expr, trim_characters } => {
                if trim_characters.is_some() {
                    return Err(QuiverError::not_supported(format!("{e}")));
                }
                let s = self.expr(expr, ctx)?;
                let what = trim_what.as_ref().map(|w| self.expr(w, ctx)).transpose()?;
                collation::string_function_charset(super::functions::trim(trim_where.as_ref(), s, what)?)
            }
            A::Collate { expr, collation: name } => {
                let x = self.expr(expr, ctx)?;
                collation::explicit(x, name.to_string().trim_matches(|c| c == '`' || c == '\'' || c == '"'))
            }
            A::Function(f) if session_function(f).is_some() => {
                self.session_function(session_function(f).expect("checked"))
            }
            A::Function(f) => self
                .function(f, ctx)
                .and_then(collation::string_function_charset),
            // `_utf8mb4'abc'`, `_latin1 X'E9'`: a literal in that charset's
            // default collation, its bytes read in the charset.
            A::Prefixed { prefix, value } => {
                let c = collation::column_charset_default(prefix.value.trim_start_matches('_'))?;
                let syntax = || {
                    QuiverError::syntax_msg(format!(
                        "You have an error in your SQL syntax near '{e}'"
                    ))
                };
                // The literal's bytes, and whether hex digits wrote them.
                let bytes = match value.as_ref() {
                    A::Value(v) => match &v.value {
                        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                            Some((s.as_bytes().to_vec(), false))
                        }
                        ast::Value::HexStringLiteral(h) => hex_bytes(h).map(|b| (b, true)),
                        // `0xE9`: an odd digit count has a leading 0.
                        ast::Value::Number(n, _) => n.strip_prefix("0x").and_then(|h| {
                            hex_bytes(&format!("{}{h}", if h.len() % 2 == 1 { "0" } else { "" }))
                                .map(|b| (b, true))
                        }),
                        _ => None,
                    },
                    _ => None,
                };
                let x = match bytes {
                    Some((b, _)) if c.charset() == quiver_collation::Charset::Binary => {
                        Expr::lit(ScalarValue::Binary(b))
                    }
                    Some((b, from_hex)) => {
                        Expr::lit(ScalarValue::Utf8(collation::introduced_text(c.charset(), b, from_hex)?))
                    }
                    None => {
                        let x = self.expr(value, ctx)?;
                        if !matches!(x, Expr::Literal(..)) {
                            return Err(syntax());
                        }
                        x
                    }
                };
                if c.charset() == quiver_collation::Charset::Binary {
                    // A bare binary literal is binary, COERCIBLE already.
                    return Ok(coerce::cast(string_arg(x), &DataType::Binary));
                }
                Ok(string_arg(x).with_collation(c, quiver_plan::Coercibility::Coercible))
            }
            A::Position { expr, r#in } => {
                let sub = string_arg(self.expr(expr, ctx)?);
                let s = string_arg(self.expr(r#in, ctx)?);
                super::functions::locate(vec![sub, s])
            }
            A::Case { operand, conditions, else_result, .. } => {
                let operand = operand.as_ref().map(|o| self.expr(o, ctx)).transpose()?;
                let whens: Vec<Expr> =
                    conditions.iter().map(|w| self.expr(&w.condition, ctx)).collect::<Result<_>>()?;
                if let Some(o) = &operand {
                    // The operand and the WHEN values meet under one collation
                    // (an illegal mix names 'case').
                    let mut all = vec![o.clone()];
                    all.extend(whens.iter().cloned());
                    collation::collate_operands(all, "case")?;
                }
                let mut branches = Vec::with_capacity(conditions.len());
                for (w, c) in conditions.iter().zip(whens) {
                    // Simple CASE compares with = semantics (1 matches 1.0, NULL never matches).
                    let c = match &operand {
                        Some(o) => compare(BinaryOp::Eq, o.clone(), c)?,
                        None => to_bool(c),
                    };
                    branches.push((c, self.expr(&w.result, ctx)?));
                }
                let else_expr = else_result.as_ref().map(|e| self.expr(e, ctx)).transpose()?;
                let values: Vec<&Expr> =
                    branches.iter().map(|(_, v)| v).chain(else_expr.as_ref()).collect();
                collation::check_result_collations(&values, "case")?;
                Ok(coerce::case(branches, else_expr))
            }
            A::Exists { subquery, negated } => self.exists_value(subquery, *negated, ctx),
            A::Subquery(q) => self.scalar_subquery(q, ctx),
            A::Tuple(items) if items.len() == 1 => self.expr(&items[0], ctx),
            A::Tuple(_) => Err(QuiverError::operand_columns(1)),
            A::Interval(_) => Err(QuiverError::syntax_msg(format!(
                "You have an error in your SQL syntax; INTERVAL is only allowed in date arithmetic near '{e}'"
            ))),
            A::AnyOp { left, compare_op, right, .. } => self.quantified_subquery(left, compare_op, right, false, ctx),
            A::AllOp { left, compare_op, right } => self.quantified_subquery(left, compare_op, right, true, ctx),
            A::Wildcard(_) | A::QualifiedWildcard(..) => {
                Err(QuiverError::syntax_msg(format!("You have an error in your SQL syntax near '{e}'")))
            }
            other => Err(QuiverError::not_supported(format!("the expression {other}"))),
        }
    }

    /// A CAST / CONVERT to CHAR without a charset: text in the connection's
    /// charset and collation (IMPLICIT), as MariaDB; other types unchanged.
    fn in_connection_collation(&self, x: Expr) -> Expr {
        if !quiver_common::types::is_text(&x.data_type()) {
            return x;
        }
        let conn = self.vars.collation_connection;
        let inner = match coerce::to_charset(x, conn.charset()) {
            Expr::Collate { expr, .. } => *expr,
            e => e,
        };
        Expr::Collate {
            expr: Box::new(inner),
            collation: conn,
            coercibility: quiver_plan::Coercibility::Implicit,
        }
    }

    /// Whether the token at `at` is written `X'..'` (not `0x..`).
    fn written_with_x(&self, at: sqlparser::tokenizer::Location) -> bool {
        let Some(src) = self.source.as_deref() else {
            return false;
        };
        src.offset(at)
            .and_then(|o| src.text().get(o..o + 1))
            .is_some_and(|c| c.eq_ignore_ascii_case("x"))
    }

    /// Whether `inner` (of a CAST to BINARY) was written after the BINARY
    /// operator rather than inside `CAST(.. AS BINARY)`: the token before
    /// it in the statement's text says; `None` without the text.
    fn binary_prefix(&self, inner: &ast::Expr) -> Option<bool> {
        use sqlparser::ast::Spanned;
        use sqlparser::tokenizer::Token;
        let tokens = self.source.as_deref()?.tokens()?;
        let start = inner.span().start;
        let first = tokens.partition_point(|t| t.span.start < start);
        let before = tokens[..first]
            .iter()
            .rev()
            .find(|t| !matches!(t.token, Token::Whitespace(_)))?;
        Some(matches!(&before.token, Token::Word(w) if w.value.eq_ignore_ascii_case("binary")))
    }

    /// `@name`: the value the session gave it, a constant of its type and
    /// collation (IMPLICIT, as MySQL's); NULL when never set.
    fn user_variable(&self, name: &str) -> Expr {
        let name = name.trim_matches('`').to_lowercase();
        match self.vars.user.get(&name) {
            None => Expr::lit(ScalarValue::Null),
            Some(u) => {
                let e = Expr::Literal(u.value.clone(), u.data_type.clone());
                match (&u.value, u.collation) {
                    // IMPLICIT also under the default collation (a plain
                    // string literal would be COERCIBLE).
                    (ScalarValue::Utf8(_), c) => Expr::Collate {
                        expr: Box::new(e),
                        collation: c.unwrap_or_else(quiver_plan::default_collation),
                        coercibility: quiver_plan::Coercibility::Implicit,
                    },
                    (ScalarValue::Binary(_), _) => Expr::Collate {
                        expr: Box::new(e),
                        collation: quiver_collation::Collation::binary(),
                        coercibility: quiver_plan::Coercibility::Implicit,
                    },
                    _ => e,
                }
            }
        }
    }

    fn session_function(&self, f: SessionFunction) -> Result<Expr> {
        let who = &self.vars.identity;
        Ok(match f {
            SessionFunction::Version => return self.system_variable("@@version"),
            SessionFunction::LastInsertId => return self.system_variable("@@last_insert_id"),
            SessionFunction::Database => system_constant(who.database.clone()),
            SessionFunction::User => system_constant(Some(who.user.clone())),
            SessionFunction::CurrentUser => system_constant(Some(who.account.clone())),
            SessionFunction::ConnectionId => Expr::lit(ScalarValue::UInt64(who.connection_id)),
        })
    }

    /// `@@name` (also `@@session.name`): the session's value, a constant
    /// (a string one a [`system_constant`]); `@@global.name` the value a
    /// new session starts with.
    fn system_variable(&self, name: &str) -> Result<Expr> {
        let value = self.system_variable_value(name)?;
        Ok(match value {
            Expr::Literal(ScalarValue::Utf8(s), _) => system_constant(Some(s)),
            other => other,
        })
    }

    fn system_variable_value(&self, name: &str) -> Result<Expr> {
        let n = name.trim_start_matches("@@").to_lowercase();
        let global = n.starts_with("global.");
        let n = n
            .strip_prefix("session.")
            .or_else(|| n.strip_prefix("local."))
            .or_else(|| n.strip_prefix("global."))
            .unwrap_or(&n)
            .to_string();
        if !global {
            if let Some(value) = self.vars.system.get(&n) {
                return Ok(Expr::lit(value.clone()));
            }
        }
        let text = |s: &str| Ok(Expr::lit(ScalarValue::Utf8(s.to_string())));
        let int = |i: i64| Ok(Expr::lit(ScalarValue::Int64(i)));
        let defaults = super::SessionVars::default();
        let v = if global { &defaults } else { &self.vars };
        match n.as_str() {
            "collation_connection" => text(v.collation_connection.name()),
            "character_set_connection" => text(v.collation_connection.charset().name()),
            "character_set_client" => text(v.character_set_client.name()),
            "character_set_results" => match v.character_set_results {
                Some(c) => text(c.charset().name()),
                None => Ok(Expr::lit(ScalarValue::Null)),
            },
            "collation_database" | "collation_server" => text(v.collation_database.name()),
            "character_set_database" | "character_set_server" => {
                text(v.collation_database.charset().name())
            }
            // MySQL 8.0's protocol and Quiver's own version: connectors pick
            // their code paths by the leading number (the server announces the same).
            "version" => text(concat!("8.0.40-Quiver-", env!("CARGO_PKG_VERSION"))),
            "version_comment" => text("Quiver"),
            "version_compile_os" => text(std::env::consts::OS),
            "version_compile_machine" => text(std::env::consts::ARCH),
            "license" => text("Apache-2.0"),
            "protocol_version" => int(10),
            "character_set_system" => text("utf8mb3"),
            // MySQL's defaults; a session keeps its own values (SET, and
            // `in_transaction` while a transaction is open).
            "autocommit" => int(1),
            "in_transaction" => int(0),
            "transaction_isolation" | "tx_isolation" => text("REPEATABLE-READ"),
            "transaction_read_only" | "tx_read_only" => int(0),
            "auto_increment_increment" | "auto_increment_offset" => int(1),
            // Quiver's behaviour: strict stores, errors for division by zero in stores.
            "sql_mode" => text(
                "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
            ),
            // Names keep their case and are looked up case-insensitively.
            "lower_case_table_names" => int(2),
            "time_zone" => text("SYSTEM"),
            "system_time_zone" => text("UTC"),
            "max_allowed_packet" => int(64 << 20),
            "net_buffer_length" => int(16384),
            "wait_timeout" | "interactive_timeout" => int(28800),
            "net_write_timeout" => int(60),
            "net_read_timeout" => int(30),
            "connect_timeout" => int(10),
            "max_connections" => int(151),
            "init_connect" => text(""),
            "performance_schema" => int(0),
            "query_cache_size" => int(0),
            "query_cache_type" => text("OFF"),
            "have_ssl" => text("DISABLED"),
            "sql_auto_is_null" => int(0),
            "sql_select_limit" => Ok(Expr::lit(ScalarValue::UInt64(u64::MAX))),
            "default_storage_engine" | "storage_engine" => text("Quiver"),
            // The engine binds the session's counts (its diagnostics area).
            "warning_count" | "error_count" => int(0),
            "max_error_count" => int(64),
            // LAST_INSERT_ID(): no AUTO_INCREMENT value was made.
            "last_insert_id" => int(0),
            // Accepted by SET (see the engine's variables.rs); their defaults.
            "big_tables" | "sql_safe_updates" | "sql_warnings" => int(0),
            "foreign_key_checks" | "unique_checks" | "sql_notes" | "sql_big_selects"
            | "sql_quote_show_create" | "session_track_schema" => int(1),
            "session_track_state_change" => int(0),
            "session_track_system_variables" => text(
                "autocommit,character_set_client,character_set_connection,character_set_results,time_zone",
            ),
            "session_track_transaction_info" => text("OFF"),
            // Division results always have 4 more decimals than the dividend.
            "div_precision_increment" => int(4),
            "group_concat_max_len" => int(1_048_576),
            // WITH RECURSIVE's round limit.
            "max_recursive_iterations" => int(1000),
            // Statement time limits (MySQL's in ms, MariaDB's in s): 0, none.
            "max_execution_time" => int(0),
            "max_statement_time" => Ok(Expr::lit(ScalarValue::decimal(0, 14, 6))),
            _ => Err(QuiverError::new(
                1193,
                "HY000",
                format!("Unknown system variable '{n}'"),
            )),
        }
    }

    /// Resolves a column: the block's FROM scope, then select-list aliases where
    /// the clause allows them, then the enclosing blocks (a correlated reference).
    pub(crate) fn column(
        &mut self,
        qualifier: Option<&str>,
        name: &str,
        ctx: &Ctx,
    ) -> Result<Expr> {
        let display = match qualifier {
            Some(q) => format!("{q}.{name}"),
            None => name.to_string(),
        };
        match ctx.scope.lookup(qualifier, name) {
            Lookup::Found(c) => return Ok(c.expr()),
            Lookup::Ambiguous => {
                return Err(QuiverError::ambiguous_column(&display, ctx.clause.name()))
            }
            Lookup::NotFound => {}
        }
        if qualifier.is_none() {
            if let Some(item) = ctx
                .aliases
                .iter()
                .find(|i| i.name.eq_ignore_ascii_case(name))
            {
                return Ok(item.expr.clone());
            }
        }
        for scope in self.outer.iter().rev() {
            match scope.lookup(qualifier, name) {
                Lookup::Found(c) => return Ok(c.expr()),
                Lookup::Ambiguous => {
                    return Err(QuiverError::ambiguous_column(&display, ctx.clause.name()))
                }
                Lookup::NotFound => {}
            }
        }
        Err(QuiverError::unknown_column(&display, ctx.clause.name()))
    }

    fn binary(&mut self, left: &ast::Expr, op: &B, right: &ast::Expr, ctx: &Ctx) -> Result<Expr> {
        if matches!(op, B::And | B::Or) {
            return self.logical_chain(left, op, right, ctx);
        }
        // Date arithmetic: d + INTERVAL n unit, INTERVAL n unit + d, d - INTERVAL n unit.
        if matches!(op, B::Plus | B::Minus) {
            if let ast::Expr::Interval(iv) = right {
                let d = self.expr(left, ctx)?;
                return self.interval_add(d, iv, *op == B::Minus, ctx);
            }
            if let (ast::Expr::Interval(iv), B::Plus) = (left, op) {
                let d = self.expr(right, ctx)?;
                return self.interval_add(d, iv, false, ctx);
            }
        }
        let cmp = match op {
            B::Eq => Some(BinaryOp::Eq),
            B::NotEq => Some(BinaryOp::NotEq),
            B::Lt => Some(BinaryOp::Lt),
            B::LtEq => Some(BinaryOp::LtEq),
            B::Gt => Some(BinaryOp::Gt),
            B::GtEq => Some(BinaryOp::GtEq),
            _ => None,
        };
        if let (Some(cmp), true) = (cmp, is_row(left) || is_row(right)) {
            return self.row_compare(cmp, left, right, ctx);
        }
        let l = self.expr(left, ctx)?;
        let r = self.expr(right, ctx)?;
        if let Some(cmp) = cmp {
            let (l, r) = super::members::compare_operands(cmp, l, r);
            return compare(cmp, l, r);
        }
        Ok(match op {
            B::Plus => arith(BinaryOp::Add, l, r)?,
            B::Minus => arith(BinaryOp::Sub, l, r)?,
            B::Multiply => arith(BinaryOp::Mul, l, r)?,
            B::Divide => arith(BinaryOp::Div, l, r)?,
            B::Modulo => arith(BinaryOp::Mod, l, r)?,
            B::MyIntegerDivide | B::DuckIntegerDivide => arith(BinaryOp::IntDiv, l, r)?,
            B::Spaceship => coerce::null_safe_eq(l, r),
            B::And => and(l, r),
            // MySQL's || is OR unless PIPES_AS_CONCAT is set.
            B::Or | B::StringConcat => or(l, r),
            B::Xor => and(or(l.clone(), r.clone()), not(and(l, r))),
            B::BitwiseOr => self.operator("|", vec![l, r])?,
            B::BitwiseAnd => self.operator("&", vec![l, r])?,
            B::BitwiseXor => self.operator("^", vec![l, r])?,
            B::PGBitwiseShiftLeft => self.operator("<<", vec![l, r])?,
            B::PGBitwiseShiftRight => self.operator(">>", vec![l, r])?,
            other => return Err(QuiverError::not_supported(format!("operator {other}"))),
        })
    }

    /// An operator the function registry holds (`|`, `~`), by its symbol.
    fn operator(&self, symbol: &str, args: Vec<Expr>) -> Result<Expr> {
        match self.catalog.functions().scalar(symbol) {
            Some(f) => super::registry::call(f, symbol, args),
            None => Err(QuiverError::not_supported(format!("operator {symbol}"))),
        }
    }

    /// `(a, b) = (c, d)` and `<>`, element-wise.
    fn row_compare(
        &mut self,
        op: BinaryOp,
        left: &ast::Expr,
        right: &ast::Expr,
        ctx: &Ctx,
    ) -> Result<Expr> {
        let l = self.operands(left, ctx)?;
        let r = self.operands(right, ctx)?;
        if l.len() != r.len() {
            return Err(QuiverError::operand_columns(l.len()));
        }
        let pairs = l.into_iter().zip(r);
        let (combine, op): (fn(Expr, Expr) -> Expr, _) = match op {
            BinaryOp::Eq => (and, BinaryOp::Eq),
            BinaryOp::NotEq => (or, BinaryOp::NotEq),
            _ => return Err(QuiverError::not_supported("ordering comparisons of rows")),
        };
        let terms = pairs
            .map(|(a, b)| compare(op, a, b))
            .collect::<Result<Vec<_>>>()?;
        Ok(terms
            .into_iter()
            .reduce(combine)
            .unwrap_or_else(|| bool_lit(op == BinaryOp::Eq)))
    }

    /// The operands of a row constructor `(a, b)`, or the single operand.
    pub(crate) fn operands(&mut self, e: &ast::Expr, ctx: &Ctx) -> Result<Vec<Expr>> {
        match e {
            ast::Expr::Tuple(items) => items.iter().map(|i| self.expr(i, ctx)).collect(),
            ast::Expr::Nested(inner) if is_row(inner) => self.operands(inner, ctx),
            ast::Expr::Subquery(_) => Err(QuiverError::not_supported("row subqueries")),
            other => Ok(vec![self.expr(other, ctx)?]),
        }
    }

    fn in_list(
        &mut self,
        x: &ast::Expr,
        list: &[ast::Expr],
        negated: bool,
        ctx: &Ctx,
    ) -> Result<Expr> {
        if is_row(x) {
            // (a, b) IN ((1, 2), (3, 4)): a disjunction of row equalities.
            let mut any: Option<Expr> = None;
            for item in list {
                let eq = self.row_compare(BinaryOp::Eq, x, item, ctx)?;
                any = Some(match any {
                    Some(a) => or(a, eq),
                    None => eq,
                });
            }
            let any = any.unwrap_or_else(|| bool_lit(false));
            return Ok(if negated { not(any) } else { any });
        }
        let x = self.expr(x, ctx)?;
        let items = list
            .iter()
            .map(|i| self.expr(i, ctx))
            .collect::<Result<Vec<_>>>()?;
        if items.is_empty() {
            return Err(QuiverError::syntax_msg(
                "You have an error in your SQL syntax near ')'",
            ));
        }
        if is_string(&x.data_type()) {
            let mut all = vec![x];
            all.extend(items);
            let mut all = collation::collate_operands(all, "in")?;
            let items = all.split_off(1);
            let x = all.pop().expect("the probe");
            return Ok(coerce::in_list(x, items, negated));
        }
        Ok(coerce::in_list(x, items, negated))
    }

    fn like(
        &mut self,
        x: &ast::Expr,
        p: &ast::Expr,
        escape: Option<&ast::Expr>,
        negated: bool,
        ctx: &Ctx,
    ) -> Result<Expr> {
        let x = string_arg(self.expr(x, ctx)?);
        let p = string_arg(self.expr(p, ctx)?);
        // An empty or NULL escape: MariaDB's default one (`\`) under a
        // UTF-8 charset, NUL under latin1 / ascii (decided below).
        let mut no_escape = false;
        let escape = match escape {
            None => None,
            Some(e) => match escape_literal(self.expr(e, ctx)?)? {
                Expr::Literal(ScalarValue::Null, _) => {
                    no_escape = true;
                    None
                }
                Expr::Literal(ScalarValue::Utf8(s), _) if s.is_empty() => {
                    no_escape = true;
                    None
                }
                Expr::Literal(ScalarValue::Utf8(s), _) => {
                    let mut chars = s.chars();
                    match (chars.next(), chars.next()) {
                        (Some(c), None) => Some(c),
                        _ => {
                            return Err(QuiverError::new(
                                1210,
                                "HY000",
                                "Incorrect arguments to ESCAPE",
                            ))
                        }
                    }
                }
                _ => {
                    return Err(QuiverError::new(
                        1210,
                        "HY000",
                        "Incorrect arguments to ESCAPE",
                    ))
                }
            },
        };
        if matches!(x, Expr::Literal(ScalarValue::Null, _))
            || matches!(p, Expr::Literal(ScalarValue::Null, _))
        {
            return Ok(null_lit(DataType::Boolean));
        }
        let mut v = collation::collate_operands(vec![x, p], "like")?;
        let (p, x) = (v.pop().expect("2"), v.pop().expect("2"));
        let escape = match collation::charset_of(&x) {
            quiver_collation::Charset::Latin1 | quiver_collation::Charset::Ascii if no_escape => {
                Some('\0')
            }
            _ => escape,
        };
        Ok(Expr::Like {
            negated,
            expr: Box::new(x),
            pattern: Box::new(p),
            escape,
        })
    }

    /// `d + INTERVAL n unit` (or minus).
    pub(crate) fn interval_add(
        &mut self,
        date: Expr,
        iv: &ast::Interval,
        negate: bool,
        ctx: &Ctx,
    ) -> Result<Expr> {
        let part = match &iv.leading_field {
            Some(f) if iv.last_field.is_none() => date_part(f)?,
            _ => {
                return Err(QuiverError::syntax_msg(
                    "You have an error in your SQL syntax: INTERVAL needs a unit",
                ))
            }
        };
        let value = self.expr(&iv.value, ctx)?;
        let fsp = interval_fsp(&value.data_type(), part);
        let (n, part) = interval_count(value, part);
        let n = if negate { coerce::negate(n)? } else { n };
        if !coerce::is_date_like(&date.data_type()) {
            return Err(QuiverError::not_supported(format!(
                "INTERVAL arithmetic on {}",
                date.data_type()
            )));
        }
        coerce::date_add_fsp(date, n, part, fsp)
    }
}

/// The fraction digits MariaDB gives `INTERVAL value part`: 6 for a unit
/// with microseconds, for SECOND the value's own (a DECIMAL's scale, 6 for
/// a DOUBLE or a string), 0 for the other units (their fractions are not
/// kept: `INTERVAL '1:1.5' MINUTE_SECOND` is NULL).
fn interval_fsp(t: &DataType, part: DatePart) -> u8 {
    use quiver_common::types::MAX_FSP;
    match part {
        DatePart::Microsecond
        | DatePart::SecondMicrosecond
        | DatePart::MinuteMicrosecond
        | DatePart::HourMicrosecond
        | DatePart::DayMicrosecond => MAX_FSP,
        DatePart::Second => match t {
            DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => (*s).clamp(0, 6) as u8,
            DataType::Float64 | DataType::Float32 => MAX_FSP,
            t if is_string(t) => MAX_FSP,
            _ => 0,
        },
        _ => 0,
    }
}

/// The count of `INTERVAL value part` in a single unit, and that unit.
/// As in MySQL, a number counts whole units (DECIMAL and DOUBLE rounded),
/// except that SECOND keeps a fraction; a string is read by
/// `DatePart::parse_interval`, and a compound unit reads any value as a
/// string (`INTERVAL 1.5 DAY_HOUR` is 1 day 5 hours).
fn interval_count(value: Expr, part: DatePart) -> (Expr, DatePart) {
    let t = value.data_type();
    let whole = match &t {
        DataType::Decimal128(_, scale) => *scale <= 0,
        DataType::Float64 | DataType::Float32 => false,
        t => !is_string(t),
    };
    if !part.is_compound() && (whole || (!is_string(&t) && part != DatePart::Second)) {
        return (value, part);
    }
    let s = string_arg(value);
    let base = part.interval_base();
    let n = match s.as_str_literal() {
        Some(s) => match part.parse_interval(s) {
            Some(n) => Expr::lit(ScalarValue::Int64(n)),
            None => null_lit(DataType::Int64),
        },
        _ => Expr::Function {
            func: quiver_plan::ScalarFunc::Interval(part),
            args: vec![s],
            data_type: DataType::Int64,
        },
    };
    (n, base)
}

/// The functions of no arguments whose value is the session's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum SessionFunction {
    /// `@@version`.
    Version,
    /// 0, as in a MySQL session that inserted no AUTO_INCREMENT value
    /// (Quiver has none).
    LastInsertId,
    Database,
    User,
    CurrentUser,
    ConnectionId,
}

fn session_function(f: &ast::Function) -> Option<SessionFunction> {
    let no_args = match &f.args {
        ast::FunctionArguments::List(l) => l.args.is_empty(),
        ast::FunctionArguments::None => true,
        _ => false,
    };
    if !no_args || f.name.0.len() != 1 {
        return None;
    }
    Some(match f.name.to_string().to_ascii_uppercase().as_str() {
        "VERSION" => SessionFunction::Version,
        "LAST_INSERT_ID" => SessionFunction::LastInsertId,
        "DATABASE" | "SCHEMA" => SessionFunction::Database,
        "USER" | "SESSION_USER" | "SYSTEM_USER" => SessionFunction::User,
        "CURRENT_USER" => SessionFunction::CurrentUser,
        "CONNECTION_ID" => SessionFunction::ConnectionId,
        _ => return None,
    })
}

/// A string the server makes (a system variable's, `USER()`'s): MariaDB
/// types it utf8mb3_general_ci with SYSCONST coercibility, so a column or
/// `COLLATE` decides a comparison with it, and it a literal's.
fn system_constant(value: Option<String>) -> Expr {
    let value = match value {
        Some(s) => Expr::lit(ScalarValue::Utf8(s)),
        None => Expr::Literal(ScalarValue::Null, DataType::Utf8),
    };
    Expr::Collate {
        expr: Box::new(value),
        collation: quiver_collation::Collation::from_name("utf8mb3_general_ci")
            .expect("a built-in collation"),
        coercibility: quiver_plan::Coercibility::SysConst,
    }
}

fn is_row(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Tuple(items) => items.len() != 1,
        ast::Expr::Nested(inner) => is_row(inner),
        _ => false,
    }
}

/// The part named by an INTERVAL unit or EXTRACT field; the compound
/// units (`DAY_HOUR`) come from the parser as custom fields.
pub(crate) fn date_part(f: &DateTimeField) -> Result<DatePart> {
    use DateTimeField as F;
    Ok(match f {
        F::Year => DatePart::Year,
        F::Quarter => DatePart::Quarter,
        F::Month => DatePart::Month,
        F::Week(None) => DatePart::Week,
        F::Day => DatePart::Day,
        F::Hour => DatePart::Hour,
        F::Minute => DatePart::Minute,
        F::Second => DatePart::Second,
        F::Microsecond => DatePart::Microsecond,
        F::Custom(name) if name.quote_style.is_none() => DatePart::from_name(&name.value)
            .ok_or_else(|| QuiverError::not_supported(format!("the unit {f}")))?,
        other => return Err(QuiverError::not_supported(format!("the unit {other}"))),
    })
}

/// A literal value with MySQL's type: integers are BIGINT (BIGINT UNSIGNED,
/// then DECIMAL when larger), `1.50` is DECIMAL(3,2), `1e3` is DOUBLE.
/// The bytes of a hex literal's digits (`X'E9'`); `None` for an odd count.
fn hex_bytes(h: &str) -> Option<Vec<u8>> {
    (0..h.len())
        .step_by(2)
        .map(|i| h.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
        .collect()
}

pub(crate) fn literal(v: &ast::Value) -> Result<Expr> {
    use ast::Value as V;
    Ok(match v {
        V::Number(s, _) => number(s)?,
        V::SingleQuotedString(s)
        | V::DoubleQuotedString(s)
        | V::NationalStringLiteral(s)
        | V::EscapedStringLiteral(s) => Expr::lit(ScalarValue::Utf8(s.clone())),
        // X'..' and 0x..: a binary string (MariaDB: charset binary, COERCIBLE).
        // X'..' and 0x..: a binary string (MariaDB: charset binary,
        // COERCIBLE). The parser gives both the same token, so an odd digit
        // count reads as 0x's does (a leading 0).
        V::HexStringLiteral(h) => {
            let even = if h.len() % 2 == 1 {
                format!("0{h}")
            } else {
                h.clone()
            };
            match hex_bytes(&even) {
                Some(b) => Expr::lit(ScalarValue::Binary(b)),
                None => {
                    return Err(QuiverError::syntax_msg(format!(
                        "You have an error in your SQL syntax near 'X'{h}''"
                    )))
                }
            }
        }
        V::Boolean(b) => bool_lit(*b),
        V::Null => null_lit(DataType::Null),
        V::Placeholder(_) => return Err(QuiverError::not_supported("statement parameters")),
        other => return Err(QuiverError::not_supported(format!("the literal {other}"))),
    })
}

fn number(s: &str) -> Result<Expr> {
    match exact_number(s) {
        Some(e) => Ok(e),
        None => double(s),
    }
}

/// A number literal read as a DOUBLE: one beyond its range is error 1367,
/// as MySQL's parser gives it.
fn double(s: &str) -> Result<Expr> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(Expr::lit(ScalarValue::Float64(x))),
        _ => Err(QuiverError::new(
            1367,
            "22007",
            format!("Illegal double '{s}' value found during parsing"),
        )),
    }
}

/// A number literal as an integer or DECIMAL, if it is one of those.
fn exact_number(s: &str) -> Option<Expr> {
    if s.contains(['e', 'E']) {
        return None;
    }
    if let Some((int_part, frac)) = s.split_once('.') {
        let int_digits = int_part.trim_start_matches('0').len().max(1);
        let p = int_digits + frac.len();
        return match parse_decimal256(s) {
            Some((v, scale))
                if p <= quiver_common::types::MAX_DECIMAL_PRECISION as usize
                    && scale <= quiver_common::types::MAX_DECIMAL_SCALE =>
            {
                Some(Expr::Literal(
                    ScalarValue::Decimal(v, p as u8, scale),
                    quiver_common::types::decimal_type(p as u8, scale),
                ))
            }
            _ => None,
        };
    }
    if let Ok(i) = s.parse::<i64>() {
        return Some(Expr::lit(ScalarValue::Int64(i)));
    }
    if let Ok(u) = s.parse::<u64>() {
        return Some(Expr::lit(ScalarValue::UInt64(u)));
    }
    let digits = s.trim_start_matches('0').len().max(1);
    match parse_decimal256(s) {
        Some((v, _)) if digits <= quiver_common::types::MAX_DECIMAL_PRECISION as usize => {
            Some(Expr::Literal(
                ScalarValue::Decimal(v, digits as u8, 0),
                quiver_common::types::decimal_type(digits as u8, 0),
            ))
        }
        _ => None,
    }
}

/// `DATE '...'`, `TIMESTAMP '...'` and other typed string literals.
/// `CAST(x AS BINARY)`, `CONVERT(x, BINARY)`, `BINARY 'x'`: x's bytes as a
/// binary string, which compares byte by byte without padding (collation
/// `binary`, coercibility IMPLICIT as MySQL gives a cast). None for other
/// types. A length (`BINARY(4)` pads with NUL bytes or cuts bytes) is
/// refused: cutting may split a character the engine keeps as UTF-8.
impl Binder<'_> {
    /// `a OR b OR c ...` (or AND): the parser's left-deep chain, as long as
    /// a generated query makes it, is bound operand by operand and joined
    /// as a balanced tree (AND and OR are associative, NULLs included), so
    /// neither binding nor what follows nests as deep as the chain is long.
    fn logical_chain(
        &mut self,
        left: &ast::Expr,
        op: &B,
        right: &ast::Expr,
        ctx: &Ctx,
    ) -> Result<Expr> {
        let mut operands = vec![right];
        let mut cur = left;
        while let ast::Expr::BinaryOp { left, op: o, right } = cur {
            if o != op {
                break;
            }
            operands.push(right);
            cur = left;
        }
        operands.push(cur);
        operands.reverse();
        let mut level: Vec<Expr> = operands
            .into_iter()
            .map(|e| self.expr(e, ctx))
            .collect::<Result<_>>()?;
        let join = if *op == B::And { and } else { or };
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut it = level.into_iter();
            while let Some(a) = it.next() {
                next.push(match it.next() {
                    Some(b) => join(a, b),
                    None => a,
                });
            }
            level = next;
        }
        Ok(level.pop().expect("a chain has operands"))
    }
}

/// `BINARY a op b ...` as MySQL reads it: `a` (the leftmost operand) made
/// binary; `None` when `e` is not an operator expression.
fn binary_on_leftmost(e: &ast::Expr) -> Option<ast::Expr> {
    use ast::Expr as A;
    fn wrap(e: &ast::Expr) -> ast::Expr {
        match binary_on_leftmost(e) {
            Some(r) => r,
            None => A::Cast {
                kind: ast::CastKind::Cast,
                expr: Box::new(e.clone()),
                data_type: ast::DataType::Binary(None),
                format: None,
            },
        }
    }
    let mut out = e.clone();
    match &mut out {
        A::BinaryOp { left, .. } => **left = wrap(left),
        A::Like { expr, .. } | A::ILike { expr, .. } | A::RLike { expr, .. } => **expr = wrap(expr),
        A::InList { expr, .. } | A::InSubquery { expr, .. } | A::Between { expr, .. } => {
            **expr = wrap(expr)
        }
        A::IsNull(x) | A::IsNotNull(x) | A::IsTrue(x) | A::IsFalse(x) => **x = wrap(x),
        _ => return None,
    }
    Some(out)
}

/// `BINARY x`, `CAST(x AS BINARY)`: the bytes of `x` (IMPLICIT). With a
/// length `n`, as MariaDB: bytes are cut to `n` bytes, anything else to
/// its first `n` characters (so 'éé' AS BINARY(1) is C3A9); either is then
/// padded with 0x00 up to `n` bytes.
fn binary_string(x: &Expr, to: &ast::DataType) -> Option<Result<Expr>> {
    use quiver_plan::ScalarFunc;
    let length = match to {
        ast::DataType::Binary(n) => *n,
        _ => return None,
    };
    let func = |func, args, data_type| Expr::Function {
        func,
        args,
        data_type,
    };
    let bytes = match length {
        None => coerce::cast(string_arg(x.clone()), &DataType::Binary),
        Some(n) => {
            let n = Expr::lit(ScalarValue::Int64(n.min(i64::MAX as u64) as i64));
            let zero = Expr::lit(ScalarValue::Binary(vec![0]));
            if x.data_type() == DataType::Binary {
                func(ScalarFunc::Rpad, vec![x.clone(), n, zero], DataType::Binary)
            } else {
                let text = string_arg(x.clone());
                // Cut in the text's own charset (latin1 text becomes its
                // latin1 bytes).
                let (collation, coercibility) = super::derivation::derivation(&text);
                let chars = func(ScalarFunc::Left, vec![text, n.clone()], DataType::Utf8)
                    .with_collation(collation, coercibility);
                let cut = coerce::cast(chars, &DataType::Binary);
                // Padded up to n bytes, never cut: n characters may be more.
                let len = func(ScalarFunc::Length, vec![cut.clone()], DataType::Int64);
                let width = Expr::Case {
                    branches: vec![(
                        Expr::Binary {
                            op: quiver_plan::BinaryOp::Gt,
                            left: Box::new(len.clone()),
                            right: Box::new(n.clone()),
                        },
                        len,
                    )],
                    else_expr: Some(Box::new(n)),
                    data_type: DataType::Int64,
                };
                func(ScalarFunc::Rpad, vec![cut, width, zero], DataType::Binary)
            }
        }
    };
    Some(Ok(bytes.with_collation(
        quiver_collation::Collation::binary(),
        quiver_plan::Coercibility::Implicit,
    )))
}

fn typed_string(ts: &ast::TypedString) -> Result<Expr> {
    let s = match &ts.value.value {
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
        other => return Err(QuiverError::not_supported(format!("the literal {other}"))),
    };
    if let Some(b) = binary_string(&Expr::lit(ScalarValue::Utf8(s.clone())), &ts.data_type) {
        return b;
    }
    let incorrect =
        |kind: &str| QuiverError::new(1525, "HY000", format!("Incorrect {kind} value: '{s}'"));
    match &ts.data_type {
        ast::DataType::Date => {
            let d = parse_date(&s)
                .filter(|_| !s.trim().contains([' ', 'T']))
                .ok_or_else(|| incorrect("DATE"))?;
            Ok(Expr::lit(ScalarValue::Date(d)))
        }
        // DATETIME with as many fraction digits as the literal writes.
        ast::DataType::Timestamp(..) | ast::DataType::Datetime(_) => {
            let t = parse_datetime(&s).ok_or_else(|| incorrect("DATETIME"))?;
            let fsp = quiver_common::types::literal_fsp(&s);
            Ok(Expr::Literal(
                ScalarValue::DateTime(t, fsp),
                datetime_type(fsp),
            ))
        }
        // TIME with as many fraction digits as the literal writes.
        ast::DataType::Time(None, ast::TimezoneInfo::None) => {
            use quiver_common::types::{parse_time, time_literal_fsp, time_type, TimeRead};
            let TimeRead::Exact(t) = parse_time(&s) else {
                return Err(incorrect("TIME"));
            };
            let fsp = time_literal_fsp(&s);
            Ok(Expr::Literal(ScalarValue::Time(t, fsp), time_type(fsp)))
        }
        other => Ok(cast(
            Expr::lit(ScalarValue::Utf8(s.clone())),
            &sql_type(other)?,
        )),
    }
}

/// A datetime cast to DECIMAL or DOUBLE goes through its number
/// (YYYYMMDDhhmmss.f, rounded to the scale as a decimal is); to an integer
/// it converts directly, cutting the fraction (MariaDB's CAST AS SIGNED).
fn datetime_as_number(x: Expr, to: &DataType) -> Expr {
    let numeric_target = quiver_common::types::is_decimal(to) || to.is_floating();
    if numeric_target && quiver_common::types::is_datetime(&x.data_type()) {
        coerce::datetime_number(x, true)
    } else {
        x
    }
}

/// How MariaDB names an expression in a message (an item's name): a
/// string literal by its text, a column by its name.
fn item_name(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        },
        ast::Expr::Identifier(i) => i.value.clone(),
        ast::Expr::CompoundIdentifier(parts) => {
            parts.last().map_or_else(String::new, |i| i.value.clone())
        }
        ast::Expr::Nested(inner) => item_name(inner),
        other => other.to_string(),
    }
}

/// `CAST(x AS CHAR(n))` keeps the first n characters, as MySQL does.
fn char_length_limit(x: Expr, target: &ast::DataType) -> Expr {
    use ast::{CharacterLength, DataType as T};
    let n = match target {
        T::Char(Some(CharacterLength::IntegerLength { length, .. }))
        | T::Character(Some(CharacterLength::IntegerLength { length, .. }))
        | T::Varchar(Some(CharacterLength::IntegerLength { length, .. }))
        | T::Nvarchar(Some(CharacterLength::IntegerLength { length, .. })) => *length,
        _ => return x,
    };
    let data_type = x.data_type();
    Expr::Function {
        func: quiver_plan::ScalarFunc::Left,
        args: vec![x, Expr::lit(ScalarValue::Int64(n as i64))],
        data_type,
    }
}

/// An ESCAPE operand as the literal it must be. A COLLATE or an introducer
/// does not matter to it (the escape character is matched exactly), but a
/// latin1 / ascii one that is not ASCII is refused as MariaDB refuses it
/// (1210: it is not one byte in the UTF-8 text LIKE compares).
fn escape_literal(e: Expr) -> Result<Expr> {
    match e {
        Expr::Collate {
            expr, collation, ..
        } if matches!(*expr, Expr::Literal(..)) => match *expr {
            Expr::Literal(ScalarValue::Utf8(s), _)
                if !s.is_ascii()
                    && quiver_collation::text::is_single_byte_text(collation.charset()) =>
            {
                Err(QuiverError::new(
                    1210,
                    "HY000",
                    "Incorrect arguments to ESCAPE",
                ))
            }
            literal => Ok(literal),
        },
        e => Ok(e),
    }
}

/// `name()` for MySQL's reserved words that call a function without
/// parentheses (`UTC_DATE`, `CURRENT_USER`, ...); None for any other name.
fn call_without_parentheses(name: &str) -> Option<ast::Expr> {
    const CALLS: &[&str] = &[
        "utc_date",
        "utc_time",
        "utc_timestamp",
        "current_user",
        "current_role",
        "localtime",
        "localtimestamp",
        "current_date",
        "current_time",
        "current_timestamp",
    ];
    if !CALLS.iter().any(|c| c.eq_ignore_ascii_case(name)) {
        return None;
    }
    let statement = crate::parse_sql(&format!("SELECT {name}()")).ok()?.pop()?;
    let ast::Statement::Query(q) = statement else {
        return None;
    };
    let ast::SetExpr::Select(select) = *q.body else {
        return None;
    };
    match select.projection.into_iter().next()? {
        ast::SelectItem::UnnamedExpr(e) => Some(e),
        _ => None,
    }
}
