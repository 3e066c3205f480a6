//! The page type summary of `innochecksum -S` (and the leaf statistics of `-f`),
//! accumulated page by page in file order.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::format::{page_type, FIL_NULL};
use crate::scan::{PageInfo, Status};

/// Rows of the summary table, in innochecksum's order.
pub const TYPE_ROWS: [&str; 15] = [
    "Index page",
    "Undo log page",
    "Inode page",
    "Insert buffer free list page",
    "Freshly allocated page",
    "Insert buffer bitmap",
    "System page",
    "Transaction system page",
    "File Space Header",
    "Extent descriptor page",
    "BLOB page",
    "Compressed BLOB page",
    "Page compressed page",
    "Page compressed encrypted page",
    "Other type of page",
];

/// Row of [`TYPE_ROWS`] a page type is counted in; `None` for the subsequent
/// compressed BLOB pages, which innochecksum counts but never prints.
pub fn type_row(t: u16) -> Option<usize> {
    Some(match t {
        page_type::INDEX => 0,
        page_type::UNDO_LOG => 1,
        page_type::INODE => 2,
        page_type::IBUF_FREE_LIST => 3,
        page_type::ALLOCATED => 4,
        page_type::IBUF_BITMAP => 5,
        page_type::SYS => 6,
        page_type::TRX_SYS => 7,
        page_type::FSP_HDR => 8,
        page_type::XDES => 9,
        page_type::BLOB => 10,
        page_type::ZBLOB => 11,
        page_type::ZBLOB2 => return None,
        page_type::PAGE_COMPRESSED => 12,
        page_type::PAGE_COMPRESSED_ENCRYPTED => 13,
        _ => 14,
    })
}

const SIZE_RANGES: usize = 10;

/// One leaf page, for `-f`.
#[derive(Debug, Clone, Copy, Default)]
pub struct LeafStats {
    pub n_recs: u64,
    pub data_size: u64,
    pub prev: u32,
    pub next: u32,
}

/// Per-index numbers of the summary.
#[derive(Debug, Clone, Default)]
pub struct IndexStats {
    pub pages: u64,
    pub leaf_pages: u64,
    pub first_leaf_page: u32,
    /// Leaf pages without a left neighbour (normally 1).
    pub leftmost_leaves: u64,
    pub free_pages: u64,
    pub max_data_size: u64,
    pub total_n_recs: u64,
    pub total_data_bytes: u64,
    /// Pages by how full they are: empty, 10 ranges, oversized.
    pub size_histogram: [u64; SIZE_RANGES + 2],
    pub leaves: BTreeMap<u32, LeafStats>,
}

/// The whole summary of one file.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub type_counts: [u64; 15],
    pub undo_pages: u64,
    /// Undo segment states: active, cached, to purge, prepared, other.
    pub undo_states: [u64; 5],
    pub indexes: BTreeMap<u64, IndexStats>,
    /// Leave out pages the extent descriptor marks free (`-r`).
    pub skip_free: bool,
}

impl Summary {
    pub fn new(skip_free: bool) -> Summary {
        Summary {
            skip_free,
            ..Summary::default()
        }
    }

    /// Count one page. `logical_page_size` scales the fill histogram;
    /// `encrypted`: index headers are ciphertext, only the type is counted.
    pub fn add(&mut self, p: &PageInfo, logical_page_size: usize, encrypted: bool) {
        // -r leaves out free pages and the doublewrite buffer (copies of other pages).
        if self.skip_free && (p.free_by_stored_no || p.status == Status::SkippedDoublewrite) {
            return;
        }
        if let Some(row) = type_row(p.page_type) {
            self.type_counts[row] += 1;
        }
        if p.page_type == page_type::UNDO_LOG {
            self.undo_pages += 1;
            let i = match p.undo_state {
                1 => 0,
                2 => 1,
                4 => 2,
                5 => 3,
                _ => 4,
            };
            self.undo_states[i] += 1;
        }
        let Some(ix) = p.index.filter(|_| !encrypted) else {
            return;
        };
        let data_bytes = index_data_bytes(&ix);
        let stats = self.indexes.entry(ix.index_id).or_default();
        if p.free_by_stored_no {
            stats.free_pages += 1;
            return;
        }
        stats.pages += 1;
        if ix.level == 0 {
            stats.leaf_pages += 1;
            stats.max_data_size = stats.max_data_size.max(data_bytes);
            stats.leaves.insert(
                p.stored_page_no,
                LeafStats {
                    n_recs: u64::from(ix.n_recs),
                    data_size: data_bytes,
                    prev: ix.prev,
                    next: ix.next,
                },
            );
            if ix.prev == FIL_NULL {
                stats.first_leaf_page = p.stored_page_no;
                stats.leftmost_leaves += 1;
            }
        }
        stats.total_n_recs += u64::from(ix.n_recs);
        stats.total_data_bytes = stats.total_data_bytes.wrapping_add(data_bytes);
        let ps = logical_page_size as u64;
        let range = (data_bytes
            .wrapping_mul(SIZE_RANGES as u64)
            .wrapping_add(ps - 1)
            / ps)
            .min(SIZE_RANGES as u64 + 1);
        stats.size_histogram[range as usize] += 1;
    }

