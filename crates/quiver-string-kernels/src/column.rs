//! Column-at-a-time helpers over Arrow-style string columns.
//!
//! A column of `n` strings is `offsets` (`n + 1` entries) and one `values`
//! buffer; row `i` is `values[offsets[i]..offsets[i + 1]]`. Results go into a
//! bitmask of `u64` words: bit `i % 64` of word `i / 64` is set when row `i`
//! matches. Words covering rows are overwritten; bits past the last row are
//! zero, and words past them are not touched.

use std::fmt;

use crate::constant::{FoldedMatch, PreparedConstant, PreparedFoldedConstant};
use crate::finder::SubstringFinder;
use crate::isa::Isa;

/// An offset type of a string column (`i32` for Utf8/Binary, `i64` for the
/// Large variants). Sealed: implemented for exactly those two.
pub trait Offset: Copy + Into<i64> + sealed::Sealed {
    /// The offset as an index, or `None` if it is negative or too large.
    fn to_index(self) -> Option<usize>;

    /// The offset as an index, for offsets already checked with
    /// [`Offset::to_index`] (a plain cast; garbage, never UB, otherwise).
    fn index(self) -> usize;

    /// Bit `i` set when row `i` of `block` (`block.len() - 1 <= 64` rows,
    /// validated offsets) has length `k` (or at least `k` when `at_least`).
    #[doc(hidden)]
    fn length_bits(block: &[Self], k: usize, at_least: bool, isa: Isa) -> u64;

    /// Bit `i` set when row `i` of `block` has length `k` or `k + 1` (one
    /// pass, one mask: PAD SPACE equality with at most one trailing space).
    #[doc(hidden)]
    fn length_bits_k_or_next(block: &[Self], k: usize, isa: Isa) -> u64;

    /// Bit `i` set when row `i`'s length, less one where bit `i` of `minus`
    /// is set, is `k` (the rows of trimmed length `k`, when no row ends in
    /// more than one space and `minus` marks those that end in one).
    #[doc(hidden)]
    fn length_minus_bits(block: &[Self], k: usize, minus: u64, isa: Isa) -> u64;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// [`Offset::length_bits_k_or_next`] one row at a time.
#[inline]
fn length_bits_k_or_next_scalar<O: Offset>(block: &[O], k: usize) -> u64 {
    let mut bits = 0;
    for (i, w) in block.windows(2).enumerate() {
        let len = w[1].index() - w[0].index();
        bits |= u64::from(len == k || k.checked_add(1) == Some(len)) << i;
    }
    bits
}

/// [`Offset::length_minus_bits`] one row at a time.
#[inline]
fn length_minus_bits_scalar<O: Offset>(block: &[O], k: usize, minus: u64) -> u64 {
    let mut bits = 0;
    for (i, w) in block.windows(2).enumerate() {
        let len = w[1].index() - w[0].index();
        let less = usize::from(minus >> i & 1 == 1);
        bits |= u64::from(len.checked_sub(less) == Some(k)) << i;
    }
    bits
}

/// [`Offset::length_bits`] one row at a time.
#[inline]
fn length_bits_scalar<O: Offset>(block: &[O], k: usize, at_least: bool) -> u64 {
    let mut bits = 0;
    for (i, w) in block.windows(2).enumerate() {
        let len = w[1].index() - w[0].index();
        let hit = if at_least { len >= k } else { len == k };
        bits |= u64::from(hit) << i;
    }
    bits
}

macro_rules! offset_impl {
    ($t:ty, $avx2:ident, $k_or_next:ident, $minus:ident) => {
        impl Offset for $t {
            #[inline(always)]
            fn to_index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }

            #[inline(always)]
            fn index(self) -> usize {
                self as usize
            }

            #[inline]
            fn length_bits(block: &[Self], k: usize, at_least: bool, isa: Isa) -> u64 {
                match isa {
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 if block.len() == 65 => {
                        // SAFETY: `isa` came from `Isa::active()` or
                        // `Isa::checked()` (through a prepared operand), which
                        // yield `Avx2` only on CPUs that support AVX2.
                        unsafe { crate::avx2::$avx2(block, k, at_least) }
                    }
                    _ => length_bits_scalar(block, k, at_least),
                }
            }

            #[inline]
            fn length_bits_k_or_next(block: &[Self], k: usize, isa: Isa) -> u64 {
                match isa {
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 if block.len() == 65 => {
                        // SAFETY: as in `length_bits`: `Avx2` only where the
                        // CPU supports it.
                        unsafe { crate::avx2::$k_or_next(block, k) }
                    }
                    _ => length_bits_k_or_next_scalar(block, k),
                }
            }

            #[inline]
            fn length_minus_bits(block: &[Self], k: usize, minus: u64, isa: Isa) -> u64 {
                match isa {
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 if block.len() == 65 => {
                        // SAFETY: as in `length_bits`: `Avx2` only where the
                        // CPU supports it.
                        unsafe { crate::avx2::$minus(block, k, minus) }
                    }
                    _ => length_minus_bits_scalar(block, k, minus),
                }
            }
        }
    };
}

