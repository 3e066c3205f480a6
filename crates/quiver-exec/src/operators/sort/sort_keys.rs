//! The ordering of a set of batches' rows by sort keys, shared by ORDER BY,
//! top-N and window functions. Rows are named by a global id (their position
//! in the batches taken in order); only (key, id) items are sorted, and the
//! callers gather payload columns once from the order (late materialization).
//!
//! Keys whose values are integers in disguise (integers, dates, datetimes,
//! decimals, booleans, doubles through their total-order bits) are packed:
//! each key becomes its offset from the key's minimum (or from its maximum
//! when descending), NULL one extra value at the end that sorts first or
//! last, in just the bits its range needs, and the keys and the row id are
//! concatenated into one u64 (radix sorted) or u128. Other keys (strings,
//! wide ranges) are encoded with arrow-row into byte-comparable rows (strings
//! first turned into their collation's normalized keys); items are then the
//! rows' first 8 bytes and the id, and only equal prefixes compare the rows.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{cast::AsArray, downcast_integer, types::*, Array, ArrayRef, RecordBatch};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, SortOptions, TimeUnit};
use quiver_common::{QuiverError, Result};

use super::key_form::{string_key_form, string_sort_column, SortKey, StringKeyForm};
use super::par_sort::{par_sort_by, radix_sort_u64};
use crate::context::OwnedReservation;
use crate::ExecContext;

/// The order of the rows of some batches.
pub(crate) struct SortedRows {
    /// Global row ids in key order (ties in input order).
    pub order: Vec<u32>,
    /// Asked for by windows: per position of `order`, `NEW_PARTITION` where
    /// the partition keys change (and at 0), `NEW_PEERS` where only the
    /// other keys change, `SAME` between peers.
    pub breaks: Option<Vec<u8>>,
}

pub(crate) use quiver_plan::window::{NEW_PARTITION, NEW_PEERS, SAME};

/// Where each batch starts among the global row ids, and the total at the end.
pub(crate) fn batch_offsets(batches: &[RecordBatch]) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(batches.len() + 1);
    let mut total = 0;
    offsets.push(0);
    for b in batches {
        total += b.num_rows();
        offsets.push(total);
    }
    offsets
}

/// Runs `f` over `0..n` cut into up to `ctx.threads` contiguous ranges, one
/// thread each, and returns the results in range order.
pub(crate) fn par_ranges<T: Send>(
    n: usize,
    ctx: &ExecContext,
    f: impl Fn(Range<usize>) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let pieces = ctx.threads.clamp(1, n.max(1));
    let step = n.div_ceil(pieces).max(1);
    let ranges: Vec<Range<usize>> = (0..pieces)
        .map(|p| (p * step).min(n)..((p + 1) * step).min(n))
        .collect();
    if ranges.len() == 1 {
        return Ok(vec![f(ranges[0].clone())?]);
    }
    // Sort keys are expressions: their warnings go to the query's.
    let sink = &ctx.warnings;
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = ranges
            .into_iter()
            .map(|r| s.spawn(move || crate::warnings::collecting_into(sink, || f(r))))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(QuiverError::internal("a worker thread panicked")))
            })
            .collect()
    })
}

