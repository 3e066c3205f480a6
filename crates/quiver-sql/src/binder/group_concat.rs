//! GROUP_CONCAT: its arguments made strings as CONCAT makes them (one
//! charset and collation for the result, binary when a binary argument
//! wins), the keys DISTINCT and ORDER BY compare, the separator, and
//! `group_concat_max_len` read from the session when the call is bound.

use arrow_schema::DataType;
use quiver_collation::{Charset, Collation};
use quiver_common::types::is_string;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{AggExpr, AggFunc, Expr, GroupConcat, ScalarFunc, SortExpr};
use sqlparser::ast;

use super::coerce::string_arg;
use super::{collation, Binder, Ctx};
use crate::types::blob_type;

/// MariaDB's default `group_concat_max_len`.
pub(crate) const DEFAULT_MAX_LEN: u64 = 1_048_576;

/// Longest result MariaDB declares VARCHAR, in characters (longer: a BLOB
/// or TEXT type by its bytes).
const MAX_VARCHAR_CHARS: u64 = 512;

/// JSON_ARRAYAGG and JSON_OBJECTAGG, which MariaDB builds on GROUP_CONCAT:
/// each row's value as JSON (JSON_ARRAY's conversion), joined by `,` (an
/// array) or `, ` (an object's `"key":value` members), the cut to
/// `group_concat_max_len` then wrapped in `[` `]` or `{` `}`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum JsonAgg {
    Array,
    Object,
}

