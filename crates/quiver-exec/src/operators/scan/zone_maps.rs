//! Zone maps: the scan's filters as predicates on a row group's min/max
//! per column, which rule out row groups without reading them.

use std::cmp::Ordering as Cmp;

use quiver_collation::Collation;
use quiver_common::ScalarValue;
use quiver_plan::{BinaryOp, ColumnZone};

use crate::expr::PhysicalExpr;

/// A pushed-down conjunct that zone maps can decide: a table column against
/// constants.
#[derive(Debug)]
pub(super) enum ZonePredicate {
    Compare {
        column: usize,
        op: BinaryOp,
        value: ScalarValue,
        /// `value`'s [`zone_key`].
        key: Option<Vec<u8>>,
        collation: Collation,
    },
    In {
        column: usize,
        values: Vec<ScalarValue>,
        keys: Vec<Option<Vec<u8>>>,
        collation: Collation,
    },
}

pub(super) fn column_of(e: &PhysicalExpr) -> Option<usize> {
    e.column_index()
}

/// A non-NULL constant (NULL decides nothing in a zone map).
pub(super) fn literal_of(e: &PhysicalExpr) -> Option<&ScalarValue> {
    e.literal().filter(|v| !v.is_null())
}

pub(super) fn flip(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::LtEq => BinaryOp::GtEq,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::GtEq => BinaryOp::LtEq,
        other => other,
    }
}

