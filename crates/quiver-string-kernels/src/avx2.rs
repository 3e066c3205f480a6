//! AVX2 code path (placeholder: forwards to the portable path).
#![allow(clippy::missing_safety_doc)]

macro_rules! forward {
    ($($f:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(
            /// # Safety
            /// The CPU must support AVX2.
            #[inline]
            pub(crate) unsafe fn $f($($arg: $ty),*) -> $ret {
                super::portable::$f($($arg),*)
            }
        )*
    };
}

forward! {
    bytes_eq(a: &[u8], b: &[u8]) -> bool;
    bytes_cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering;
    mismatch(a: &[u8], b: &[u8]) -> usize;
    memchr(needle: u8, hay: &[u8]) -> Option<usize>;
    memrchr(needle: u8, hay: &[u8]) -> Option<usize>;
    first_non_space(s: &[u8]) -> Option<usize>;
    trim_end_spaces(s: &[u8]) -> &[u8];
    is_all_spaces(s: &[u8]) -> bool;
    pad_space_cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering;
    pad_space_eq(a: &[u8], b: &[u8]) -> bool;
    is_ascii(s: &[u8]) -> bool;
    ascii_upper_in_place(s: &mut [u8]) -> ();
    ascii_eq_ignore_case(a: &[u8], b: &[u8]) -> bool;
    ascii_cmp_ignore_case(a: &[u8], b: &[u8]) -> std::cmp::Ordering;
    mismatch_ignore_case(a: &[u8], b: &[u8]) -> usize;
    ascii_pad_space_cmp_ignore_case(a: &[u8], b: &[u8]) -> std::cmp::Ordering;
}