offset_impl!(
    i32,
    length_bits_i32,
    length_bits_k_or_next_i32,
    length_minus_bits_i32
);
offset_impl!(
    i64,
    length_bits_i64,
    length_bits_k_or_next_i64,
    length_minus_bits_i64
);

/// Why a column helper rejected its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OffsetsError {
    /// Row `row`'s offsets are negative, decreasing, or past the end of `values`.
    BadRange {
        row: usize,
        start: i64,
        end: i64,
        values_len: usize,
    },
    /// `out` has fewer words than the rows need.
    OutputTooShort { needed_words: usize, words: usize },
    /// A [`RowHints::ends_in_space`] bitmap has fewer words than the rows need.
    HintsTooShort { needed_words: usize, words: usize },
}

impl fmt::Display for OffsetsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OffsetsError::BadRange {
                row,
                start,
                end,
                values_len,
            } => write!(
                f,
                "string column row {row}: offsets {start}..{end} are not a range within the {values_len}-byte values buffer"
            ),
            OffsetsError::OutputTooShort {
                needed_words,
                words,
            } => write!(
                f,
                "result bitmask has {words} words, the column needs {needed_words}"
            ),
            OffsetsError::HintsTooShort {
                needed_words,
                words,
            } => write!(
                f,
                "trailing-space bitmap has {words} words, the column needs {needed_words}"
            ),
        }
    }
}

impl std::error::Error for OffsetsError {}

/// What is known of a column's rows beyond their bytes (a storage page's
/// statistics): with it, equality under PAD SPACE or ASCII case folding
/// need not read rows too long to match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowShape {
    /// No row ends in more than this many spaces (0x20); `None`: unknown.
    pub max_trailing_spaces: Option<usize>,
    /// Every byte of every row is ASCII.
    pub ascii: bool,
}

/// What is known of a column's rows before reading them: their page's
/// [`RowShape`] and, when storage worked it out, which rows end in a space.
/// Both must be true of the rows (they decide which rows are read).
#[derive(Clone, Copy, Debug, Default)]
pub struct RowHints<'a> {
    pub shape: RowShape,
    /// Bit `i % 64` of word `i / 64` set when row `i` ends in a space (0x20),
    /// for every row of the offsets given with it (see [`ends_in_space`]).
    /// Under PAD SPACE a row ending in a space is shorter once trimmed, so
    /// equality reads only rows whose trimmed length can match: as many as
    /// an exact compare reads, where without it rows one byte shorter are
    /// read too.
    pub ends_in_space: Option<&'a [u64]>,
}

impl From<RowShape> for RowHints<'_> {
    fn from(shape: RowShape) -> Self {
        RowHints {
            shape,
            ends_in_space: None,
        }
    }
}

/// Sets bit `i` of `out` (as [`RowHints::ends_in_space`]) when row `i` of
/// the column ends in a space. One pass over the rows' last bytes: storage
/// runs it as it reads a page, whose bytes are then in cache.
///
/// Errors (and leaves `out` unspecified) if the offsets are not a valid
/// column over `values` or `out` is too short.
pub fn ends_in_space<O: Offset>(
    offsets: &[O],
    values: &[u8],
    out: &mut [u64],
) -> Result<(), OffsetsError> {
    validated(offsets, values.len())?;
    let rows = row_count(offsets);
    let out = prepare_out(rows, out)?;
    for (w, word) in out.iter_mut().enumerate() {
        let block = &offsets[w * 64..=(w * 64 + 64).min(rows)];
        let mut bits = 0u64;
        for (i, pair) in block.windows(2).enumerate() {
            let (start, end) = (pair[0].index(), pair[1].index());
            // An empty row ends in nothing; `end - 1` is then another row's.
            let last = if end > start { values[end - 1] } else { 0 };
            bits |= u64::from(last == b' ') << i;
        }
        *word = bits;
    }
    Ok(())
}