    /// The text `innochecksum -S` prints after `File::<name>` (and, with `leaf`,
    /// the `-f` table; with `verbose` the leaf chains).
    pub fn render(&self, leaf: bool, verbose: bool, merge: u64) -> String {
        let mut s = String::new();
        s += "\n================PAGE TYPE SUMMARY==============\n";
        s += "#PAGE_COUNT\tPAGE_TYPE";
        s += "\n===============================================\n";
        for (count, name) in self.type_counts.iter().zip(TYPE_ROWS) {
            let _ = writeln!(s, "{count:8}\t{name}");
        }
        s += "\n===============================================\n";
        s += "Additional information:\n";
        let _ = writeln!(s, "Undo page type: {}", self.undo_pages);
        let u = &self.undo_states;
        let _ = writeln!(
            s,
            "Undo page state: {} active, {} cached, {} to_purge, {} prepared, {} other",
            u[0], u[1], u[2], u[3], u[4]
        );
        s += "index_id\t#pages\t\t#leaf_pages\t#recs_per_page\t#bytes_per_page\n";
        for (id, ix) in &self.indexes {
            // An index seen only on free pages has no average (innochecksum divides by zero).
            let per = |t: u64| t.checked_div(ix.pages).unwrap_or(0);
            let _ = writeln!(
                s,
                "{}\t\t{}\t\t{}\t\t{}\t\t{}",
                *id as i64,
                ix.pages as i64,
                ix.leaf_pages as i64,
                per(ix.total_n_recs) as i64,
                per(ix.total_data_bytes) as i64
            );
        }
        s += "\n";
        s += "index_id\tpage_data_bytes_histgram(empty,...,oversized)\n";
        for (id, ix) in &self.indexes {
            let _ = write!(s, "{}\t", *id as i64);
            for n in ix.size_histogram {
                let _ = write!(s, "\t{}", n as i64);
            }
            s += "\n";
        }
        if leaf {
            s += "\n**************************************************\n";
            s += "index_id\t#leaf_pages\t#actual_leaf_pages\tn_merge\t#leaf_after_merge\tdefrag\n";
            for (id, ix) in &self.indexes {
                if verbose {
                    let _ = write!(
                        s,
                        "\nindex: {id} leaf page stats: n_pages = {}\npage_no\tdata_size\tn_recs\n",
                        ix.leaf_pages
                    );
                    let mut seen = std::collections::HashSet::new();
                    let mut at = ix.leaves.get_key_value(&ix.first_leaf_page);
                    while let Some((no, st)) = at {
                        if !seen.insert(*no) {
                            break; // a damaged chain may loop
                        }
                        let _ = writeln!(s, "{no}\t{}\t{}", st.data_size, st.n_recs);
                        at = ix.leaves.get_key_value(&st.next);
                    }
                }
                if merge > 0 {
                    defrag(&mut s, *id, ix, merge);
                }
            }
        }
        s
    }
}

/// Bytes of records on an index page: heap top minus the page's fixed records
/// (infimum/supremum end at 120 in COMPACT pages, 125 in REDUNDANT) minus garbage.
/// Unsigned and wrapping, as innochecksum computes it.
pub fn index_data_bytes(ix: &crate::scan::IndexHeader) -> u64 {
    let supremum_end: u64 = if ix.compact { 120 } else { 125 };
    u64::from(ix.heap_top)
        .wrapping_sub(supremum_end)
        .wrapping_sub(u64::from(ix.garbage))
}

/// How many leaf pages an index would need if every `merge` neighbours were merged.
fn defrag(s: &mut String, id: u64, ix: &IndexStats, merge: u64) {
    let mut n_pages = 0u64;
    let mut n_leaf_pages = 0u64;
    let mut seen = std::collections::HashSet::new();
    let mut at = ix.leaves.get(&ix.first_leaf_page);
    while let Some(first) = at {
        let mut total = 0u64;
        let mut cur = Some(first);
        for _ in 0..merge {
            let Some(st) = cur else { break };
            n_leaf_pages += 1;
            total = total.wrapping_add(st.data_size);
            cur = if seen.insert(st.next) {
                ix.leaves.get(&st.next)
            } else {
                None
            };
        }
        at = cur;
        if ix.max_data_size > 0 {
            n_pages += total.div_ceil(ix.max_data_size);
        }
    }
    if ix.leaf_pages > 0 {
        let _ = writeln!(s, "count = {} free = {}", ix.leftmost_leaves, ix.free_pages);
    }
    let denom = n_leaf_pages.max(1);
    let _ = writeln!(
        s,
        "{id}\t\t{}\t\t{n_leaf_pages}\t\t{merge}\t\t{n_pages}\t\t{:.2}\t{}",
        ix.leaf_pages,
        1.0 - n_pages as f64 / denom as f64,
        ix.max_data_size
    );
}