/// Sorts the rows of `batches` by `keys` on `ctx.threads` threads; with `fetch`
/// only the first `fetch` ids are returned. `partition_keys`, for windows,
/// says how many leading keys form the partition and asks for `breaks`.
/// Key buffers are counted in `memory`.
pub(crate) fn sort_batches(
    batches: &[RecordBatch],
    keys: &[SortKey],
    fetch: Option<usize>,
    partition_keys: Option<usize>,
    ctx: &ExecContext,
    memory: &mut OwnedReservation,
) -> Result<SortedRows> {
    let threads = ctx.threads;
    let offsets = batch_offsets(batches);
    let n = *offsets.last().unwrap_or(&0);
    if n > u32::MAX as usize {
        return Err(QuiverError::not_supported(
            "sorting more than 4294967295 rows",
        ));
    }
    if keys.is_empty() || n == 0 {
        let order: Vec<u32> = (0..fetch.unwrap_or(n).min(n) as u32).collect();
        let breaks = partition_keys.map(|_| {
            let mut b = vec![SAME; order.len()];
            if let Some(first) = b.first_mut() {
                *first = NEW_PARTITION;
            }
            b
        });
        return Ok(SortedRows { order, breaks });
    }
    // Key columns per batch; strings then written as their collation
    // orders them, in one form per key over all batches.
    let per_thread = par_ranges(batches.len(), ctx, |r| {
        batches[r]
            .iter()
            .map(|b| {
                keys.iter()
                    .map(|k| Ok(positive_zero(k.expr.evaluate_array(b)?)))
                    .collect::<Result<Vec<ArrayRef>>>()
            })
            .collect::<Result<Vec<_>>>()
    })?;
    let raw: Vec<Vec<ArrayRef>> = per_thread.into_iter().flatten().collect();
    let forms: Vec<StringKeyForm> = keys
        .iter()
        .enumerate()
        .map(|(k, key)| {
            let arrays: Vec<&ArrayRef> = raw.iter().map(|b| &b[k]).collect();
            string_key_form(&arrays, key.expr.collation())
        })
        .collect();
    let per_thread = par_ranges(raw.len(), ctx, |r| {
        raw[r]
            .iter()
            .map(|b| {
                b.iter()
                    .zip(keys.iter().zip(&forms))
                    .map(|(a, (k, form))| string_sort_column(a.clone(), k.expr.collation(), *form))
                    .collect::<Result<Vec<ArrayRef>>>()
            })
            .collect::<Result<Vec<_>>>()
    })?;
    drop(raw);
    let cols: Vec<Vec<ArrayRef>> = per_thread.into_iter().flatten().collect();
    memory.grow(
        cols.iter()
            .flatten()
            .map(|c| c.get_array_memory_size())
            .sum(),
    )?;
    let id_bits = bits_for(n as u128 - 1).max(1);
    let layout = PackedLayout::new(keys, &cols, id_bits);
    match layout {
        Some(l) if l.key_bits + id_bits <= 64 => {
            memory.grow(n * 8 * 2)?;
            let mut items = vec![0u64; n];
            encode_packed(&l, &cols, &offsets, threads, &mut items, |w| w as u64)?;
            let items = par_sort_by(items, threads, fetch, radix_sort_u64, |a, b| a.cmp(b));
            let mask = (1u64 << id_bits) - 1;
            let breaks = partition_keys.map(|p| {
                let part_shift = id_bits + l.bits_after(p);
                breaks_of(&items, |a, b| {
                    if a.checked_shr(part_shift) != b.checked_shr(part_shift) {
                        NEW_PARTITION
                    } else if (a >> id_bits) != (b >> id_bits) {
                        NEW_PEERS
                    } else {
                        SAME
                    }
                })
            });
            let order = items.iter().map(|x| (x & mask) as u32).collect();
            Ok(SortedRows { order, breaks })
        }
        Some(l) if l.key_bits + id_bits <= 128 => {
            memory.grow(n * 16 * 2)?;
            let mut items = vec![0u128; n];
            encode_packed(&l, &cols, &offsets, threads, &mut items, |w| w)?;
            let items = par_sort_by(
                items,
                threads,
                fetch,
                |run| run.sort_unstable(),
                |a, b| a.cmp(b),
            );
            let mask = (1u128 << id_bits) - 1;
            let breaks = partition_keys.map(|p| {
                let part_shift = id_bits + l.bits_after(p);
                breaks_of(&items, |a, b| {
                    if a.checked_shr(part_shift) != b.checked_shr(part_shift) {
                        NEW_PARTITION
                    } else if (a >> id_bits) != (b >> id_bits) {
                        NEW_PEERS
                    } else {
                        SAME
                    }
                })
            });
            let order = items.iter().map(|x| (x & mask) as u32).collect();
            Ok(SortedRows { order, breaks })
        }
        _ => sort_by_rows(keys, cols, n, fetch, partition_keys, ctx, memory),
    }
}

