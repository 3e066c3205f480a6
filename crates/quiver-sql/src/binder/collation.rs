//! Collations of string expressions, as MySQL derives them: every string has
//! a collation and a coercibility; where two meet (a comparison, LIKE, IN,
//! CONCAT, CASE) the lower coercibility wins, equal ones must agree (or one
//! side be a `_bin` collation of the same charset), else error 1267.
//!
//! The binder hands every operator that compares strings operands under one
//! collation: a `Collate` node on top of each non-default-collated operand
//! (see `Expr::collation`), so the executor never derives anything.

use arrow_schema::DataType;
use quiver_collation::{Charset, Collation};
use quiver_common::types::is_string;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{default_collation, BinaryOp, Coercibility, Expr, ScalarFunc};

use super::coerce;

/// A string expression's collation and coercibility.
pub(crate) type Derivation = (Collation, Coercibility);

/// The derivation of `e`, from its own structure.
pub(crate) fn derivation(e: &Expr) -> Derivation {
    let d = default_collation();
    match e {
        Expr::Collate {
            collation,
            coercibility,
            ..
        } => (*collation, *coercibility),
        Expr::Column(..) => (d, Coercibility::Implicit),
        Expr::Literal(ScalarValue::Null, _) => (d, Coercibility::Ignorable),
        Expr::Literal(ScalarValue::Utf8(_), _) => (d, Coercibility::Coercible),
        Expr::Literal(..) => (d, Coercibility::Numeric),
        Expr::Cast { expr, to } if is_string(to) => {
            if is_string(&expr.data_type()) {
                derivation(expr)
            } else {
                (d, Coercibility::Implicit)
            }
        }
        Expr::Function {
            func:
                ScalarFunc::Concat
                | ScalarFunc::Coalesce
                | ScalarFunc::NullIf
                | ScalarFunc::Substring
                | ScalarFunc::Upper
                | ScalarFunc::Lower
                | ScalarFunc::Trim
                | ScalarFunc::LTrim
                | ScalarFunc::RTrim,
            args,
            data_type,
        } if is_string(data_type) => aggregate(args.iter().filter(|a| is_string(&a.data_type())))
            .unwrap_or((d, Coercibility::None)),
        Expr::Case {
            branches,
            else_expr,
            data_type,
        } if is_string(data_type) => aggregate(
            branches
                .iter()
                .map(|(_, v)| v)
                .chain(else_expr.as_deref())
                .filter(|a| is_string(&a.data_type())),
        )
        .unwrap_or((d, Coercibility::None)),
        _ if is_string(&e.data_type()) => (d, Coercibility::Implicit),
        _ => (d, Coercibility::Numeric),
    }
}

/// The collation several string operands combine to (CONCAT, CASE), or
/// `None` for an illegal mix (coercibility NONE: usable, not comparable).
fn aggregate<'a>(mut operands: impl Iterator<Item = &'a Expr>) -> Option<Derivation> {
    let first = derivation(operands.next()?);
    operands.try_fold(first, |acc, e| resolve(acc, derivation(e)).ok())
}

/// MySQL's rule for two operands' collations.
pub(crate) fn resolve(a: Derivation, b: Derivation) -> std::result::Result<Derivation, ()> {
    if a.0 == b.0 {
        return Ok((a.0, a.1.min(b.1)));
    }
    if a.1 != b.1 {
        return Ok(if a.1 < b.1 { a } else { b });
    }
    if a.1 == Coercibility::Explicit || a.1 == Coercibility::None {
        return Err(());
    }
    let (ca, cb) = (a.0.charset(), b.0.charset());
    if ca == cb {
        // Same charset: a `_bin` collation wins over the others.
        return match (a.0.is_binary_eq(), b.0.is_binary_eq()) {
            (true, false) => Ok(a),
            (false, true) => Ok(b),
            _ => Err(()),
        };
    }
    // utf8mb4 holds every utf8mb3 string: the superset side wins.
    match (ca, cb) {
        (Charset::Utf8mb4, Charset::Utf8mb3) => Ok(a),
        (Charset::Utf8mb3, Charset::Utf8mb4) => Ok(b),
        _ => Err(()),
    }
}

fn coercibility_name(c: Coercibility) -> &'static str {
    match c {
        Coercibility::Explicit => "EXPLICIT",
        Coercibility::None => "NONE",
        Coercibility::Implicit => "IMPLICIT",
        Coercibility::SysConst => "SYSCONST",
        Coercibility::Coercible => "COERCIBLE",
        Coercibility::Numeric => "NUMERIC",
        Coercibility::Ignorable => "IGNORABLE",
    }
}

/// MySQL's error 1267.
fn illegal_mix(a: Derivation, b: Derivation, op: &str) -> QuiverError {
    QuiverError::new(
        1267,
        "HY000",
        format!(
            "Illegal mix of collations ({},{}) and ({},{}) for operation '{op}'",
            a.0,
            coercibility_name(a.1),
            b.0,
            coercibility_name(b.1)
        ),
    )
}

