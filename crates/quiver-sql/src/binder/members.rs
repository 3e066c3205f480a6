//! ENUM / SET columns in expressions. A reference reads as the text of the
//! column's codes (`ScalarFunc::MemberText`); MariaDB reads the code where
//! a number is wanted. Casts to numbers and arithmetic take the code in
//! `coerce`; comparisons, ORDER BY, GROUP BY and DISTINCT here.

use quiver_collation::Collation;
use quiver_common::types::{is_string, MemberKind, MemberType};
use quiver_common::ScalarValue;
use quiver_plan::{BinaryOp, Coercibility, Expr};

/// The operands of comparison `l op r`. An ENUM / SET against anything but
/// a string is its code (`e = 2` compares the index, as MariaDB). An ENUM
/// equal (or not) to a string constant compares codes: the constant's
/// member is found once under the column's collation.
pub(crate) fn compare_operands(op: BinaryOp, l: Expr, r: Expr) -> (Expr, Expr) {
    let (lt, rt) = (l.data_type(), r.data_type());
    let (l, r) = (numeric_side(l, &rt), numeric_side(r, &lt));
    if !matches!(op, BinaryOp::Eq | BinaryOp::NotEq) {
        return (l, r);
    }
    if let Some(code) = enum_code_of_constant(&l, &r) {
        return (l.member_codes().cloned().unwrap_or(l), code);
    }
    if let Some(code) = enum_code_of_constant(&r, &l) {
        return (code, r.member_codes().cloned().unwrap_or(r));
    }
    (l, r)
}

/// `e`'s code when `e` is an ENUM / SET and `other` is no string.
fn numeric_side(e: Expr, other_type: &arrow_schema::DataType) -> Expr {
    match e.member_codes() {
        Some(codes) if !is_string(other_type) && *other_type != arrow_schema::DataType::Null => {
            codes.clone()
        }
        _ => e,
    }
}

/// The code literal `c` equals when `e` is an ENUM column and `c` a string
/// constant naming exactly one member and not the empty error value.
fn enum_code_of_constant(e: &Expr, c: &Expr) -> Option<Expr> {
    let codes = e.member_codes()?;
    let m = MemberType::parse(e.member_type_text()?)?;
    if m.kind != MemberKind::Enum {
        return None;
    }
    if let Expr::Collate {
        coercibility: Coercibility::Explicit,
        ..
    } = c
    {
        return None;
    }
    let text = c.as_str_literal()?;
    let collation = match e {
        Expr::Collate { collation, .. } => *collation,
        _ => quiver_plan::default_collation(),
    };
    let found = member_positions(&m, text, collation);
    // '' is also the error value 0: left to the text comparison.
    if found.len() != 1 || collation.eq(b"", text.as_bytes()) {
        return None;
    }
    let code = ScalarValue::UInt64(found[0] as u64 + 1);
    Some(super::coerce::cast(Expr::lit(code), &codes.data_type()))
}

fn member_positions(m: &MemberType, text: &str, collation: Collation) -> Vec<usize> {
    m.members
        .iter()
        .enumerate()
        .filter(|(_, s)| collation.eq(s.as_bytes(), text.as_bytes()))
        .map(|(k, _)| k)
        .collect()
}

/// An ORDER BY / GROUP BY key: an ENUM / SET sorts and groups by its code.
pub(crate) fn code_key(e: Expr) -> Expr {
    match e.member_codes() {
        Some(codes) => codes.clone(),
        None => e,
    }
}

/// FIND_IN_SET(constant, set_column) as MariaDB computes it: the
/// constant's position among the SET's members when its bit is set, else
/// 0 (not its place in the row's text). None for any other call.
pub(crate) fn find_in_set(args: &[Expr]) -> quiver_common::Result<Option<Expr>> {
    let [needle, set] = args else {
        return Ok(None);
    };
    let (Some(codes), Some(text), Some(needle)) = (
        set.member_codes(),
        set.member_type_text(),
        needle.as_str_literal(),
    ) else {
        return Ok(None);
    };
    let Some(m) = MemberType::parse(text).filter(|m| m.kind == MemberKind::Set) else {
        return Ok(None);
    };
    let collation = match set {
        Expr::Collate { collation, .. } => *collation,
        _ => quiver_plan::default_collation(),
    };
    let codes = super::coerce::cast(codes.clone(), &arrow_schema::DataType::UInt64);
    let int = |n: u64| Expr::lit(ScalarValue::UInt64(n));
    let k = match member_positions(&m, needle, collation).first() {
        Some(&k) if !needle.contains(',') => k as u64,
        // No member: 0, NULL for a NULL set.
        _ => return super::coerce::arith(BinaryOp::Mul, codes, int(0)).map(Some),
    };
    // (codes DIV 2^k) % 2 * (k + 1)
    let bit = super::coerce::arith(BinaryOp::IntDiv, codes, int(1 << k))?;
    let bit = super::coerce::arith(BinaryOp::Mod, bit, int(2))?;
    super::coerce::arith(BinaryOp::Mul, bit, int(k + 1)).map(Some)
}