/// Doubles with -0 made 0, which MySQL compares equal (the row format
/// would not); other columns as they are.
pub(crate) fn positive_zero(a: ArrayRef) -> ArrayRef {
    match a.data_type() {
        DataType::Float64 => Arc::new(
            a.as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|x| x + 0.0),
        ),
        DataType::Float32 => Arc::new(
            a.as_primitive::<Float32Type>()
                .unary::<_, Float32Type>(|x| x + 0.0),
        ),
        _ => a,
    }
}

/// Bits needed to write `v`.
fn bits_for(v: u128) -> u32 {
    128 - v.leading_zeros()
}

/// Per position of the sorted `items`, how it differs from the item before.
fn breaks_of<T>(items: &[T], differ: impl Fn(&T, &T) -> u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.len());
    if !items.is_empty() {
        out.push(NEW_PARTITION);
    }
    out.extend(items.windows(2).map(|w| differ(&w[0], &w[1])));
    out
}

/// The ordinal of a double: its bits as a signed integer that orders as
/// `f64::total_cmp`, with -0 taken as 0 (MySQL compares them equal).
#[inline]
fn float_ordinal(x: f64) -> i128 {
    let b = (x + 0.0).to_bits() as i64;
    (b ^ (((b >> 63) as u64) >> 1) as i64) as i128
}

/// Runs `$body` with `$v` bound to an iterator over the ordinals (i128 that
/// order as the values) of every slot of `$a` (null slots hold some value),
/// for the types that have them; `None` for the others.
macro_rules! with_ordinals {
    ($a:expr, |$v:ident| $body:expr) => {{
        let a: &dyn Array = $a;
        macro_rules! prim {
            ($t:ty) => {{
                let $v = a.as_primitive::<$t>().values().iter().map(|x| *x as i128);
                Some($body)
            }};
        }
        downcast_integer! {
            a.data_type() => (prim),
            DataType::Date32 => prim!(Date32Type),
            DataType::Date64 => prim!(Date64Type),
            DataType::Timestamp(TimeUnit::Second, _) => prim!(TimestampSecondType),
            DataType::Timestamp(TimeUnit::Millisecond, _) => prim!(TimestampMillisecondType),
            DataType::Timestamp(TimeUnit::Microsecond, _) => prim!(TimestampMicrosecondType),
            DataType::Timestamp(TimeUnit::Nanosecond, _) => prim!(TimestampNanosecondType),
            DataType::Decimal128(_, _) => prim!(Decimal128Type),
            DataType::Decimal64(_, _) => prim!(Decimal64Type),
            DataType::Float64 => {
                let $v = a
                    .as_primitive::<Float64Type>()
                    .values()
                    .iter()
                    .map(|x| float_ordinal(*x));
                Some($body)
            }
            DataType::Float32 => {
                let $v = a
                    .as_primitive::<Float32Type>()
                    .values()
                    .iter()
                    .map(|x| float_ordinal(*x as f64));
                Some($body)
            }
            DataType::Boolean => {
                let $v = a.as_boolean().values().iter().map(|x| x as i128);
                Some($body)
            }
            _ => None,
        }
    }};
}

/// The ordinals of `a`'s slots (null slots hold some value), if its type has them.
pub(crate) fn ordinals(a: &dyn Array) -> Option<Vec<i128>> {
    with_ordinals!(a, |v| v.collect())
}

/// How packed keys are laid out: per key its range and width, most
/// significant key first.
struct PackedLayout {
    keys: Vec<PackedKey>,
    key_bits: u32,
}

