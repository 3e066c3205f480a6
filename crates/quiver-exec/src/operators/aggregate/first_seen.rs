//! Where rows were first seen: positions (a partial table's class, then
//! the morsel) that let the merge of partial tables keep the key spelling
//! and the tied MIN/MAX value of the earliest row, as one scan does.

use std::sync::Arc;

use arrow_array::{cast::AsArray, Array, ArrayRef};
use quiver_collation::Collation;
use quiver_common::{QuiverError, Result};

use crate::context::ScanPosition;
use crate::operators::str_group_map::splice;

/// Whether strings equal under `c` are the same bytes.
pub(super) fn is_exact(c: Collation) -> bool {
    c.is_binary_eq() && !c.is_pad_space()
}

/// Which scan a partial table's positions are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum SeenIn {
    /// No batch yet.
    #[default]
    Nothing,
    /// Every batch came from this scan (`ScanPosition::scan`).
    Scan(usize),
    /// Some batch came from no known scan position, or from another scan:
    /// positions only order the table's own rows.
    Unknown,
}

/// Where the rows of each partial table (in partition order) are in the
/// input, as the high bits of their positions: the partitions of one scan
/// share the class of the first of them (their morsels order their rows),
/// any other partition is a class of its own, and classes go in partition
/// order (the inputs of a UNION ALL in turn).
pub(super) fn order_classes(scans: impl Iterator<Item = SeenIn>) -> Vec<Position> {
    let scans: Vec<SeenIn> = scans.collect();
    (0..scans.len())
        .map(|p| {
            let first = match scans[p] {
                SeenIn::Scan(id) => scans
                    .iter()
                    .position(|s| *s == SeenIn::Scan(id))
                    .unwrap_or(p),
                _ => p,
            };
            (first.min(CLASS_MAX as usize) as Position) << CLASS_SHIFT
        })
        .collect()
}

/// A row's position as far as rows of different partial tables compare:
/// its table's class, then the morsel (or batch) it came in. The rows of
/// one morsel are all in one table, which keeps first-seen order itself.
pub(super) type Position = u32;
pub(super) const CLASS_SHIFT: u32 = 24;
pub(super) const CLASS_MAX: Position = (1 << (Position::BITS - CLASS_SHIFT)) - 1;
pub(super) const MORSEL_MAX: u64 = (1 << CLASS_SHIFT) - 1;
/// The position of a group (or value) not seen.
pub(super) const UNSEEN: Position = Position::MAX;
/// In [`FirstSeen::reps`]: the group shows its own key.
pub(super) const OWN_KEY: u32 = u32::MAX;

impl FirstSeen {
    /// The position of the first row of the next batch (its class bits
    /// 0), from where its scan says it is.
    pub(super) fn batch_position(&mut self, p: Option<ScanPosition>) -> Position {
        self.batches += 1;
        let at = match (p, self.scan) {
            (Some(p), SeenIn::Nothing) => {
                self.scan = SeenIn::Scan(p.scan);
                p.morsel
            }
            (Some(p), SeenIn::Scan(id)) if p.scan == id => p.morsel,
            _ => {
                self.scan = SeenIn::Unknown;
                self.batches
            }
        };
        at.min(MORSEL_MAX) as Position
    }

    /// Notes the position of the groups a batch at `at` made (ids from
    /// `first.len()` up to `groups`).
    pub(super) fn record(&mut self, groups: usize, at: Position) {
        if self.first.len() < groups {
            self.first.resize(groups, at);
        }
    }

    /// Notes the position of the groups a batch made, each at the position
    /// of the row that made it: row `i` (group `ids[i]`) is at the position
    /// of the last of `runs` ((first row, position), in row order) that
    /// starts at or before it. New ids first appear in increasing order.
    pub(super) fn record_rows(&mut self, ids: &[u32], runs: &[(u32, Position)]) {
        let mut run = 0;
        for (i, &g) in ids.iter().enumerate() {
            let g = g as usize;
            if g < self.first.len() {
                continue;
            }
            while run + 1 < runs.len() && runs[run + 1].0 as usize <= i {
                run += 1;
            }
            let at = runs.get(run).map_or(0, |r| r.1);
            self.first.resize(g + 1, at);
        }
    }