impl Binder<'_> {
    pub(crate) fn json_arrayagg(&mut self, f: &ast::Function, ctx: &Ctx) -> Result<Expr> {
        self.group_concat(f, ctx, Some(JsonAgg::Array))
    }

    pub(crate) fn json_objectagg(&mut self, f: &ast::Function, ctx: &Ctx) -> Result<Expr> {
        self.group_concat(f, ctx, Some(JsonAgg::Object))
    }

    pub(crate) fn group_concat(
        &mut self,
        f: &ast::Function,
        ctx: &Ctx,
        json: Option<JsonAgg>,
    ) -> Result<Expr> {
        let display = f.to_string();
        if f.over.is_some() {
            let name = match json {
                None => "GROUP_CONCAT",
                Some(JsonAgg::Array) => "JSON_ARRAYAGG",
                Some(JsonAgg::Object) => "JSON_OBJECTAGG",
            };
            return Err(QuiverError::not_supported(format!(
                "{name}() aggregate as window function"
            )));
        }
        let syntax = || {
            QuiverError::syntax_msg(format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{display}'"
            ))
        };
        let ast::FunctionArguments::List(list) = &f.args else {
            return Err(syntax());
        };
        if f.filter.is_some()
            || !f.within_group.is_empty()
            || f.null_treatment.is_some()
            || f.uses_odbc_syntax
            || !matches!(f.parameters, ast::FunctionArguments::None)
        {
            return Err(syntax());
        }
        let inner = ctx.aggregate_arguments()?;
        let distinct = matches!(
            list.duplicate_treatment,
            Some(ast::DuplicateTreatment::Distinct)
        );
        let mut typed = Vec::with_capacity(list.args.len());
        for a in &list.args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                    typed.push(self.expr(e, &inner)?)
                }
                _ => return Err(syntax()),
            }
        }
        if typed.is_empty() {
            return Err(syntax());
        }
        let json_elements = match json {
            None => None,
            Some(kind) => {
                let (want, fname) = match kind {
                    JsonAgg::Array => (1, "JSON_ARRAYAGG"),
                    JsonAgg::Object => (2, "JSON_OBJECTAGG"),
                };
                // MariaDB's grammar spells JSON_OBJECTAGG's two arguments.
                if typed.len() != want {
                    return Err(match kind {
                        JsonAgg::Array => QuiverError::wrong_arguments(fname),
                        JsonAgg::Object => syntax(),
                    });
                }
                let separator_given = list
                    .clauses
                    .iter()
                    .any(|c| matches!(c, ast::FunctionArgumentClause::Separator(_)));
                if separator_given
                    || (kind == JsonAgg::Object && (distinct || !list.clauses.is_empty()))
                {
                    return Err(syntax());
                }
                Some(self.json_agg_elements(kind, &typed)?)
            }
        };
        let mut order = &[][..];
        let mut separator = None;
        let mut limit = None;
        for c in &list.clauses {
            match c {
                ast::FunctionArgumentClause::OrderBy(keys) => order = keys,
                ast::FunctionArgumentClause::Separator(v) => separator = Some(&v.value),
                // `LIMIT (offset, count)`, as the parser rewrites MySQL's forms.
                ast::FunctionArgumentClause::Limit(ast::Expr::Tuple(v)) => {
                    let n = |e: &ast::Expr| match e {
                        ast::Expr::Value(v) => match &v.value {
                            ast::Value::Number(n, _) => n.parse::<u64>().ok(),
                            _ => None,
                        },
                        _ => None,
                    };
                    limit = match v.as_slice() {
                        [o, c] => Some((n(o).ok_or_else(syntax)?, n(c).ok_or_else(syntax)?)),
                        _ => return Err(syntax()),
                    };
                }
                _ => return Err(syntax()),
            }
        }
        let (args, data_type, result) =
            concat_args(json_elements.clone().unwrap_or_else(|| typed.clone()))?;
        let mut order_by = Vec::with_capacity(order.len());
        for o in order {
            let asc = super::order::order_asc(o)?;
            order_by.push(SortExpr {
                expr: collation::collated(self.order_key(&o.expr, &typed, &inner)?),
                asc,
                nulls_first: asc,
            });
        }
        // Strings are told apart under their own collation (the result's
        // when they were converted to its charset), anything else by its
        // value (9 before 10).
        let distinct_keys = match distinct {
            true if json.is_some() => typed
                .into_iter()
                .map(|t| match is_string(&t.data_type()) {
                    true => collation::collated(t),
                    false => t,
                })
                .collect(),
            true => typed
                .into_iter()
                .zip(&args)
                .map(|(t, a)| match is_string(&t.data_type()) {
                    true if collation::charset_of(&t) == result.charset() => collation::collated(t),
                    true => collation::collated(a.clone()),
                    false => t,
                })
                .collect(),
            false => vec![],
        };
        let separator = match separator {
            None if json == Some(JsonAgg::Object) => b", ".to_vec(),
            None => b",".to_vec(),
            Some(v) => self
                .separator_bytes(v, result.charset())
                .ok_or_else(syntax)??,
        };
        let max_len = match self.vars.system.get("group_concat_max_len") {
            Some(v) => v.as_i64().map_or(DEFAULT_MAX_LEN, |n| n.max(0) as u64),
            None => DEFAULT_MAX_LEN,
        };
        let agg = AggExpr {
            func: AggFunc::GroupConcat,
            arg: None,
            distinct,
            data_type,
            concat: Some(Box::new(GroupConcat {
                args,
                distinct_keys,
                order_by,
                separator,
                max_len,
                collation: result,
                limit,
                wrap: json.map(|k| match k {
                    JsonAgg::Array => (b"[".to_vec(), b"]".to_vec()),
                    JsonAgg::Object => (b"{".to_vec(), b"}".to_vec()),
                }),
            })),
        };
        Ok(self.register_agg(agg, None, display))
    }

    /// A row's JSON text for JSON_ARRAYAGG (its value as JSON_ARRAY
    /// converts it: `JSON_EXTRACT(JSON_ARRAY(x), '$[0]')`), or
    /// JSON_OBJECTAGG's `"key":value` (NULL for a NULL key: no member).
    fn json_agg_elements(&mut self, kind: JsonAgg, typed: &[Expr]) -> Result<Vec<Expr>> {
        let call = |b: &Self, name: &str, args: Vec<Expr>| -> Result<Expr> {
            let f = b
                .catalog
                .functions()
                .scalar(name)
                .ok_or_else(|| QuiverError::internal(format!("{name} is not registered")))?;
            super::registry::call(f, name, args)
        };
        let value = |b: &Self, x: Expr| -> Result<Expr> {
            let array = call(b, "json_array", vec![x])?;
            call(
                b,
                "json_extract",
                vec![array, Expr::lit(ScalarValue::Utf8("$[0]".into()))],
            )
        };
        Ok(match kind {
            JsonAgg::Array => vec![value(self, typed[0].clone())?],
            JsonAgg::Object => {
                let key = call(
                    self,
                    "json_quote",
                    vec![typed[0].clone().cast(&DataType::Utf8)],
                )?;
                vec![
                    key,
                    Expr::lit(ScalarValue::Utf8(":".into())),
                    value(self, typed[1].clone())?,
                ]
            }
        })
    }

    /// A key of GROUP_CONCAT's ORDER BY: an integer literal is an
    /// argument's position (`ORDER BY 2` the second; 1054 for none),
    /// anything else an expression.
    fn order_key(&mut self, e: &ast::Expr, args: &[Expr], ctx: &Ctx) -> Result<Expr> {
        match position(e) {
            Some(k) => usize::try_from(k)
                .ok()
                .and_then(|k| args.get(k.checked_sub(1)?))
                .cloned()
                .ok_or_else(|| QuiverError::unknown_column(&k.to_string(), "ORDER BY")),
            None => self.expr(e, ctx),
        }
    }

    /// The bytes of SEPARATOR `v` in the result's charset `charset`: a
    /// string literal (in the connection's charset) or a hex one (bytes).
    /// None for any other value (a syntax error); 1300 for hex bytes that
    /// are not text of a text result's charset.
    fn separator_bytes(&self, v: &ast::Value, charset: Charset) -> Option<Result<Vec<u8>>> {
        let connection = self.vars.collation_connection.charset();
        match v {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                Some(Ok(match charset {
                    // Text is UTF-8 whatever its charset.
                    Charset::Binary => collation::text_bytes(connection, s),
                    _ => s.as_bytes().to_vec(),
                }))
            }
            ast::Value::HexStringLiteral(h) => {
                let bytes = hex_bytes(h)?;
                match charset {
                    Charset::Binary => Some(Ok(bytes)),
                    _ => Some(collation::decode_exact(charset, &bytes).map(String::into_bytes)),
                }
            }
            _ => None,
        }
    }
}