struct PackedKey {
    min: i128,
    max: i128,
    nulls: bool,
    asc: bool,
    nulls_first: bool,
    bits: u32,
}

impl PackedKey {
    /// The code of a value's ordinal.
    #[inline]
    fn code(&self, ordinal: i128) -> u128 {
        let off = (self.nulls && self.nulls_first) as u128;
        let v = if self.asc {
            ordinal.wrapping_sub(self.min)
        } else {
            self.max.wrapping_sub(ordinal)
        };
        v as u128 + off
    }

    #[inline]
    fn null_code(&self) -> u128 {
        if self.nulls_first {
            0
        } else {
            (self.max - self.min) as u128 + 1
        }
    }
}

impl PackedLayout {
    /// The layout if every key has ordinals and a range that fits.
    fn new(keys: &[SortKey], cols: &[Vec<ArrayRef>], id_bits: u32) -> Option<PackedLayout> {
        let mut out = Vec::with_capacity(keys.len());
        let mut key_bits = 0;
        for (k, key) in keys.iter().enumerate() {
            let mut range: Option<(i128, i128)> = None;
            let mut nulls = false;
            for batch in cols {
                let a = batch[k].as_ref();
                nulls |= a.null_count() > 0;
                let mm = with_ordinals!(a, |v| min_max(v, a.logical_nulls().as_ref()))?;
                if let Some((lo, hi)) = mm {
                    range = Some(match range {
                        None => (lo, hi),
                        Some((a, b)) => (a.min(lo), b.max(hi)),
                    });
                }
            }
            // All NULL (or no rows): one value.
            let (min, max) = range.unwrap_or((0, 0));
            let span = max.checked_sub(min)? as u128;
            let distinct = span.checked_add(1 + nulls as u128)?;
            let bits = bits_for(distinct - 1);
            key_bits += bits;
            if key_bits + id_bits > 128 {
                return None;
            }
            out.push(PackedKey {
                min,
                max,
                nulls,
                asc: key.asc,
                nulls_first: key.nulls_first,
                bits,
            });
        }
        Some(PackedLayout {
            keys: out,
            key_bits,
        })
    }

    /// Bits of the keys after the first `k`.
    fn bits_after(&self, k: usize) -> u32 {
        self.keys[k.min(self.keys.len())..]
            .iter()
            .map(|k| k.bits)
            .sum()
    }
}

fn min_max(
    values: impl Iterator<Item = i128>,
    nulls: Option<&arrow_buffer::NullBuffer>,
) -> Option<(i128, i128)> {
    let fold = |acc: Option<(i128, i128)>, v: i128| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    };
    match nulls {
        None => values.fold(None, fold),
        Some(n) => values
            .zip(n.iter())
            .filter(|(_, valid)| *valid)
            .fold(None, |acc, (v, _)| fold(acc, v)),
    }
}

