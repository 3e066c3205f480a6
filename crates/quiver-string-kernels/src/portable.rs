//! Portable code path (placeholder: the per-byte reference versions).

pub(crate) use crate::reference::{
    ascii_cmp_ignore_case, ascii_eq_ignore_case, ascii_pad_space_cmp_ignore_case,
    ascii_upper_in_place, bytes_cmp, bytes_eq, is_all_spaces, is_ascii, memchr, memrchr, mismatch,
    mismatch_ignore_case, pad_space_cmp, pad_space_eq, trim_end_spaces,
};

pub(crate) fn first_non_space(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b != b' ')
}
