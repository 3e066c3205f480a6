//! Collations of string expressions, as MySQL derives them: every string has
//! a collation and a coercibility; where two meet (a comparison, LIKE, IN,
//! CONCAT, CASE) the lower coercibility wins, equal ones must agree (or one
//! side be a `_bin` collation of the same charset), else error 1267.
//!
//! The binder hands every operator that compares strings operands under one
//! collation: a `Collate` node on top of each non-default-collated operand
//! (see `Expr::collation`), so the executor never derives anything. The
//! derivation of one expression, and of several combined, is derivation.rs.

use arrow_schema::DataType;
use quiver_collation::{text, Charset, Collation};
use quiver_common::types::{is_binary, is_string};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{default_collation, BinaryOp, Coercibility, Expr};

use super::coerce::{self, to_charset};
use super::derivation::{
    aggregate, combines_operands, derivation, resolve_sides, side, Derivation, Side,
};

/// A string function of binary and text arguments (CONCAT(u, X'41'),
/// LEFT(b, 1)): its string arguments and result in the charset their
/// collations combine to, as MariaDB: bytes when binary wins (text becomes its
/// bytes), else text (bytes read in the winner's charset; error 1300 for a
/// constant that is not text there). Numbers turned into strings take no part.
pub(crate) fn string_function_charset(e: Expr) -> Result<Expr> {
    let Expr::Function {
        func,
        args,
        data_type,
    } = e
    else {
        return Ok(e);
    };
    let mixed = args.iter().any(|a| is_binary(&a.data_type()))
        && args
            .iter()
            .any(|a| !is_binary(&a.data_type()) && is_string(&a.data_type()))
        || is_binary(&data_type) != args.iter().any(|a| is_binary(&a.data_type()));
    if !combines_operands(func) || !is_string(&data_type) || !mixed {
        return Ok(Expr::Function {
            func,
            args,
            data_type,
        });
    }
    let number_text =
        |a: &Expr| matches!(a, Expr::Cast { expr, .. } if !is_string(&expr.data_type()));
    let winner = aggregate(
        args.iter()
            .filter(|a| is_string(&a.data_type()) && !number_text(a)),
    )
    .map(|(c, _)| c.charset())
    .unwrap_or(Charset::Binary);
    let args = args
        .into_iter()
        .map(|a| match is_string(&a.data_type()) {
            true => convert(a, winner),
            false => Ok(a),
        })
        .collect::<Result<Vec<_>>>()?;
    let data_type = if winner == Charset::Binary {
        DataType::Binary
    } else {
        DataType::Utf8
    };
    Ok(Expr::Function {
        func,
        args,
        data_type,
    })
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

/// The error for operands whose collations do not combine: MySQL's 1267
/// naming the two that clash, 1270 naming all three of three operands
/// (`x BETWEEN a AND b`, `x IN (a, b)`), 1271 for more. A one-value IN is
/// `=`, as MariaDB names it.
fn illegal_mix_of(strings: &[&Expr], a: Derivation, b: Derivation, op: &str) -> QuiverError {
    let all: Vec<Derivation> = strings.iter().map(|e| derivation(e)).collect();
    illegal_mix_among(&all, a, b, op)
}

/// [`illegal_mix_of`] from the operands' derivations.
fn illegal_mix_among(all: &[Derivation], a: Derivation, b: Derivation, op: &str) -> QuiverError {
    match all.len() {
        0..=2 => illegal_mix(a, b, if op == "in" { "=" } else { op }),
        3 => {
            let d: Vec<String> = all
                .iter()
                .map(|(c, k)| format!("({c},{})", coercibility_name(*k)))
                .collect();
            QuiverError::new(
                1270,
                "HY000",
                format!(
                    "Illegal mix of collations {} for operation '{op}'",
                    d.join(", ")
                ),
            )
        }
        _ => QuiverError::new(
            1271,
            "HY000",
            format!("Illegal mix of collations for operation '{op}'"),
        ),
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
/// they cannot be), each put under it. An operand of another charset than
/// a latin1 / ascii result is converted to it: a literal must convert
/// without loss (else 1267, as MariaDB), anything else as
/// `CONVERT(.. USING cs)` does.
pub(crate) fn collate_operands(exprs: Vec<Expr>, op: &str) -> Result<Vec<Expr>> {
    let strings: Vec<&Expr> = exprs.iter().filter(|e| is_string(&e.data_type())).collect();
    let Some(first) = strings.first() else {
        return Ok(exprs);
    };
    let all: Vec<Derivation> = strings.iter().map(|e| derivation(e)).collect();
    let mut acc = side(first);
    for e in &strings[1..] {
        let d = side(e);
        acc = match resolve_sides(acc, d) {
            Ok(s) if s.derivation.1 != Coercibility::None => s,
            _ => return Err(illegal_mix_of(&strings, acc.derivation, d.derivation, op)),
        };
    }
    let acc = acc.derivation;
    let charset = acc.0.charset();
    let same_kind = |e: &&Expr| is_binary(&e.data_type()) == (charset == Charset::Binary);
    if acc.0 == default_collation()
        && strings
            .iter()
            .all(|e| !matches!(e, Expr::Collate { .. }) && same_kind(e))
    {
        return Ok(exprs);
    }
    let first = derivation(first);
    exprs
        .into_iter()
        .map(|e| {
            if !is_string(&e.data_type()) {
                return Ok(e);
            }
            let d = derivation(&e);
            let e = if charset == Charset::Binary || is_binary(&e.data_type()) {
                // Bytes meeting text: the text as its bytes when binary won,
                // else the bytes read as the winner's text.
                convert(e, charset)?
            } else if d.0.charset() != charset && text::restricts(charset) {
                convert_operand(e, charset).map_err(|()| illegal_mix_among(&all, first, d, op))?
            } else {
                e
            };
            Ok(e.with_collation(acc.0, acc.1))
        })
        .collect()
}

/// An equi-join key pair (outer `l`, inner `r`) put under the collation
/// `l = r` compares in (error 1267 if none).
pub(crate) fn collate_key_pair(l: Expr, r: Expr) -> Result<(Expr, Expr)> {
    let mut v = collate_operands(vec![l, r], "=")?;
    let r = v.pop().expect("two operands");
    let l = v.pop().expect("two operands");
    Ok((l, r))
}

/// The collation of a UNION column from its inputs' select items, as
/// [`collate_operands`] resolves them, with MariaDB's errors: 1267 for two
/// explicit collations or charsets that do not convert; two implicit
/// collations of one charset leave the column without one (coercibility
/// NONE), which a later explicit collation may still settle, else 1271.
pub(crate) fn union_collation(operands: &[Expr]) -> Result<UnionCollation> {
    let Some(first) = operands.first() else {
        return Ok((None, None));
    };
    let _ = first;
    let acc = match result_side(operands.iter()) {
        Ok(Some(s)) => s,
        Ok(None) => {
            return Err(QuiverError::new(
                1271,
                "HY000",
                "Illegal mix of collations for operation 'UNION'",
            ))
        }
        Err((a, b)) => return Err(illegal_mix(a, b, "UNION")),
    };
    let c = acc.derivation.0;
    if text::restricts(c.charset()) {
        for e in operands {
            if charset_of(e) != c.charset() {
                convert_operand(e.clone(), c.charset())
                    .map_err(|()| illegal_mix(acc.derivation, derivation(e), "UNION"))?;
            }
        }
    }
    let k = acc.derivation.1;
    Ok((
        (c != default_collation()).then_some(c),
        (k != Coercibility::Implicit).then_some(k),
    ))
}

/// MariaDB's aggregation of a result's collation (a union column, CONCAT):
/// as [`collate_operands`] resolves them, except that two collations of one
/// charset at one coercibility that do not combine (general_ci and
/// unicode_ci columns) leave it without one (`Ok(None)`, coercibility NONE),
/// which a later explicit collation may settle. Two explicit ones, two
/// `_bin` ones or charsets that do not convert are an error (`Err` with the
/// pair that clashed).
fn result_side<'e>(
    operands: impl Iterator<Item = &'e Expr>,
) -> std::result::Result<Option<Side>, (Derivation, Derivation)> {
    let mut acc: Option<Side> = None;
    for e in operands {
        let d = side(e);
        let Some(a) = acc else {
            acc = Some(d);
            continue;
        };
        acc = Some(match resolve_sides(a, d) {
            Ok(s) => s,
            Err(()) if a.derivation.1 == Coercibility::None => a,
            Err(())
                if a.derivation.0.charset() == d.derivation.0.charset()
                    && a.derivation.1 == d.derivation.1
                    && a.derivation.1 != Coercibility::Explicit
                    && !(a.derivation.0.is_bin() && d.derivation.0.is_bin()) =>
            {
                Side {
                    derivation: (a.derivation.0, Coercibility::None),
                    ascii: a.ascii && d.ascii,
                }
            }
            Err(()) => return Err((a.derivation, d.derivation)),
        });
    }
    Ok(acc.filter(|s| s.derivation.1 != Coercibility::None))
}

/// The values of IF / IFNULL / COALESCE / CASE must have a result
/// collation, or lack one only as CONCAT may (see [`result_side`]): two
/// explicit or two `_bin` collations are 1267 (1270 for three values).
pub(crate) fn check_result_collations(values: &[&Expr], op: &str) -> Result<()> {
    let strings: Vec<&Expr> = values
        .iter()
        .copied()
        .filter(|e| is_string(&e.data_type()))
        .collect();
    match result_side(strings.iter().copied()) {
        Err((a, b)) => Err(illegal_mix_of(&strings, a, b, op)),
        Ok(_) => Ok(()),
    }
}

/// Whether string operands that [`collate_operands`] refused leave a
/// result without a collation (CONCAT(g, u): shown, sorted and grouped, not
/// compared) rather than an error, as MariaDB's functions that build a
/// string without comparing allow.
pub(crate) fn leaves_no_collation(args: &[Expr]) -> bool {
    let strings = args.iter().filter(|e| is_string(&e.data_type()));
    matches!(result_side(strings), Ok(None))
}

/// A union column's collation when not the default, and its coercibility
/// when not IMPLICIT.
pub(crate) type UnionCollation = (Option<Collation>, Option<Coercibility>);

/// `e` (text of another charset) in `charset`: a literal as it is when the
/// charset holds it (`Err` when it does not), else `CONVERT(e USING charset)`.
fn convert_operand(e: Expr, charset: Charset) -> std::result::Result<Expr, ()> {
    let literal = match &e {
        Expr::Literal(ScalarValue::Utf8(s), _) => Some(s),
        Expr::Collate { expr, .. } => match expr.as_ref() {
            Expr::Literal(ScalarValue::Utf8(s), _) => Some(s),
            _ => None,
        },
        _ => None,
    };
    match literal {
        Some(s) if text::first_unrepresentable(charset, s.as_bytes()).is_some() => Err(()),
        Some(_) => Ok(e),
        // MariaDB converts a COERCIBLE operand to another charset only when
        // it is a constant or all ASCII: CONCAT(CONV(id, 10, 16), latin1
        // column) is 1267, CONCAT(CONV(255, 10, 16), ...) is not.
        None if !e.columns().is_empty()
            && derivation(&e).1 == Coercibility::Coercible
            && !side(&e).ascii =>
        {
            Err(())
        }
        None => Ok(to_charset(e, charset)),
    }
}

/// `e` as an operand where strings meet under `charset`, one side binary:
/// a constant is converted now, and bytes that are not text of `charset`
/// are MariaDB's error 1300 (a column's, at run time, become `?`).
pub(crate) fn convert(e: Expr, charset: Charset) -> Result<Expr> {
    let from_binary = is_binary(&e.data_type());
    if from_binary == (charset == Charset::Binary) {
        return Ok(e);
    }
    let literal = match &e {
        Expr::Collate { expr, .. } => expr.as_ref(),
        e => e,
    };
    match literal {
        Expr::Literal(ScalarValue::Binary(b), _) => {
            Ok(Expr::lit(ScalarValue::Utf8(decode_exact(charset, b)?)))
        }
        Expr::Literal(ScalarValue::Utf8(s), _) if charset == Charset::Binary => Ok(Expr::lit(
            ScalarValue::Binary(text_bytes(charset_of(&e), s)),
        )),
        _ => Ok(to_charset(e, charset)),
    }
}

/// Bytes read as text of `charset`; MariaDB's error 1300 naming up to three
/// bytes from the first that is not a character there.
pub(crate) fn decode_exact(charset: Charset, bytes: &[u8]) -> Result<String> {
    let bad = match charset {
        Charset::Latin1 => None,
        Charset::Ascii => bytes.iter().position(|b| !b.is_ascii()),
        _ => match std::str::from_utf8(bytes) {
            Ok(s) => text::first_unrepresentable(charset, s.as_bytes()),
            Err(e) => Some(e.valid_up_to()),
        },
    };
    if let Some(at) = bad {
        let hex: String = bytes[at..bytes.len().min(at + 3)]
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect();
        return Err(QuiverError::new(
            1300,
            "HY000",
            format!("Invalid {} character string: '{hex}'", charset.name()),
        ));
    }
    if !text::is_single_byte_text(charset) {
        return Ok(String::from_utf8(bytes.to_vec()).expect("checked above"));
    }
    let mut s = String::with_capacity(bytes.len());
    text::decode(charset, bytes, &mut s);
    Ok(s)
}

/// The bytes of text `s` in `charset` (its own UTF-8 for the Unicode ones).
pub(crate) fn text_bytes(charset: Charset, s: &str) -> Vec<u8> {
    if !text::is_single_byte_text(charset) {
        return s.as_bytes().to_vec();
    }
    let mut bytes = Vec::with_capacity(s.len());
    text::encode(charset, s.as_bytes(), &mut bytes);
    bytes
}

/// The charset a string expression's characters are in (the connection's,
/// utf8mb4, for numbers).
pub(crate) fn charset_of(e: &Expr) -> Charset {
    if is_string(&e.data_type()) {
        derivation(e).0.charset()
    } else {
        Charset::Utf8mb4
    }
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

/// The coercibility a column made from `e` keeps, when not IMPLICIT.
pub(crate) fn column_coercibility(e: &Expr) -> Option<Coercibility> {
    if !is_string(&e.data_type()) {
        return None;
    }
    let (_, k) = derivation(e);
    (k != Coercibility::Implicit).then_some(k)
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

fn trim_name(name: &str) -> &str {
    name.trim_matches(|c| c == '`' || c == '\'' || c == '"')
}

/// A charset name (`utf8mb4`, `utf8mb3`, `utf8`, `latin1`, `ascii`, ...)
/// and its default collation, in the form over UTF-8 text the engine keeps
/// strings in; error 1115 when unknown.
pub fn column_charset_default(name: &str) -> Result<Collation> {
    let name = trim_name(name).to_lowercase();
    let name = if name == "utf8" {
        "utf8mb3".to_string()
    } else {
        name
    };
    Collation::default_for_charset(&name)
        .map(Collation::over_utf8)
        .ok_or_else(|| QuiverError::new(1115, "42000", format!("Unknown character set: '{name}'")))
}

/// A collation by name for a column, table or database (its form over
/// UTF-8 text); error 1273 when unknown.
pub fn column_collation_by_name(name: &str) -> Result<Collation> {
    let name = trim_name(name);
    Collation::from_name(name)
        .map(Collation::over_utf8)
        .ok_or_else(|| QuiverError::new(1273, "HY000", format!("Unknown collation: '{name}'")))
}

/// A charset name and its default collation, for the connection (`SET
/// NAMES`, `character_set_*`); error 1115 when unknown.
pub fn charset_default(name: &str) -> Result<Collation> {
    column_charset_default(name)
}

/// A collation by name for the connection: error 1273 when unknown.
pub fn collation_by_name(name: &str) -> Result<Collation> {
    column_collation_by_name(name)
}

/// `expr COLLATE name`: error 1273 for an unknown collation, 1253 for one
/// of another charset than the expression's.
pub(crate) fn explicit(e: Expr, name: &str) -> Result<Expr> {
    let c = Collation::from_name(name)
        .ok_or_else(|| QuiverError::new(1273, "HY000", format!("Unknown collation: '{name}'")))?
        .over_utf8();
    let charset = charset_of(&e);
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
    let e = if e.data_type() == DataType::Utf8 || is_binary(&e.data_type()) {
        e
    } else {
        coerce::cast(e, &DataType::Utf8)
    };
    Ok(e.with_collation(c, Coercibility::Explicit))
}

/// The text of a literal written with a charset introducer
/// (`_latin1'..'`, `_latin1 X'E9'`): its bytes read in that charset.
/// Unicode charsets take the bytes as they are when quoted (MariaDB keeps
/// even a 4-byte character in `_utf8mb3'..'`), and check hex digits' bytes
/// (error 1300 naming the first bytes that are not a character there).
pub(crate) fn introduced_text(charset: Charset, bytes: Vec<u8>, from_hex: bool) -> Result<String> {
    if text::is_single_byte_text(charset) {
        let mut s = String::new();
        text::decode(charset, &bytes, &mut s);
        Ok(s)
    } else if from_hex {
        decode_exact(charset, &bytes)
    } else {
        decode_exact(Charset::Utf8mb4, &bytes)
    }
}