/// The value of an integer literal (signed), as MySQL reads a position.
fn position(e: &ast::Expr) -> Option<i64> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => position(expr)?.checked_neg(),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Plus,
            expr,
        } => position(expr),
        _ => None,
    }
}

/// `X'..'`'s digits as bytes (an odd count has a leading 0, as MySQL).
fn hex_bytes(h: &str) -> Option<Vec<u8>> {
    let padded = if h.len() % 2 == 1 {
        format!("0{h}")
    } else {
        h.to_string()
    };
    (0..padded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(padded.get(i..i + 2)?, 16).ok())
        .collect()
}

/// GROUP_CONCAT's arguments as CONCAT makes them: strings of one charset
/// (numbers and dates as their text), with the result's type and collation.
fn concat_args(typed: Vec<Expr>) -> Result<(Vec<Expr>, DataType, Collation)> {
    let strings: Vec<Expr> = typed.into_iter().map(string_arg).collect();
    // A NULL argument skips every row: nothing to convert. The result is
    // the other arguments' type, binary for NULL alone (MariaDB's NULL).
    let is_null = |a: &Expr| matches!(a, Expr::Literal(ScalarValue::Null, _));
    if strings.iter().any(is_null) {
        let others: Vec<Expr> = strings.iter().filter(|a| !is_null(a)).cloned().collect();
        let (data_type, result) = match others.is_empty() {
            true => (DataType::Binary, Collation::binary()),
            false => {
                let (_, t, c) = concat_args(others)?;
                (t, c)
            }
        };
        return Ok((strings, data_type, result));
    }
    let concat = super::functions::scalar("concat", strings)?;
    let concat = collation::string_function_charset(concat)?;
    let (result, _) = super::derivation::derivation(&concat);
    match concat {
        Expr::Function {
            func: ScalarFunc::Concat,
            args,
            data_type,
        } => Ok((args, data_type, result)),
        _ => Err(QuiverError::internal("GROUP_CONCAT arguments")),
    }
}

/// The length in bytes MariaDB gives a text GROUP_CONCAT
/// (`group_concat_max_len` characters of its charset); None for bytes.
pub(crate) fn item_bytes(g: &GroupConcat) -> Option<u32> {
    let charset = g.collation.charset();
    if charset == Charset::Binary {
        return None;
    }
    let bytes = g.max_len.saturating_mul(charset.max_char_len() as u64);
    Some(u32::try_from(bytes).unwrap_or(u32::MAX))
}

/// The type MariaDB declares GROUP_CONCAT's result: VARCHAR (VARBINARY) of
/// `group_concat_max_len` characters up to 512, else the TEXT (BLOB) type
/// that holds that many characters' bytes.
pub(crate) fn declared_type(g: &GroupConcat) -> String {
    let charset = g.collation.charset();
    let chars = g.max_len;
    let binary = charset == Charset::Binary;
    if chars <= MAX_VARCHAR_CHARS {
        return match binary {
            true => format!("varbinary({chars})"),
            false => format!("varchar({chars})"),
        };
    }
    let bytes = chars.saturating_mul(charset.max_char_len() as u64);
    let blob = blob_type(bytes.max(256));
    match binary {
        true => blob.to_string(),
        false => blob.replace("blob", "text"),
    }
}