/// Writes every row's packed item (keys, then the global id) into `items`,
/// batches spread over the threads.
fn encode_packed<W: Copy + Send>(
    layout: &PackedLayout,
    cols: &[Vec<ArrayRef>],
    offsets: &[usize],
    threads: usize,
    items: &mut [W],
    narrow: impl Fn(u128) -> W + Sync,
) -> Result<()> {
    // Cut `items` into one slice per batch, dealt to threads in runs.
    let mut slices: Vec<&mut [W]> = Vec::with_capacity(cols.len());
    let mut rest = items;
    for w in offsets.windows(2) {
        let (head, tail) = rest.split_at_mut(w[1] - w[0]);
        slices.push(head);
        rest = tail;
    }
    let per = cols.len().div_ceil(threads.max(1)).max(1);
    let mut jobs: Vec<Vec<(usize, &mut [W])>> = Vec::new();
    for (b, s) in slices.into_iter().enumerate() {
        if b % per == 0 {
            jobs.push(Vec::new());
        }
        jobs.last_mut().expect("a job").push((b, s));
    }
    let work = |job: Vec<(usize, &mut [W])>| {
        let mut codes: Vec<u128> = Vec::new();
        for (b, out) in job {
            codes.clear();
            codes.resize(out.len(), 0);
            for (k, key) in layout.keys.iter().enumerate() {
                let a = cols[b][k].as_ref();
                if key.bits == 0 {
                    continue;
                }
                // Masked: a null slot's value may be out of the range.
                let mask = u128::MAX >> (128 - key.bits);
                with_ordinals!(a, |v| {
                    for (c, o) in codes.iter_mut().zip(v) {
                        *c = (*c << key.bits) | (key.code(o) & mask);
                    }
                })
                .expect("the layout admitted only keys with ordinals");
                if let Some(nulls) = a.logical_nulls() {
                    let null_code = key.null_code();
                    for i in nulls.iter().enumerate().filter(|(_, v)| !v).map(|(i, _)| i) {
                        codes[i] = (codes[i] & !mask) | null_code;
                    }
                }
            }
            let base = offsets[b] as u128;
            let id_bits = bits_for(*offsets.last().unwrap_or(&1) as u128 - 1).max(1);
            for (i, (o, c)) in out.iter_mut().zip(&codes).enumerate() {
                *o = narrow((c << id_bits) | (base + i as u128));
            }
        }
    };
    if jobs.len() <= 1 {
        jobs.into_iter().for_each(work);
    } else {
        std::thread::scope(|s| {
            for job in jobs {
                let work = &work;
                s.spawn(move || work(job));
            }
        });
    }
    Ok(())
}

/// The row id part of an item of the general path.
const ID_MASK: u128 = u32::MAX as u128;

/// An item of the general path: the 8 bytes of `row` from `depth` (zero
/// padded: a row that ends sorts before its extensions) above the id.
#[inline]
fn with_chunk(row: &[u8], depth: usize, id: u128) -> u128 {
    let mut chunk = [0u8; 8];
    if depth < row.len() {
        let len = (row.len() - depth).min(8);
        chunk[..len].copy_from_slice(&row[depth..depth + len]);
    }
    ((u64::from_be_bytes(chunk) as u128) << 64) | id
}

/// Sorts items whose rows agree on their first `depth` bytes: by the next
/// 8 bytes, then each run of equal chunks by the bytes after (an MSD radix
/// sort over 8-byte digits), ids breaking ties. Rows compare only when a
/// run's rows all end within the chunk.
fn sort_by_chunks<'a>(items: &mut [u128], depth: usize, bytes: &impl Fn(u128) -> &'a [u8]) {
    items.sort_unstable();
    let mut i = 0;
    while i < items.len() {
        let chunk = items[i] >> 64;
        let mut j = i + 1;
        while j < items.len() && items[j] >> 64 == chunk {
            j += 1;
        }
        if j - i > 1 {
            let run = &mut items[i..j];
            if run.iter().any(|x| bytes(*x).len() > depth + 8) {
                for x in run.iter_mut() {
                    *x = with_chunk(bytes(*x), depth + 8, *x & ID_MASK);
                }
                sort_by_chunks(run, depth + 8, bytes);
            } else {
                run.sort_unstable_by(|a, b| bytes(*a).cmp(bytes(*b)).then(a.cmp(b)));
            }
        }
        i = j;
    }
}