/// The collation string operands `exprs` are compared under (error 1267 if
/// they cannot be), each put under it.
pub(crate) fn collate_operands(exprs: Vec<Expr>, op: &str) -> Result<Vec<Expr>> {
    let strings: Vec<&Expr> = exprs.iter().filter(|e| is_string(&e.data_type())).collect();
    let Some(first) = strings.first() else {
        return Ok(exprs);
    };
    let mut acc = derivation(first);
    for e in &strings[1..] {
        let d = derivation(e);
        acc = resolve(acc, d).map_err(|()| illegal_mix(acc, d, op))?;
    }
    if acc.1 == Coercibility::None {
        let d = derivation(first);
        return Err(illegal_mix(d, d, op));
    }
    if acc.0 == default_collation() && strings.iter().all(|e| !matches!(e, Expr::Collate { .. })) {
        return Ok(exprs);
    }
    Ok(exprs
        .into_iter()
        .map(|e| {
            if is_string(&e.data_type()) {
                e.with_collation(acc.0, acc.1)
            } else {
                e
            }
        })
        .collect())
}

/// A string expression with its derived collation on top, for the
/// operators that take one value's collation (sort, group and join keys,
/// MIN/MAX, DISTINCT); anything else unchanged.
pub(crate) fn collated(e: Expr) -> Expr {
    if !is_string(&e.data_type()) || matches!(e, Expr::Collate { .. }) {
        return e;
    }
    let (c, co) = derivation(&e);
    e.with_collation(c, co)
}

/// The collation a result column of `e` carries, if not the default.
pub(crate) fn column_collation(e: &Expr) -> Option<Collation> {
    if !is_string(&e.data_type()) {
        return None;
    }
    let (c, _) = derivation(e);
    (c != default_collation()).then_some(c)
}

/// `l op r` for a comparison: strings under their resolved collation.
pub(crate) fn compare(op: BinaryOp, l: Expr, r: Expr) -> Result<Expr> {
    if is_string(&l.data_type()) && is_string(&r.data_type()) {
        let mut v = collate_operands(vec![l, r], op.symbol())?;
        let r = v.pop().expect("two operands");
        let l = v.pop().expect("two operands");
        return Ok(coerce::compare(op, l, r));
    }
    Ok(coerce::compare(op, l, r))
}

/// A charset name (`utf8mb4`, `utf8mb3`, `utf8`) and its default collation;
/// other charsets are not supported yet (strings are stored as UTF-8).
pub fn charset_default(name: &str) -> Result<Collation> {
    let name = name
        .trim_matches(|c| c == '`' || c == '\'' || c == '"')
        .to_lowercase();
    let name = if name == "utf8" {
        "utf8mb3".to_string()
    } else {
        name
    };
    match Collation::default_for_charset(&name) {
        Some(c) if matches!(c.charset(), Charset::Utf8mb4 | Charset::Utf8mb3) => Ok(c),
        Some(_) => Err(QuiverError::not_supported(format!(
            "character set '{name}' (only utf8mb4 and utf8mb3 strings so far)"
        ))),
        None => Err(QuiverError::new(
            1115,
            "42000",
            format!("Unknown character set: '{name}'"),
        )),
    }
}

/// A collation by name for a string column or connection: error 1273 when
/// unknown; only the utf8mb4 / utf8mb3 ones so far.
pub fn collation_by_name(name: &str) -> Result<Collation> {
    let name = name.trim_matches(|c| c == '`' || c == '\'' || c == '"');
    let c = Collation::from_name(name)
        .ok_or_else(|| QuiverError::new(1273, "HY000", format!("Unknown collation: '{name}'")))?;
    if !matches!(c.charset(), Charset::Utf8mb4 | Charset::Utf8mb3) {
        return Err(QuiverError::not_supported(format!(
            "collation '{c}' (only utf8mb4 and utf8mb3 strings so far)"
        )));
    }
    Ok(c)
}

/// `expr COLLATE name`: error 1273 for an unknown collation, 1253 for one
/// of another charset than utf8mb4/utf8mb3 strings can take.
pub(crate) fn explicit(e: Expr, name: &str) -> Result<Expr> {
    let c = Collation::from_name(name)
        .ok_or_else(|| QuiverError::new(1273, "HY000", format!("Unknown collation: '{name}'")))?;
    // Strings are utf8mb4 unless they come from a utf8mb3 column.
    let charset = match derivation(&e).0.charset() {
        Charset::Utf8mb3 if is_string(&e.data_type()) => Charset::Utf8mb3,
        _ => Charset::Utf8mb4,
    };
    if c.charset() != charset {
        return Err(QuiverError::new(
            1253,
            "42000",
            format!(
                "COLLATION '{c}' is not valid for CHARACTER SET '{}'",
                charset.name()
            ),
        ));
    }
    let e = if e.data_type() == DataType::Utf8 {
        e
    } else {
        coerce::cast(e, &DataType::Utf8)
    };
    Ok(e.with_collation(c, Coercibility::Explicit))
}