/// Number of rows of a column with these offsets.
#[inline]
fn row_count<O>(offsets: &[O]) -> usize {
    offsets.len().saturating_sub(1)
}

/// Checks that `out` has a word for every row, then clears those words.
fn prepare_out(rows: usize, out: &mut [u64]) -> Result<&mut [u64], OffsetsError> {
    let needed_words = rows.div_ceil(64);
    if out.len() < needed_words {
        return Err(OffsetsError::OutputTooShort {
            needed_words,
            words: out.len(),
        });
    }
    let words = &mut out[..needed_words];
    words.fill(0);
    Ok(words)
}

/// The offsets as indexes into `values`, once checked: non-negative,
/// non-decreasing, and at most `values.len()`. One branch-free pass (the
/// common case, valid offsets, costs a compare per row); only a bad column
/// pays for finding which row is wrong.
pub fn validated<O: Offset>(offsets: &[O], values_len: usize) -> Result<(), OffsetsError> {
    let in_order = offsets
        .windows(2)
        .fold(true, |ok, w| ok & (w[0].into() <= w[1].into()));
    let first_ok = offsets.first().is_none_or(|&o| o.into() >= 0);
    let last_ok = offsets
        .last()
        .is_none_or(|&o| o.to_index().is_some_and(|e| e <= values_len));
    if in_order && first_ok && last_ok {
        return Ok(());
    }
    for row in 0..row_count(offsets) {
        let (start, end) = (offsets[row], offsets[row + 1]);
        match (start.to_index(), end.to_index()) {
            (Some(s), Some(e)) if s <= e && e <= values_len => {}
            _ => {
                return Err(OffsetsError::BadRange {
                    row,
                    start: start.into(),
                    end: end.into(),
                    values_len,
                })
            }
        }
    }
    // A single offset past the end (a column of no rows) is still harmless.
    Ok(())
}