/// The general path: byte-comparable rows, sorted by 8-byte chunks.
fn sort_by_rows(
    keys: &[SortKey],
    cols: Vec<Vec<ArrayRef>>,
    n: usize,
    fetch: Option<usize>,
    partition_keys: Option<usize>,
    ctx: &ExecContext,
    memory: &mut OwnedReservation,
) -> Result<SortedRows> {
    let threads = ctx.threads;
    // One column per key over all rows, cut into one chunk per thread.
    let mut key_cols = Vec::with_capacity(keys.len());
    for k in 0..keys.len() {
        let parts: Vec<&dyn Array> = cols.iter().map(|b| b[k].as_ref()).collect();
        key_cols.push(arrow_select::concat::concat(&parts)?);
    }
    drop(cols);
    let fields: Vec<SortField> = keys
        .iter()
        .zip(&key_cols)
        .map(|(k, c)| {
            SortField::new_with_options(
                c.data_type().clone(),
                SortOptions {
                    descending: !k.asc,
                    nulls_first: k.nulls_first,
                },
            )
        })
        .collect();
    let converter = RowConverter::new(fields)?;
    let chunk = n.div_ceil(threads.max(1)).max(1);
    let convert = |conv: &RowConverter, cols: &[ArrayRef]| -> Result<Vec<Rows>> {
        par_ranges(n.div_ceil(chunk), ctx, |r| {
            r.map(|c| {
                let start = c * chunk;
                let len = chunk.min(n - start);
                let slices: Vec<ArrayRef> = cols.iter().map(|a| a.slice(start, len)).collect();
                Ok(conv.convert_columns(&slices)?)
            })
            .collect::<Result<Vec<_>>>()
        })
        .map(|v| v.into_iter().flatten().collect())
    };
    let rows = convert(&converter, &key_cols)?;
    memory.grow(rows.iter().map(|r| r.size()).sum::<usize>() + n * 16 * 2)?;
    let row = |id: u128| {
        let id = id as u32 as usize;
        rows[id / chunk].row(id % chunk)
    };
    let bytes = |id: u128| row(id).data();
    let mut items: Vec<u128> = Vec::with_capacity(n);
    for (c, r) in rows.iter().enumerate() {
        for (i, row) in r.iter().enumerate() {
            items.push(with_chunk(row.data(), 0, (c * chunk + i) as u128));
        }
    }
    let cmp = |a: &u128, b: &u128| {
        let (pa, pb) = (a >> 64, b >> 64);
        if pa != pb {
            return pa.cmp(&pb);
        }
        bytes(*a).cmp(bytes(*b)).then(a.cmp(b))
    };
    let sort_run = |run: &mut [u128]| {
        sort_by_chunks(run, 0, &bytes);
        // Back to the first chunk, which the merge compares first.
        for x in run.iter_mut() {
            *x = with_chunk(bytes(*x), 0, *x & ID_MASK);
        }
    };
    let items = par_sort_by(items, threads, fetch, sort_run, cmp);
    let breaks = match partition_keys {
        None => None,
        Some(p) => {
            let p = p.min(keys.len());
            let part_rows = if p > 0 {
                let conv = RowConverter::new(
                    key_cols[..p]
                        .iter()
                        .map(|c| SortField::new(c.data_type().clone()))
                        .collect(),
                )?;
                Some(convert(&conv, &key_cols[..p])?)
            } else {
                None
            };
            let part_row = |id: u128| {
                let id = id as u32 as usize;
                part_rows.as_ref().map(|r| r[id / chunk].row(id % chunk))
            };
            Some(breaks_of(&items, |a, b| {
                if part_row(*a) != part_row(*b) {
                    NEW_PARTITION
                } else if row(*a) != row(*b) {
                    NEW_PEERS
                } else {
                    SAME
                }
            }))
        }
    };
    Ok(SortedRows {
        order: items.iter().map(|x| *x as u32).collect(),
        breaks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::PhysicalExpr;
    use arrow_array::{Float64Array, Int64Array, StringArray};
    use arrow_schema::{Field, Schema};
    use proptest::prelude::*;
    use quiver_collation::{with_collator, Collator};
    use quiver_plan::default_collation;
    use std::cmp::Ordering;

    type Row = (Option<i64>, Option<String>, Option<f64>);

    /// The reference: one key of two rows compared as MySQL does, NULLs
    /// placed by the key's flag.
    fn cmp_key(r: &Row, s: &Row, col: usize) -> Ordering {
        fn nulls<T>(a: &Option<T>, b: &Option<T>, f: impl Fn(&T, &T) -> Ordering) -> Ordering {
            match (a, b) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(x), Some(y)) => f(x, y),
            }
        }
        match col {
            0 => nulls(&r.0, &s.0, |a, b| a.cmp(b)),
            1 => nulls(&r.1, &s.1, |a, b| {
                with_collator!(default_collation(), |c| c
                    .compare(a.as_bytes(), b.as_bytes()))
            }),
            _ => nulls(&r.2, &s.2, |a, b| {
                a.partial_cmp(b).unwrap_or(Ordering::Equal)
            }),
        }
    }

    fn cmp_rows(r: &Row, s: &Row, keys: &[(usize, bool, bool)]) -> Ordering {
        for (col, asc, nulls_first) in keys {
            let mut o = cmp_key(r, s, *col);
            let null_involved = [*col].iter().any(|c| match c {
                0 => r.0.is_none() != s.0.is_none(),
                1 => r.1.is_none() != s.1.is_none(),
                _ => r.2.is_none() != s.2.is_none(),
            });
            if null_involved {
                if !nulls_first {
                    o = o.reverse();
                }
            } else if !asc {
                o = o.reverse();
            }
            if o.is_ne() {
                return o;
            }
        }
        Ordering::Equal
    }

    fn row() -> impl Strategy<Value = Row> {
        let int = prop_oneof![
            proptest::option::of(-4i64..4),
            proptest::option::of(any::<i64>()),
        ];
        let text = proptest::option::of(proptest::string::string_regex("[ab\\tA ]{0,4}").unwrap());
        let float = proptest::option::of(prop_oneof![
            Just(0.0f64),
            Just(-0.0f64),
            Just(1.5),
            Just(-2.0),
            Just(1e300)
        ]);
        (int, text, float)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn sort_matches_reference(
            rows in proptest::collection::vec(row(), 0..300),
            batch_len in 1usize..64,
            keys in proptest::collection::vec((0usize..3, any::<bool>(), any::<bool>()), 1..4),
            fetch in proptest::option::of(0usize..320),
            threads in 1usize..4,
            partition in 0usize..4,
        ) {
            let schema = Arc::new(Schema::new(vec![
                Field::new("i", DataType::Int64, true),
                Field::new("s", DataType::Utf8, true),
                Field::new("f", DataType::Float64, true),
            ]));
            let batches: Vec<RecordBatch> = rows
                .chunks(batch_len)
                .map(|c| {
                    RecordBatch::try_new(
                        schema.clone(),
                        vec![
                            Arc::new(c.iter().map(|r| r.0).collect::<Int64Array>()),
                            Arc::new(c.iter().map(|r| r.1.clone()).collect::<StringArray>()),
                            Arc::new(c.iter().map(|r| r.2).collect::<Float64Array>()),
                        ],
                    )
                    .unwrap()
                })
                .collect();
            let sort_keys: Vec<SortKey> = keys
                .iter()
                .map(|(c, asc, nulls_first)| SortKey {
                    expr: PhysicalExpr::Column(*c),
                    asc: *asc,
                    nulls_first: *nulls_first,
                })
                .collect();
            let partition = partition.min(keys.len());
            let ctx = Arc::new(ExecContext::new(threads, usize::MAX));
            let mut memory = OwnedReservation::new(&ctx);
            let got = sort_batches(&batches, &sort_keys, fetch, Some(partition), &ctx, &mut memory).unwrap();

            let mut want: Vec<u32> = (0..rows.len() as u32).collect();
            want.sort_by(|a, b| {
                cmp_rows(&rows[*a as usize], &rows[*b as usize], &keys).then(a.cmp(b))
            });
            let want_breaks: Vec<u8> = (0..want.len())
                .map(|i| {
                    if i == 0 {
                        return NEW_PARTITION;
                    }
                    let (r, s) = (&rows[want[i - 1] as usize], &rows[want[i] as usize]);
                    if cmp_rows(r, s, &keys[..partition]).is_ne() {
                        NEW_PARTITION
                    } else if cmp_rows(r, s, &keys).is_ne() {
                        NEW_PEERS
                    } else {
                        SAME
                    }
                })
                .collect();
            let n = fetch.unwrap_or(want.len()).min(want.len());
            prop_assert_eq!(&got.order[..], &want[..n]);
            if fetch.is_none() {
                prop_assert_eq!(got.breaks.unwrap(), want_breaks);
            }
        }
    }
}

