//! ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST and NTILE: values
//! from the positions of a row in its partition and its peer group. No
//! frame clause is allowed with them (4017).

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array};
use arrow_schema::DataType;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::window::{WindowFunction, WindowRows, NEW_PARTITION, SAME};

use super::int64;

/// Calls `each(partition, peer group, row)` for every row.
fn peers(breaks: &[u8], mut each: impl FnMut(&Range<usize>, &Range<usize>, usize)) {
    let n = breaks.len();
    let mut ps = 0;
    while ps < n {
        let mut pe = ps + 1;
        while pe < n && breaks[pe] != NEW_PARTITION {
            pe += 1;
        }
        let mut gs = ps;
        while gs < pe {
            let mut ge = gs + 1;
            while ge < pe && breaks[ge] == SAME {
                ge += 1;
            }
            for r in gs..ge {
                each(&(ps..pe), &(gs..ge), r);
            }
            gs = ge;
        }
        ps = pe;
    }
}

pub(crate) fn row_number(breaks: &[u8]) -> Vec<i64> {
    let mut out = Vec::with_capacity(breaks.len());
    let mut n = 0i64;
    for (i, b) in breaks.iter().enumerate() {
        n = if i == 0 || *b == NEW_PARTITION {
            1
        } else {
            n + 1
        };
        out.push(n);
    }
    out
}

/// RANK (`dense` false: 1 + rows before the peer group) or DENSE_RANK
/// (1 + peer groups before).
pub(crate) fn rank(breaks: &[u8], dense: bool) -> Vec<i64> {
    let mut out = Vec::with_capacity(breaks.len());
    let (mut rank, mut row) = (0i64, 0i64);
    for (i, b) in breaks.iter().enumerate() {
        if i == 0 || *b == NEW_PARTITION {
            (rank, row) = (1, 1);
        } else {
            row += 1;
            if *b != SAME {
                rank = if dense { rank + 1 } else { row };
            }
        }
        out.push(rank);
    }
    out
}

pub struct RowNumber;
pub static ROW_NUMBER: RowNumber = RowNumber;

impl WindowFunction for RowNumber {
    fn name(&self) -> &'static str {
        "row_number"
    }
    bigint_not_null!();
    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef> {
        Ok(int64(row_number(rows.breaks)))
    }
}

pub struct Rank {
    name: &'static str,
    dense: bool,
}
pub static RANK: Rank = Rank {
    name: "rank",
    dense: false,
};
pub static DENSE_RANK: Rank = Rank {
    name: "dense_rank",
    dense: true,
};

impl WindowFunction for Rank {
    fn name(&self) -> &'static str {
        self.name
    }
    fn requires_order(&self) -> bool {
        true
    }
    bigint_not_null!();
    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef> {
        Ok(int64(rank(rows.breaks, self.dense)))
    }
}

/// PERCENT_RANK ((rank - 1) / (rows - 1)) and CUME_DIST (rows up to the
/// last peer / rows): DOUBLE MariaDB shows with 10 decimals.
pub struct Distribution {
    name: &'static str,
    cumulative: bool,
}
pub static PERCENT_RANK: Distribution = Distribution {
    name: "percent_rank",
    cumulative: false,
};
pub static CUME_DIST: Distribution = Distribution {
    name: "cume_dist",
    cumulative: true,
};

impl WindowFunction for Distribution {
    fn name(&self) -> &'static str {
        self.name
    }
    fn requires_order(&self) -> bool {
        true
    }
    fn return_type(&self, _: &[DataType]) -> DataType {
        // double(17,10): a DOUBLE shown at 10 decimals.
        DataType::Decimal128(17, 10)
    }
    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef> {
        let mut out = vec![0f64; rows.len()];
        peers(rows.breaks, |p, g, r| {
            let n = p.len() as f64;
            out[r] = if self.cumulative {
                (g.end - p.start) as f64 / n
            } else if p.len() > 1 {
                (g.start - p.start) as f64 / (n - 1.0)
            } else {
                0.0
            };
        });
        Ok(Arc::new(Float64Array::from(out)))
    }
}

/// NTILE(n): the partition cut into n buckets, the first ones a row longer.
pub struct Ntile;
pub static NTILE: Ntile = Ntile;

fn ntile_error() -> QuiverError {
    QuiverError::new(4024, "HY000", "Argument of NTILE must be greater than 0")
}

impl WindowFunction for Ntile {
    fn name(&self) -> &'static str {
        "ntile"
    }
    fn arity(&self) -> std::ops::RangeInclusive<usize> {
        1..=1
    }
    fn coerce_types(&self, args: &[DataType]) -> Vec<DataType> {
        vec![DataType::Int64; args.len()]
    }
    fn check_args(&self, constants: &[Option<ScalarValue>]) -> Result<()> {
        // MariaDB wants a constant above 0 (a column is refused, even a positive one).
        match constants.first() {
            Some(Some(ScalarValue::Int64(n))) if *n > 0 => Ok(()),
            _ => Err(ntile_error()),
        }
    }
    bigint_not_null!();
    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef> {
        let buckets = super::int_arg(rows.args, 0, 1, rows.len().min(1))
            .first()
            .copied()
            .flatten()
            .unwrap_or(1);
        if buckets <= 0 {
            return Err(ntile_error());
        }
        let buckets = buckets as u64;
        let mut out = vec![0i64; rows.len()];
        for p in rows.partitions() {
            let m = p.len() as u64;
            let (size, extra) = (m / buckets, m % buckets);
            // The first `extra` buckets hold size + 1 rows.
            let long = extra * (size + 1);
            for (k, r) in p.enumerate() {
                let k = k as u64;
                out[r] = if k < long {
                    k / (size + 1) + 1
                } else {
                    extra + (k - long) / size + 1
                } as i64;
            }
        }
        Ok(int64(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::window::test_rows::{breaks_of, sorted_rows};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn ranks_match_definitions(rows in sorted_rows(), buckets in 1i64..8) {
            let b = breaks_of(&rows);
            let (rn, rk, dr) = (row_number(&b), rank(&b, false), rank(&b, true));
            let args: Vec<ArrayRef> = vec![int64(vec![buckets; rows.len()])];
            let w = WindowRows { breaks: &b, args: &args, frames: None };
            let tiles = NTILE.evaluate(&w).unwrap();
            let tiles = tiles.as_any().downcast_ref::<arrow_array::Int64Array>().unwrap();
            for i in 0..rows.len() {
                let part: Vec<usize> = (0..rows.len()).filter(|&j| rows[j].0 == rows[i].0).collect();
                let before = part.iter().filter(|&&j| j < i).count() as i64;
                prop_assert_eq!(rn[i], before + 1);
                let smaller = part.iter().filter(|&&j| rows[j].1 < rows[i].1).count() as i64;
                prop_assert_eq!(rk[i], smaller + 1);
                let mut keys: Vec<u8> = part.iter().map(|&j| rows[j].1).filter(|k| *k < rows[i].1).collect();
                keys.dedup();
                prop_assert_eq!(dr[i], keys.len() as i64 + 1);
                // NTILE: bucket sizes differ by at most one, larger first.
                let m = part.len() as i64;
                let (size, extra) = (m / buckets, m % buckets);
                let bucket = tiles.value(i);
                let first = (bucket - 1) * size + (bucket - 1).min(extra);
                let len = size + (bucket <= extra) as i64;
                prop_assert!(before >= first && before < first + len);
            }
        }
    }
}