/// Calls `f(i)` for each set bit `i` of `bits`, lowest first.
#[inline(always)]
fn for_each_bit(mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// `col = const` for every row: exact byte equality, or binary PAD SPACE
/// equality (trailing 0x20s ignored) when `pad_space`.
///
/// Errors (and leaves `out` unspecified) if the offsets are not a valid
/// column over `values` or `out` is too short.
pub fn eq_const_offsets<O: Offset>(
    offsets: &[O],
    values: &[u8],
    c: &PreparedConstant,
    pad_space: bool,
    out: &mut [u64],
) -> Result<(), OffsetsError> {
    eq_const_offsets_shaped(offsets, values, c, pad_space, RowHints::default(), out)
}

/// [`eq_const_offsets`] over rows of known [`RowHints`]: under PAD SPACE
/// a row longer than the trimmed constant matches only if the rest is
/// spaces, so with at most `m` trailing spaces only rows up to `m` bytes
/// longer are candidates (none when no row ends in a space), and the
/// length test alone rules out the rest, as for an exact compare. Knowing
/// which rows end in a space rules out the longer rows that do not and the
/// rows of the trimmed length that do.
///
/// Errors (and leaves `out` unspecified) if the offsets are not a valid
/// column over `values`, `out` is too short, or the hints' bitmap does not
/// cover the rows.
pub fn eq_const_offsets_shaped<O: Offset>(
    offsets: &[O],
    values: &[u8],
    c: &PreparedConstant,
    pad_space: bool,
    hints: RowHints<'_>,
    out: &mut [u64],
) -> Result<(), OffsetsError> {
    let shape = hints.shape;
    // The compared length: the whole constant, or under PAD SPACE the
    // trimmed constant (then longer rows can match too, if the rest is spaces).
    let k = if pad_space {
        c.trimmed().len()
    } else {
        c.bytes().len()
    };
    // A one-byte constant: 64 one-byte rows are one vector compare.
    let byte = c.bytes().first().copied().unwrap_or(0);
    let isa = c.isa();
    let dense = |b: &[u8; 64]| Some(crate::kernels::run_on!(isa, eq2_masks64(b, byte, byte))[0]);
    if pad_space {
        // Longer rows rarely start with the constant, so branching on that
        // is cheap and skips the trailing-space check.
        let longest = shape
            .max_trailing_spaces
            .map_or(usize::MAX, |m| k.saturating_add(m));
        eq_by_length(
            offsets,
            values,
            k,
            longest,
            hints.ends_in_space,
            isa,
            out,
            |v| c.trimmed_eq_same_len(v),
            |v| c.pad_space_eq_not_shorter(v),
            dense,
        )
    } else {
        eq_by_length(
            offsets,
            values,
            k,
            k,
            None,
            isa,
            out,
            |v| c.eq_same_len(v),
            |_| false,
            dense,
        )
    }
}

/// `col = const` under a case-insensitive collation in which every ASCII
/// byte is one character weighing as its upper case, every character has
/// exactly one weight and only the space (0x20) weighs as a space
/// (`utf8mb4_general_ci`, `latin1_swedish_ci`, ...), for an ASCII constant.
/// With `k` the constant's length (without trailing spaces under
/// `pad_space`), a row is:
///
/// - shorter than `k` bytes: unequal (too few characters);
/// - starting with an ASCII byte that differs from the constant's first
///   byte once folded (`k > 0`): unequal;
/// - else, when its first `k` bytes are ASCII: equal iff they equal the
///   constant with letters folded and the rest of the row is empty, or all
///   0x20 under `pad_space`;
/// - else `not_ascii(row)`, which the caller answers from the collation
///   (a non-ASCII character may weigh as an ASCII letter, 'é' = 'E').
///
/// The length test runs 64 rows at a time from the offsets alone, as in
/// [`eq_const_offsets`]. Errors (and leaves `out` unspecified) if the
/// offsets are not a valid column over `values` or `out` is too short.
pub fn eq_const_folded_offsets<O: Offset>(
    offsets: &[O],
    values: &[u8],
    c: &PreparedFoldedConstant,
    pad_space: bool,
    out: &mut [u64],
    not_ascii: impl FnMut(&[u8]) -> bool,
) -> Result<(), OffsetsError> {
    eq_const_folded_offsets_shaped(
        offsets,
        values,
        c,
        pad_space,
        RowHints::default(),
        out,
        not_ascii,
    )
}

/// [`eq_const_folded_offsets`] over rows of known [`RowHints`]: when every
/// row is ASCII, a longer row is a candidate only for its trailing spaces
/// under PAD SPACE (a non-ASCII character weighing as a letter is what
/// otherwise makes longer rows candidates), so only rows up to that many
/// bytes longer are read, and knowing which rows end in a space, only rows
/// whose trimmed length is the constant's.
pub fn eq_const_folded_offsets_shaped<O: Offset>(
    offsets: &[O],
    values: &[u8],
    c: &PreparedFoldedConstant,
    pad_space: bool,
    hints: RowHints<'_>,
    out: &mut [u64],
    mut not_ascii: impl FnMut(&[u8]) -> bool,
) -> Result<(), OffsetsError> {
    let shape = hints.shape;
    // Only then does a longer row have to end in a space to match.
    let ends_in_space = match pad_space && shape.ascii {
        true => hints.ends_in_space,
        false => None,
    };
    let upper = if pad_space {
        c.upper_trimmed()
    } else {
        c.upper()
    };
    let k = upper.len();
    let first = upper.first().copied();
    // Both row kinds may need `not_ascii`; they run one after the other.
    let not_ascii = std::cell::RefCell::new(&mut not_ascii);
    // A one-byte constant: 64 one-byte ASCII rows are one vector compare
    // with both cases of the byte (rows with other bytes take the row path).
    let isa = c.isa();
    let byte = first.unwrap_or(0);
    let dense = |b: &[u8; 64]| {
        let [eq, high] =
            crate::kernels::run_on!(isa, eq2_masks64(b, byte, byte.to_ascii_lowercase()));
        (high == 0).then_some(eq)
    };
    let longest = match (shape.ascii, pad_space, shape.max_trailing_spaces) {
        (true, false, _) => k,
        (true, true, Some(m)) => k.saturating_add(m),
        _ => usize::MAX,
    };
    eq_by_length(
        offsets,
        values,
        k,
        longest,
        ends_in_space,
        isa,
        out,
        |v| match c.match_same_len(v, pad_space) {
            FoldedMatch::Equal => true,
            FoldedMatch::Differ => false,
            FoldedMatch::NotAscii => (not_ascii.borrow_mut())(v),
        },
        |v| {
            if let (Some(f), Some(&b)) = (first, v.first()) {
                if b < 0x80 && b.to_ascii_uppercase() != f {
                    return false;
                }
            }
            let (head, rest) = v.split_at(k);
            match c.match_same_len(head, pad_space) {
                FoldedMatch::Equal => pad_space && is_all_spaces_on(c.isa(), rest),
                FoldedMatch::Differ => false,
                FoldedMatch::NotAscii => (not_ascii.borrow_mut())(v),
            }
        },
        dense,
    )
}

#[inline(always)]
fn is_all_spaces_on(isa: Isa, s: &[u8]) -> bool {
    crate::kernels::run_on!(isa, is_all_spaces(s))
}

/// The loop of the equality helpers: rows of exactly `k` bytes go to
/// `same_row`, rows of `k + 1 ..= longest` bytes to `longer_row`, and
/// shorter and longer rows are unequal. When `longest == k + 1` (PAD SPACE
/// with at most one trailing space) `longer_row` answers the rows of `k`
/// bytes too: one pass finds both lengths and one loop reads both kinds, so
/// which length a row has is no branch to mispredict. With `ends_in_space`
/// (PAD SPACE, `k` the trimmed constant's length), rows of `k` bytes that
/// end in a space and longer rows that do not are unequal too. When `k == 1` and all 64 rows of a block are
/// one byte long, the block's rows are 64 consecutive bytes: `dense` gets
/// them and answers the block (`None`: row by row after all). A column of
/// one-character codes (`l_returnflag = 'R'`) is then a vector compare per
/// 64 rows instead of 64 row compares.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn eq_by_length<O: Offset>(
    offsets: &[O],
    values: &[u8],
    k: usize,
    longest: usize,
    ends_in_space: Option<&[u64]>,
    isa: Isa,
    out: &mut [u64],
    same_row: impl Fn(&[u8]) -> bool,
    longer_row: impl Fn(&[u8]) -> bool,
    dense: impl Fn(&[u8; 64]) -> Option<u64>,
) -> Result<(), OffsetsError> {
    validated(offsets, values.len())?;
    let rows = row_count(offsets);
    let out = prepare_out(rows, out)?;
    let spaced = match ends_in_space {
        Some(bits) => Some(bits.get(..out.len()).ok_or(OffsetsError::HintsTooShort {
            words: bits.len(),
            needed_words: out.len(),
        })?),
        None => None,
    };
    let one_longer = longest == k.wrapping_add(1);
    let block_of = |w: usize| &offsets[w * 64..=(w * 64 + 64).min(rows)];
    let lengths_of = |w: usize| {
        let block = block_of(w);
        if one_longer {
            // Both lengths from one pass, all of them for `longer_row`.
            let longer = match spaced {
                Some(s) => O::length_minus_bits(block, k, s[w], isa),
                None => O::length_bits_k_or_next(block, k, isa),
            };
            return BlockLengths { same: 0, longer };
        }
        let same = O::length_bits(block, k, false, isa);
        // Rows of k + 1 ..= longest bytes (a block of rows all `k` long
        // has none).
        let longer = if longest <= k || same == u64::MAX {
            0
        } else {
            let beyond = match longest.checked_add(1) {
                Some(l) => O::length_bits(block, l, true, isa),
                None => 0,
            };
            O::length_bits(block, k, true, isa) & !same & !beyond
        };
        match spaced {
            Some(s) => BlockLengths {
                same: same & !s[w],
                longer: longer & s[w],
            },
            None => BlockLengths { same, longer },
        }
    };
    // 64 rows at a time: the length test for a block is one vector pass over
    // its offsets, and only rows that pass it are read. Most rows usually
    // fail on length alone, so the few that pass are scattered cache misses
    // when the column is not in cache: their lines are prefetched `AHEAD`
    // blocks before they are compared.
    const AHEAD: usize = 8;
    let words = out.len();
    let mut ring = [BlockLengths::default(); AHEAD];
    for (w, slot) in ring.iter_mut().enumerate().take(words) {
        *slot = lengths_of(w);
        prefetch_rows(block_of(w), values, *slot);
    }
    for (w, word) in out.iter_mut().enumerate() {
        let lens = ring[w % AHEAD];
        if w + AHEAD < words {
            let next = lengths_of(w + AHEAD);
            prefetch_rows(block_of(w + AHEAD), values, next);
            ring[w % AHEAD] = next;
        }
        let block = block_of(w);
        if k == 1 && lens.same == u64::MAX {
            // 64 rows of one byte each: `values[start..start + 64]`.
            let start = block[0].index();
            if let Some(bits) = dense(block_bytes(values, start)) {
                *word = bits;
                continue;
            }
        }
        let row = |i: usize| &values[block[i].index()..block[i + 1].index()];
        let mut bits = lens.same | lens.longer;
        // Clear bits without a branch where the outcome is data (a
        // shipmode column matches 1 row in 7, so a branch would mispredict).
        // Each test has one call site, so that it is inlined.
        for_each_bit(lens.same, |i| bits ^= u64::from(!same_row(row(i))) << i);
        for_each_bit(lens.longer, |i| bits ^= u64::from(!longer_row(row(i))) << i);
        *word = bits;
    }
    Ok(())
}

