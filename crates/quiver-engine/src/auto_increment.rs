//! AUTO_INCREMENT numbering of an INSERT's rows, as InnoDB does it
//! (MariaDB 10.11, `innodb_autoinc_lock_mode = 1`).
//!
//! A row whose AUTO_INCREMENT value is NULL, omitted, DEFAULT or 0 (unless
//! `sql_mode` has NO_AUTO_VALUE_ON_ZERO) takes the table's next value; an
//! explicit value at least as large moves the next value past it. The next
//! value is the larger of the counter the table keeps and one past the
//! column's largest value: the counter is written to the table's manifest
//! with every generation (so it survives a restart and a DELETE of the
//! largest rows), TRUNCATE sets it back to 1. Values a failed statement
//! took stay taken, as in InnoDB (until the process ends: only a write
//! keeps them on disk). LAST_INSERT_ID() is the first value generated.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field};
use quiver_common::{QuiverError, Result};
use quiver_exec::expr::cast_array;

use crate::catalog::Table;

/// The largest value a column of integer type `t` holds.
fn type_max(t: &DataType) -> i128 {
    match t {
        DataType::Int8 => i8::MAX as i128,
        DataType::Int16 => i16::MAX as i128,
        DataType::Int32 => i32::MAX as i128,
        DataType::UInt8 => u8::MAX as i128,
        DataType::UInt16 => u16::MAX as i128,
        DataType::UInt32 => u32::MAX as i128,
        DataType::UInt64 => u64::MAX as i128,
        _ => i64::MAX as i128,
    }
}

/// An integer column's values as i128 (None for NULL).
fn values(a: &ArrayRef) -> Result<Vec<Option<i128>>> {
    Ok(match a.data_type() {
        DataType::UInt64 => {
            let a = cast_array(a, &DataType::UInt64)?;
            let a = a.as_any().downcast_ref::<UInt64Array>().expect("u64");
            a.iter().map(|v| v.map(i128::from)).collect()
        }
        _ => {
            let a = cast_array(a, &DataType::Int64)?;
            let a = a.as_any().downcast_ref::<Int64Array>().expect("i64");
            a.iter().map(|v| v.map(i128::from)).collect()
        }
    })
}

/// Numbers `given` (the INSERT's values of AUTO_INCREMENT column `column`
/// of `table`, whose rows are `old`), moving the table's counter. `listed`:
/// the rows are a VALUES list, whose length InnoDB knows in advance.
/// Returns the column to store and how the counter moves ([`Numbered`]);
/// the caller moves it once it knows which rows were stored.
///
/// Values are handed out as InnoDB's consecutive mode does: the first row
/// that needs one reserves as many as the list has rows (an INSERT ...
/// SELECT: 1, then 2, 4, ... per reservation; a later reservation of a list
/// as many as rows are left), the counter moves to the end of the
/// reservation, and what the statement does not use of it is lost
/// (`VALUES (1), (NULL), (5), (NULL)` at counter 101 stores 1, 101, 5, 102
/// and leaves the counter at 105). An explicit value at least the counter
/// moves it past the value; one at least the next reserved value skips the
/// reservation past it.
pub(crate) fn number(
    table: &Table,
    old: &[RecordBatch],
    column: usize,
    f: &Field,
    given: &ArrayRef,
    zero_is_a_value: bool,
    listed: bool,
) -> Result<Numbered> {
    let mut largest: i128 = 0;
    for b in old {
        for v in values(b.column(column))?.into_iter().flatten() {
            largest = largest.max(v);
        }
    }
    let max = type_max(f.data_type());
    let mut counter = (table.auto_increment() as i128).max(largest + 1).max(1);
    // The reservation: values next..end are this statement's. `left`:
    // InnoDB's count of rows it reserved for and has not yet written.
    let (mut next, mut end, mut reservations, mut left) = (0i128, 0i128, 0u32, 0i128);
    let mut first = None;
    let mut out = Vec::with_capacity(given.len());
    let mut failed = None;
    let mut before_row = Vec::with_capacity(given.len());
    for (r, v) in values(given)?.into_iter().enumerate() {
        match v {
            Some(v) if v != 0 || zero_is_a_value => {
                before_row.push(counter);
                if v >= counter {
                    counter = v.saturating_add(1);
                }
                if v >= next {
                    next = v.saturating_add(1);
                }
                out.push(v);
            }
            _ => {
                if next >= end {
                    if left == 0 {
                        left = match (reservations, listed) {
                            (0, true) => given.len() as i128,
                            _ => (1i128 << reservations.min(16)).min(65_535),
                        };
                    }
                    next = counter;
                    end = (counter + left).min(max + 1);
                    counter = counter.max(end);
                    reservations += 1;
                }
                before_row.push(counter);
                if next > max {
                    failed = Some(r);
                    break;
                }
                first.get_or_insert(next);
                out.push(next);
                next += 1;
            }
        }
        left = (left - 1).max(0);
    }
    if let Some(r) = failed {
        table.set_auto_increment(counter.min(u64::MAX as i128) as u64);
        return Err(QuiverError::new(
            167,
            "22003",
            format!(
                "Out of range value for column '{}' at row {}",
                f.name(),
                r + 1
            ),
        ));
    }
    let array: ArrayRef = match f.data_type() {
        DataType::UInt64 => Arc::new(UInt64Array::from(
            out.iter().map(|v| *v as u64).collect::<Vec<_>>(),
        )),
        _ => Arc::new(Int64Array::from(
            out.iter().map(|v| *v as i64).collect::<Vec<_>>(),
        )),
    };
    let stored = match array.data_type() == f.data_type() {
        true => array,
        false => cast_array(&array, f.data_type())?,
    };
    Ok(Numbered {
        column: stored,
        first: first.map(|v| v as u64),
        before_row,
        after: counter,
    })
}

/// An INSERT's AUTO_INCREMENT values and the counter they leave.
pub(crate) struct Numbered {
    pub column: ArrayRef,
    /// The first value generated: LAST_INSERT_ID().
    pub first: Option<u64>,
    /// Per row, the counter once the row's values were reserved and before
    /// its explicit value (InnoDB moves the counter past an explicit value
    /// only once the row is stored).
    before_row: Vec<i128>,
    after: i128,
}

impl Numbered {
    /// Moves the table's counter: past every row, or when row `failed`
    /// was not stored, past what the rows before it and its own
    /// reservation took (a failed statement's values stay taken, as in
    /// InnoDB).
    pub(crate) fn keep(&self, table: &Table, failed: Option<usize>) {
        let c = match failed {
            Some(r) => self.before_row.get(r).copied().unwrap_or(self.after),
            None => self.after,
        };
        table.set_auto_increment(c.clamp(0, u64::MAX as i128) as u64);
    }
}