    /// Groups shown with the key of a merged table: (group, source, row)
    /// by group, one for each (the last merged).
    pub(super) fn final_reps(&self) -> Vec<(u32, u32, u32)> {
        let mut reps = self.reps.clone();
        // Stable: in merge order within a group.
        reps.sort_by_key(|r| r.0);
        let mut out: Vec<(u32, u32, u32)> = Vec::with_capacity(reps.len());
        for r in reps {
            match out.last_mut() {
                Some(l) if l.0 == r.0 => *l = r,
                _ => out.push(r),
            }
        }
        out
    }

    /// For string key column `c` whose group `g` shows `current(g)` (None:
    /// NULL), the groups to show another key, and that key (in group
    /// order): where the bytes differ (mostly they do not).
    pub(super) fn patches<'a>(
        &'a self,
        reps: &[(u32, u32, u32)],
        c: usize,
        current: impl Fn(usize) -> Option<&'a [u8]>,
    ) -> Vec<(usize, &'a [u8])> {
        let mut patches = vec![];
        for &(g, src, k) in reps {
            let (g, k) = (g as usize, k as usize);
            if src == OWN_KEY {
                continue;
            }
            let Some(o) = self.sources[src as usize][c].as_string_opt::<i32>() else {
                continue;
            };
            if o.is_valid(k) {
                let v = o.value(k).as_bytes();
                if current(g).is_some_and(|cur| cur != v) {
                    patches.push((g, v));
                }
            }
        }
        patches
    }

    /// The key columns `keys` (one value per group) with the keys of
    /// groups first seen in a merged table taken from that table, where
    /// their bytes differ.
    pub(super) fn representatives(&self, keys: Vec<ArrayRef>) -> Result<Vec<ArrayRef>> {
        if self.reps.is_empty() {
            return Ok(keys);
        }
        let reps = self.final_reps();
        keys.iter()
            .enumerate()
            .map(|(c, a)| {
                let Some(s) = a.as_string_opt::<i32>() else {
                    // Values of other types that group together are the same.
                    return Ok(a.clone());
                };
                let patches =
                    self.patches(&reps, c, |g| s.is_valid(g).then(|| s.value(g).as_bytes()));
                Ok(match patches.is_empty() {
                    true => a.clone(),
                    false => Arc::new(patch_strings(s, &patches)?) as ArrayRef,
                })
            })
            .collect()
    }
}

/// `a` with the values of rows `patches` (in row order) replaced.
pub(super) fn patch_strings(
    a: &arrow_array::StringArray,
    patches: &[(usize, &[u8])],
) -> Result<arrow_array::StringArray> {
    let offsets = a.value_offsets();
    let (offsets, bytes) = splice(a.len(), |i| offsets[i] as usize, a.value_data(), patches)?;
    arrow_array::StringArray::try_new(
        arrow_buffer::OffsetBuffer::new(offsets.into()),
        bytes.into(),
        a.nulls().cloned(),
    )
    .map_err(|e| QuiverError::internal(format!("GROUP BY keys: {e}")))
}

/// First-seen bookkeeping of a partial table (see
/// [`AggregateExec::run`](super::AggregateExec::run)).
#[derive(Debug, Default)]
pub(super) struct FirstSeen {
    /// Which scan the positions are in.
    pub(super) scan: SeenIn,
    /// Batches so far: the position of a batch no scan position came with.
    pub(super) batches: u64,
    /// Whether positions are kept at all.
    pub(super) on: bool,
    /// Per group, the position of its first row.
    pub(super) first: Vec<Position>,
    /// Groups whose first row is in a table merged in later, in merge
    /// order (a later entry for a group replaces an earlier one): group
    /// `.0` shows row `.2` of `sources[.1]` (its own key for `OWN_KEY`).
    pub(super) reps: Vec<(u32, u32, u32)>,
    /// Key arrays of merged tables that hold some group's first row.
    pub(super) sources: Vec<Vec<ArrayRef>>,
}

