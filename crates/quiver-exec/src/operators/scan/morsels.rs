//! The morsels of a scan: slices of the table's row groups (those zone maps
//! keep), handed out one at a time to the scan's partitions.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use arrow_array::RecordBatch;
use quiver_collation::{RowHints, RowShape};
use quiver_plan::SpaceEnds;

#[derive(Debug)]
pub(super) struct Morsels {
    pub(super) batches: Arc<Vec<RecordBatch>>,
    /// `[batch][output column]`: the row shape storage recorded for a text
    /// column of that row group, for the filters' equality kernels.
    pub(super) shapes: Vec<Vec<Option<RowShape>>>,
    /// `[output column]`: which rows of a text column end in a space, when
    /// storage found out (empty when unknown).
    pub(super) ends_in_space: Vec<Option<SpaceEnds>>,
    /// (batch index, offset, length)
    pub(super) slices: Vec<(usize, usize, usize)>,
    pub(super) next: AtomicUsize,
    /// Row groups (batches) skipped by zone maps, of all.
    pub(super) skipped: usize,
    pub(super) groups: usize,
}

impl Morsels {
    /// What storage knows of the text columns of the `off..` rows of batch
    /// `b`, for the filters' equality kernels (empty when nothing).
    pub(super) fn hints(&self, b: usize, off: usize) -> Vec<Option<RowHints<'_>>> {
        let Some(shapes) = self.shapes.get(b) else {
            return Vec::new();
        };
        shapes
            .iter()
            .enumerate()
            .map(|(c, shape)| {
                let shape = (*shape)?;
                // A bitmap word covers 64 rows: usable from a morsel that
                // starts on one.
                let ends_in_space = match off % 64 {
                    0 => self
                        .ends_in_space
                        .get(c)
                        .and_then(|e| e.as_ref()?.get(b)?.as_deref()?.get(off / 64..)),
                    _ => None,
                };
                Some(RowHints {
                    shape,
                    ends_in_space,
                })
            })
            .collect()
    }
}