#[cfg(test)]
mod binary_tests {
    use super::*;
    use crate::context::OwnedReservation;
    use crate::expr::PhysicalExpr;
    use crate::ExecContext;
    use arrow_array::BinaryArray;
    use arrow_schema::{Field, Schema};
    use quiver_collation::Collation;

    /// Binary sort keys order by plain bytes, a prefix first and no
    /// padding ('a' < 'a\0' < 'a '), whatever collation the key carries,
    /// over several batches and in both directions; also in `sort_indices`.
    #[test]
    fn binary_keys_sort_as_bytes() {
        let words: [&[u8]; 9] = [
            b"a ",
            b"a",
            b"a\0",
            b"",
            b"\xFF",
            b"A",
            b"ab",
            b" ",
            b"\xC3\xA9",
        ];
        let vals: Vec<Option<&[u8]>> = (0..90)
            .map(|i| (i % 8 != 2).then(|| words[(i * 4 + i / 9) % words.len()]))
            .collect();
        let schema = Arc::new(Schema::new(vec![Field::new("b", DataType::Binary, true)]));
        let batches: Vec<RecordBatch> = vals
            .chunks(25)
            .map(|c| {
                RecordBatch::try_new(
                    schema.clone(),
                    vec![Arc::new(BinaryArray::from(c.to_vec()))],
                )
                .unwrap()
            })
            .collect();
        let ctx = Arc::new(ExecContext::new(2, usize::MAX));
        for expr in [
            PhysicalExpr::Column(0),
            PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(0)), Collation::binary()),
        ] {
            for asc in [true, false] {
                let keys = [SortKey {
                    expr: expr.clone(),
                    asc,
                    nulls_first: true,
                }];
                let mut memory = OwnedReservation::new(&ctx);
                let got = sort_batches(&batches, &keys, None, None, &ctx, &mut memory).unwrap();
                let mut want: Vec<u32> = (0..vals.len() as u32).collect();
                want.sort_by(|a, b| {
                    let (x, y) = (vals[*a as usize], vals[*b as usize]);
                    let o = match (x, y) {
                        (None, None) => std::cmp::Ordering::Equal,
                        (None, _) => std::cmp::Ordering::Less,
                        (_, None) => std::cmp::Ordering::Greater,
                        (Some(x), Some(y)) if asc => x.cmp(y),
                        (Some(x), Some(y)) => y.cmp(x),
                    };
                    o.then(a.cmp(b))
                });
                assert_eq!(got.order, want, "{expr:?} asc {asc}");
                let one = super::super::sort_indices(&batches[0], &keys, None).unwrap();
                let n = batches[0].num_rows();
                let mut want: Vec<u32> = (0..n as u32).collect();
                want.sort_by(|a, b| {
                    let (x, y) = (vals[*a as usize], vals[*b as usize]);
                    let o = match (x, y) {
                        (None, None) => std::cmp::Ordering::Equal,
                        (None, _) => std::cmp::Ordering::Less,
                        (_, None) => std::cmp::Ordering::Greater,
                        (Some(x), Some(y)) if asc => x.cmp(y),
                        (Some(x), Some(y)) => y.cmp(x),
                    };
                    o.then(a.cmp(b))
                });
                assert_eq!(
                    one.values().to_vec(),
                    want,
                    "sort_indices {expr:?} asc {asc}"
                );
            }
        }
    }
}