#[cfg(test)]
mod first_seen_tests {
    use super::super::group_table::GroupTable;
    use super::super::spec::AggregateSpec;
    use super::*;
    use crate::context::ScanPosition;
    use crate::expr::PhysicalExpr;
    use arrow_array::RecordBatch;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::DataType;
    use arrow_schema::{Field, Schema};
    use quiver_collation::Collation;
    use quiver_plan::AggFunc;

    fn batch(ids: &[i64], strs: &[&str]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(ids.to_vec())),
                Arc::new(StringArray::from(strs.to_vec())),
            ],
        )
        .unwrap()
    }

    fn strings(a: &ArrayRef) -> Vec<String> {
        a.as_string::<i32>()
            .iter()
            .map(|s| s.unwrap_or("NULL").to_string())
            .collect()
    }

    /// Two partitions of one scan that took its morsels out of order: the
    /// first partition morsel 1, the second morsel 0. Keys and tied MINs
    /// show the spelling of morsel 0's rows.
    #[test]
    fn merge_keeps_the_spelling_of_the_earliest_row() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let s = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let min = AggregateSpec {
            func: AggFunc::Min,
            arg: Some(s.clone()),
            distinct: false,
            output_type: DataType::Utf8,
            text: String::new(),
            concat: None,
        };
        // One string key (StrGroupMap), a string and an integer (the
        // general table), a default-collation key whose spellings differ in
        // trailing spaces (packed keys that stop packing).
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>)> = vec![
            (vec![s.clone()], vec![DataType::Utf8]),
            (
                vec![s.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Utf8, DataType::Int64],
            ),
            (vec![PhysicalExpr::Column(1)], vec![DataType::Utf8]),
        ];
        for (shape, (group, types)) in shapes.into_iter().enumerate() {
            let aggs = vec![min.clone()];
            let (early, late) = if shape == 2 {
                (
                    batch(&[0, 0, 0], &["ab", "cd ", "x"]),
                    batch(&[0, 0, 0, 0], &["x", "ab  ", "cd", "e"]),
                )
            } else {
                (
                    batch(&[0, 0, 0], &["ab", "Cd ", "x"]),
                    batch(&[0, 0, 0, 0], &["x", "AB ", "cd", "e"]),
                )
            };
            let run = |parts: Vec<(u64, &RecordBatch)>| {
                let mut tables = vec![];
                for (p, (morsel, b)) in parts.into_iter().enumerate() {
                    let mut t = GroupTable::tracking(&types, &aggs, true, true);
                    let at = t.batch_position(Some(ScanPosition { scan: 7, morsel }));
                    t.update_at(b, &group, &aggs, at).unwrap();
                    tables.push((p, t));
                }
                let classes = order_classes(tables.iter().map(|(_, t)| t.seen.scan));
                let mut it = tables.into_iter().zip(classes);
                let ((_, mut total), class) = it.next().unwrap();
                total.set_class(class);
                for ((_, t), class) in it {
                    total.merge_in(t, class, true).unwrap();
                }
                let mut fields: Vec<Field> = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                    .collect();
                fields.push(Field::new("m", DataType::Utf8, true));
                let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
                let keys = strings(out.column(0));
                let mins = strings(out.column(out.num_columns() - 1));
                let mut rows: Vec<(String, String)> = keys.into_iter().zip(mins).collect();
                rows.sort();
                rows
            };
            let in_order = run(vec![(0, &early), (1, &late)]);
            let swapped = run(vec![(1, &late), (0, &early)]);
            assert_eq!(in_order, swapped, "shape {shape}");
            let want: Vec<(String, String)> = if shape == 2 {
                vec![("ab", "ab"), ("cd ", "cd "), ("e", "e"), ("x", "x")]
            } else {
                vec![("Cd ", "Cd "), ("ab", "ab"), ("e", "e"), ("x", "x")]
            }
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
            assert_eq!(in_order, want, "shape {shape}");
        }
    }

    /// Three partitions: the key a group shows is that of the earliest of
    /// the three, also when a later merge brings back our own spelling.
    #[test]
    fn three_partitions_show_the_earliest_spelling() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let s = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>)> = vec![
            (vec![s.clone()], vec![DataType::Utf8]),
            (
                vec![s.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Utf8, DataType::Int64],
            ),
        ];
        // (morsel, spelling) of each partition; the earliest wins.
        let cases: Vec<(Vec<(u64, &str)>, &str)> = vec![
            (vec![(5, "a"), (2, "A"), (1, "a")], "a"),
            (vec![(5, "a"), (2, "A"), (1, "a ")], "a "),
            (vec![(5, "a"), (2, "A"), (3, "a ")], "A"),
            (vec![(1, "a"), (2, "A"), (3, "a ")], "a"),
            (vec![(3, "a"), (2, "a"), (1, "A")], "A"),
        ];
        for (shape, (group, types)) in shapes.iter().enumerate() {
            for (parts, want) in &cases {
                let aggs: Vec<AggregateSpec> = vec![];
                let mut tables = vec![];
                for (morsel, v) in parts {
                    let mut t = GroupTable::tracking(types, &aggs, true, false);
                    let at = t.batch_position(Some(ScanPosition {
                        scan: 7,
                        morsel: *morsel,
                    }));
                    t.update_at(&batch(&[0, 0], &[v, "b"]), group, &aggs, at)
                        .unwrap();
                    tables.push(t);
                }
                let classes = order_classes(tables.iter().map(|t| t.seen.scan));
                let n = tables.len();
                let mut it = tables.into_iter().zip(classes).enumerate();
                let (_, (mut total, class)) = it.next().unwrap();
                total.set_class(class);
                for (i, (t, class)) in it {
                    total.merge_in(t, class, i + 1 == n).unwrap();
                }
                let keys = total.shown_keys().unwrap().unwrap();
                assert_eq!(
                    strings(&keys[0]),
                    vec![want.to_string(), "b".to_string()],
                    "shape {shape} {parts:?}"
                );
            }
        }
    }

    #[test]
    fn patched_strings_keep_the_other_rows() {
        let a = StringArray::from(vec![
            Some("zz"),
            Some("ab"),
            None,
            Some(""),
            Some("cd "),
            Some("e"),
        ]);
        let a = a.slice(1, 5);
        let out = patch_strings(&a, &[(0, b"AB  ".as_slice()), (3, b"CD"), (4, b"")]).unwrap();
        let got: Vec<Option<&str>> = out.iter().collect();
        assert_eq!(
            got,
            vec![Some("AB  "), None, Some(""), Some("CD"), Some("")]
        );
        let out = patch_strings(&a, &[(2, b"x".as_slice())]).unwrap();
        let got: Vec<Option<&str>> = out.iter().collect();
        assert_eq!(
            got,
            vec![Some("ab"), None, Some("x"), Some("cd "), Some("e")]
        );
    }

    #[test]
    fn partitions_of_one_scan_share_a_class() {
        let scans = [
            SeenIn::Scan(7),
            SeenIn::Scan(7),
            SeenIn::Scan(9),
            SeenIn::Unknown,
            SeenIn::Scan(9),
            SeenIn::Nothing,
        ];
        let classes: Vec<Position> = order_classes(scans.into_iter())
            .into_iter()
            .map(|c| c >> CLASS_SHIFT)
            .collect();
        assert_eq!(classes, vec![0, 0, 2, 3, 2, 5]);
    }
}