/// The 64 bytes of `values` at `start` (bounds-checked).
#[inline(always)]
fn block_bytes(values: &[u8], start: usize) -> &[u8; 64] {
    values[start..start + 64]
        .try_into()
        .expect("64 one-byte rows are 64 bytes")
}

/// Rows of one 64-row block by length: of exactly the compared length, and
/// longer (only asked for under PAD SPACE).
#[derive(Clone, Copy, Default)]
struct BlockLengths {
    same: u64,
    longer: u64,
}

/// Prefetches the first byte of each row of `block` that passed the length
/// test, when few did: dense candidates are sequential, which the hardware
/// prefetcher already streams.
#[inline(always)]
fn prefetch_rows<O: Offset>(block: &[O], values: &[u8], lens: BlockLengths) {
    let candidates = lens.same | lens.longer;
    if candidates.count_ones() <= 16 {
        for_each_bit(candidates, |i| prefetch(values, block[i].index()));
    }
}

/// Hints the CPU to start loading the cache line holding `s[i]`.
#[inline(always)]
fn prefetch(s: &[u8], i: usize) {
    #[cfg(target_arch = "x86_64")]
    crate::avx2::prefetch(s, i);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, i);
}

/// Whether each row contains the finder's needle (`LIKE '%needle%'` for a
/// binary collation).
///
/// Rather than one search per row, the needle is searched for in the whole
/// values buffer at once and each hit is mapped to its row: the search runs
/// at full SIMD speed over contiguous memory, rows without a hit cost nothing
/// beyond it, and after a hit the search resumes at the next row. A hit that
/// straddles two rows does not count, and no later start in that row can fit
/// either, so the search also resumes at the next row.
///
/// Errors (and leaves `out` unspecified) if the offsets are not a valid
/// column over `values` or `out` is too short.
pub fn contains_offsets<O: Offset>(
    offsets: &[O],
    values: &[u8],
    f: &SubstringFinder,
    out: &mut [u64],
) -> Result<(), OffsetsError> {
    validated(offsets, values.len())?;
    let rows = row_count(offsets);
    let out = prepare_out(rows, out)?;
    if rows == 0 {
        return Ok(());
    }
    let n = f.needle().len();
    if n == 0 {
        for (w, word) in out.iter_mut().enumerate() {
            let left = rows - w * 64;
            *word = if left >= 64 {
                u64::MAX
            } else {
                (1 << left) - 1
            };
        }
        return Ok(());
    }
    let end = offsets[rows].index();
    let mut pos = offsets[0].index();
    let mut row = 0;
    while pos < end {
        let Some(k) = f.find(&values[pos..end]) else {
            break;
        };
        let at = pos + k;
        // The row holding byte `at`: the last row starting at or before it.
        row = row_containing(offsets, row, at);
        let row_end = offsets[row + 1].index();
        if at + n <= row_end {
            out[row / 64] |= 1 << (row % 64);
        }
        // Either way this row is done: after a hit, one is enough; after a
        // hit that runs past the row's end, every later start in the row
        // would run past it too.
        pos = row_end;
        row += 1;
    }
    Ok(())
}

/// The row `r >= from` with `offsets[r] <= at < offsets[r + 1]`, for `at`
/// inside the column's values. Gallops forward (1, 2, 4, … rows) and then
/// bisects, so dense hits cost a step each and sparse hits a logarithm.
#[inline]
fn row_containing<O: Offset>(offsets: &[O], from: usize, at: usize) -> usize {
    // Invariant: offsets[lo] <= at (true for `from`, where the search resumed).
    let mut lo = from;
    let mut step = 1;
    let rows = row_count(offsets);
    loop {
        let probe = lo + step;
        if probe >= rows || offsets[probe].index() > at {
            break;
        }
        lo = probe;
        step *= 2;
    }
    // The answer lies in lo..min(lo + step, rows): the first row whose end
    // is past `at`.
    let hi = (lo + step).min(rows);
    lo + offsets[lo + 1..=hi].partition_point(|o| o.index() <= at)
}
