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
pub(crate) fn values(a: &ArrayRef) -> Result<Vec<Option<i128>>> {
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
pub(crate) fn number(
    table: &Table,
    old: &[RecordBatch],
    column: usize,
    f: &Field,
    given: &ArrayRef,
    zero_is_a_value: bool,
    listed: bool,
) -> Result<Numbered> {
    let listed = listed.then_some(given.len());
    let mut numberer = Numberer::new(table, old, column, f, zero_is_a_value, listed)?;
    let mut out = Vec::with_capacity(given.len());
    for (r, v) in values(given)?.into_iter().enumerate() {
        out.push(numberer.row(r, v).inspect_err(|_| numberer.settle(table))?);
    }
    numberer.finish(&out)
}

/// The table's next AUTO_INCREMENT value (column `column`, rows `old`):
/// the larger of the counter it keeps and one past the column's largest
/// value, at least 1 (what SHOW CREATE TABLE shows too).
pub(crate) fn next_value(table: &Table, old: &[RecordBatch], column: usize) -> Result<i128> {
    let mut largest: i128 = 0;
    for b in old {
        for v in values(b.column(column))?.into_iter().flatten() {
            largest = largest.max(v);
        }
    }
    Ok((table.auto_increment() as i128).max(largest + 1).max(1))
}

/// Numbers an INSERT's rows one at a time, as InnoDB's consecutive mode
/// does: the first row that needs a value reserves as many as the list
/// has rows (an INSERT ... SELECT: 1, then 2, 4, ... per reservation; a
/// later reservation of a list as many as rows are left), the counter
/// moves to the end of the reservation, and what the statement does not
/// use of it is lost (`VALUES (1), (NULL), (5), (NULL)` at counter 101
/// stores 1, 101, 5, 102 and leaves the counter at 105). An explicit value
/// at least the counter moves it past the value; one at least the next
/// reserved value skips the reservation past it. A row that is not stored
/// after all (INSERT IGNORE of a duplicate, a row that ON DUPLICATE KEY
/// UPDATE turns into an update) hands its generated value to the next row
/// that needs one, and its explicit value moves nothing ([`Numberer::unstored`]).
pub(crate) struct Numberer {
    f: Field,
    zero_is_a_value: bool,
    /// The rows of a VALUES list, whose count InnoDB reserves at once.
    listed: Option<usize>,
    max: i128,
    counter: i128,
    /// The reservation: values next..end are this statement's.
    next: i128,
    end: i128,
    reservations: u32,
    /// InnoDB's count of rows it reserved for and has not yet written.
    left: i128,
    first: Option<i128>,
    before_row: Vec<i128>,
    /// What the last row changed, so that [`Numberer::unstored`] can undo it.
    undo: Option<Undo>,
}

#[derive(Clone, Copy)]
struct Undo {
    counter: i128,
    next: i128,
    first: Option<i128>,
}

impl Numberer {
    pub(crate) fn new(
        table: &Table,
        old: &[RecordBatch],
        column: usize,
        f: &Field,
        zero_is_a_value: bool,
        listed: Option<usize>,
    ) -> Result<Numberer> {
        let counter = next_value(table, old, column)?;
        Ok(Numberer {
            f: f.clone(),
            zero_is_a_value,
            listed,
            max: type_max(f.data_type()),
            counter,
            next: 0,
            end: 0,
            reservations: 0,
            left: 0,
            first: None,
            before_row: Vec::new(),
            undo: None,
        })
    }

    /// The value row `r` stores, given `v` (its value as written, None for
    /// NULL); error 167 when the column's type has no value left.
    pub(crate) fn row(&mut self, r: usize, v: Option<i128>) -> Result<i128> {
        self.undo = Some(Undo {
            counter: self.counter,
            next: self.next,
            first: self.first,
        });
        let out = match v {
            Some(v) if v != 0 || self.zero_is_a_value => {
                self.before_row.push(self.counter);
                if v >= self.counter {
                    self.counter = v.saturating_add(1);
                }
                if v >= self.next {
                    self.next = v.saturating_add(1);
                }
                v
            }
            _ => {
                if self.next >= self.end {
                    if self.left == 0 {
                        self.left = match (self.reservations, self.listed) {
                            (0, Some(rows)) => rows as i128,
                            _ => (1i128 << self.reservations.min(16)).min(65_535),
                        };
                    }
                    self.next = self.counter;
                    self.end = (self.counter + self.left).min(self.max + 1);
                    self.counter = self.counter.max(self.end);
                    self.reservations += 1;
                    // The reservation stays made.
                    let u = self.undo.as_mut().expect("set above");
                    u.counter = self.counter;
                    u.next = self.next;
                }
                self.before_row.push(self.counter);
                if self.next > self.max {
                    return Err(QuiverError::new(
                        167,
                        "22003",
                        format!(
                            "Out of range value for column '{}' at row {}",
                            self.f.name(),
                            r + 1
                        ),
                    ));
                }
                self.first.get_or_insert(self.next);
                self.next += 1;
                self.next - 1
            }
        };
        self.left = (self.left - 1).max(0);
        Ok(out)
    }

    /// A statement that failed after numbering rows: the values it took
    /// stay taken, as in InnoDB.
    pub(crate) fn settle(&self, table: &Table) {
        table.set_auto_increment(self.counter.clamp(0, u64::MAX as i128) as u64);
    }

    /// The row last numbered was not stored: its generated value goes to
    /// the next row that needs one, its explicit value moves no counter.
    pub(crate) fn unstored(&mut self) {
        if let Some(u) = self.undo.take() {
            self.counter = u.counter;
            self.next = u.next;
            self.first = u.first;
        }
    }

    /// The column of values `out` (one per row) and the counter they leave.
    pub(crate) fn finish(self, out: &[i128]) -> Result<Numbered> {
        let array: ArrayRef = match self.f.data_type() {
            DataType::UInt64 => Arc::new(UInt64Array::from(
                out.iter().map(|v| *v as u64).collect::<Vec<_>>(),
            )),
            _ => Arc::new(Int64Array::from(
                out.iter().map(|v| *v as i64).collect::<Vec<_>>(),
            )),
        };
        let stored = match array.data_type() == self.f.data_type() {
            true => array,
            false => cast_array(&array, self.f.data_type())?,
        };
        Ok(Numbered {
            column: stored,
            first: self.first.map(|v| v as u64),
            before_row: self.before_row,
            after: self.counter,
        })
    }
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