/// The conjuncts of `filters` that zone maps can decide (AND is split; the
/// binder writes BETWEEN as `x >= lo AND x <= hi`). Column positions are
/// mapped to table columns through `projection`.
pub(super) fn zone_predicates(
    filters: &[PhysicalExpr],
    projection: &[usize],
) -> Vec<ZonePredicate> {
    fn walk(e: &PhysicalExpr, projection: &[usize], out: &mut Vec<ZonePredicate>) {
        match e {
            PhysicalExpr::Binary {
                op: BinaryOp::And,
                left,
                right,
                ..
            } => {
                walk(left, projection, out);
                walk(right, projection, out);
            }
            PhysicalExpr::Binary {
                op,
                left,
                right,
                collation,
                ..
            } if op.is_comparison() => {
                let (column, op, value) = match (column_of(left), literal_of(right)) {
                    (Some(c), Some(v)) => (c, *op, v),
                    _ => match (literal_of(left), column_of(right)) {
                        (Some(v), Some(c)) => (c, flip(*op), v),
                        _ => return,
                    },
                };
                if let Some(&column) = projection.get(column) {
                    out.push(ZonePredicate::Compare {
                        column,
                        op,
                        value: value.clone(),
                        key: zone_key(value, *collation),
                        collation: *collation,
                    });
                }
            }
            PhysicalExpr::InList {
                negated: false,
                expr,
                list,
                collation,
                ..
            } => {
                let values: Option<Vec<ScalarValue>> =
                    list.iter().map(|e| literal_of(e).cloned()).collect();
                if let (Some(c), Some(values)) = (column_of(expr), values) {
                    if let Some(&column) = projection.get(c) {
                        out.push(ZonePredicate::In {
                            column,
                            keys: values.iter().map(|v| zone_key(v, *collation)).collect(),
                            values,
                            collation: *collation,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for f in filters {
        walk(f, projection, &mut out);
    }
    out
}

/// An exact decimal view of an integer or decimal value.
pub(super) fn as_decimal(v: &ScalarValue) -> Option<(i128, i8)> {
    match v {
        ScalarValue::Int64(x) => Some((*x as i128, 0)),
        ScalarValue::UInt64(x) => Some((*x as i128, 0)),
        ScalarValue::Decimal(x, _, s) => Some((x.to_i128()?, *s)),
        _ => None,
    }
}

/// Order of a zone bound and a constant, when it is certain; strings only
/// under collations whose order is byte order (the bounds are in byte order).
pub(super) fn compare_values(
    a: &ScalarValue,
    b: &ScalarValue,
    collation: Collation,
) -> Option<Cmp> {
    use ScalarValue as S;
    match (a, b) {
        (S::Date(x), S::Date(y)) => Some(x.cmp(y)),
        (S::DateTime(x, _), S::DateTime(y, _)) => Some(x.cmp(y)),
        (S::Utf8(x), S::Utf8(y)) if collation.is_binary_eq() => {
            Some(collation.compare(x.as_bytes(), y.as_bytes()))
        }
        // Binary strings (should their pages keep bounds): plain bytes.
        (S::Binary(x), S::Binary(y)) => Some(x.cmp(y)),
        (S::Binary(x), S::Utf8(y)) => Some(x.as_slice().cmp(y.as_bytes())),
        _ => {
            let ((x, sx), (y, sy)) = (as_decimal(a)?, as_decimal(b)?);
            let scale = sx.max(sy);
            let up = |v: i128, s: i8| v.checked_mul(10i128.checked_pow((scale - s) as u32)?);
            Some(up(x, sx)?.cmp(&up(y, sy)?))
        }
    }
}

/// Every value of the zone is below `c` (strictly), as far as the bounds show.
pub(super) fn all_below(z: &ColumnZone, c: &ScalarValue, collation: Collation) -> bool {
    let Some(max) = &z.max else { return false };
    if z.max_is_prefix {
        // Every value's first bytes are at most the prefix `p`; if `p` is
        // below the same number of bytes of `c`, every value is below `c`
        // (docs/STORAGE.md, zone maps).
        return match (max, c) {
            (ScalarValue::Utf8(p), ScalarValue::Utf8(c)) if collation.is_binary_eq() => {
                let c = c.as_bytes();
                p.as_bytes() < &c[..c.len().min(p.len())]
            }
            (ScalarValue::Binary(p), ScalarValue::Binary(c)) => {
                p.as_slice() < &c[..c.len().min(p.len())]
            }
            _ => false,
        };
    }
    compare_values(max, c, collation) == Some(Cmp::Less)
}

pub(super) fn at_most(z: &ColumnZone, c: &ScalarValue, collation: Collation) -> bool {
    if z.max_is_prefix {
        return all_below(z, c, collation);
    }
    z.max
        .as_ref()
        .is_some_and(|m| compare_values(m, c, collation).is_some_and(|o| o != Cmp::Greater))
}

pub(super) fn min_cmp(z: &ColumnZone, c: &ScalarValue, collation: Collation) -> Option<Cmp> {
    compare_values(z.min.as_ref()?, c, collation)
}

/// Whether no row of the zone can satisfy `column <op> c` for a string `c`
/// under a collation that does not order by bytes: decided by the zone's
/// bounds under that same collation (normalized keys, compared as bytes),
/// if it has them.
/// `key` is the constant's normalized key under `collation`.
pub(super) fn collated_ruled_out(
    z: &ColumnZone,
    op: BinaryOp,
    key: &[u8],
    collation: Collation,
) -> bool {
    let Some(b) = z.collated.as_ref().filter(|b| b.collation == collation) else {
        return false;
    };
    let min = b.min.as_slice();
    // Every key is below `key`: a whole max below it, or a cut max below
    // as many bytes of it.
    let all_below = if b.max_is_prefix {
        b.max.as_slice() < &key[..key.len().min(b.max.len())]
    } else {
        b.max.as_slice() < key
    };
    let at_most = if b.max_is_prefix {
        all_below
    } else {
        b.max.as_slice() <= key
    };
    match op {
        BinaryOp::Eq => key < min || all_below,
        BinaryOp::Lt => min >= key,
        BinaryOp::LtEq => min > key,
        BinaryOp::Gt => at_most,
        BinaryOp::GtEq => all_below,
        // Every key equal to `key`: the whole max is, and the min (maybe
        // cut, so at most the smallest key) too.
        BinaryOp::NotEq => !b.max_is_prefix && min == key && b.max.as_slice() == key,
        _ => false,
    }
}

/// The normalized key zone maps compare a string constant by under a
/// collation that does not order by bytes (made once per scan, not once
/// per row group).
pub(super) fn zone_key(c: &ScalarValue, collation: Collation) -> Option<Vec<u8>> {
    match c {
        ScalarValue::Utf8(s) if !collation.is_binary_eq() => {
            let mut key = Vec::new();
            collation.normalized_key(s.as_bytes(), &mut key);
            Some(key)
        }
        _ => None,
    }
}

/// Whether no row of the zone can satisfy `column <op> c`.
#[cfg(test)]
pub(super) fn compare_ruled_out(
    z: &ColumnZone,
    op: BinaryOp,
    c: &ScalarValue,
    collation: Collation,
) -> bool {
    compare_ruled_out_keyed(z, op, c, zone_key(c, collation).as_deref(), collation)
}

/// [`compare_ruled_out`] with the constant's [`zone_key`].
pub(super) fn compare_ruled_out_keyed(
    z: &ColumnZone,
    op: BinaryOp,
    c: &ScalarValue,
    key: Option<&[u8]>,
    collation: Collation,
) -> bool {
    if let Some(key) = key {
        return collated_ruled_out(z, op, key, collation);
    }
    match op {
        BinaryOp::Eq => {
            min_cmp(z, c, collation) == Some(Cmp::Greater) || all_below(z, c, collation)
        }
        BinaryOp::Lt => min_cmp(z, c, collation).is_some_and(|o| o != Cmp::Less),
        BinaryOp::LtEq => min_cmp(z, c, collation) == Some(Cmp::Greater),
        BinaryOp::Gt => at_most(z, c, collation),
        BinaryOp::GtEq => all_below(z, c, collation),
        BinaryOp::NotEq => {
            !z.max_is_prefix
                && min_cmp(z, c, collation) == Some(Cmp::Equal)
                && z.max
                    .as_ref()
                    .is_some_and(|m| compare_values(m, c, collation) == Some(Cmp::Equal))
        }
        _ => false,
    }
}

/// Whether the zone maps of one row group show that no row passes all
/// predicates. A comparison is never true for NULL, so an all-NULL column
/// rules out any predicate on it.
pub(super) fn group_ruled_out(predicates: &[ZonePredicate], zones: &[ColumnZone]) -> bool {
    predicates.iter().any(|p| {
        let (column, ruled_out): (usize, &dyn Fn(&ColumnZone) -> bool) = match p {
            ZonePredicate::Compare {
                column,
                op,
                value,
                key,
                collation,
            } => (*column, &move |z| {
                compare_ruled_out_keyed(z, *op, value, key.as_deref(), *collation)
            }),
            ZonePredicate::In {
                column,
                values,
                keys,
                collation,
            } => (*column, &move |z| {
                values.iter().zip(keys).all(|(v, k)| {
                    compare_ruled_out_keyed(z, BinaryOp::Eq, v, k.as_deref(), *collation)
                })
            }),
        };
        match zones.get(column) {
            Some(z) if z.rows > 0 && z.null_count == z.rows => true,
            Some(z) => ruled_out(z),
            None => false,
        }
    })
}
