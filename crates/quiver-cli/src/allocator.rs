//! The process's allocator: mimalloc, told to keep freed memory a while.
//!
//! Every query runs on fresh worker threads whose mimalloc heaps start
//! empty; with mimalloc's default purge delay the pages a query freed are
//! handed back to the OS before the next query asks for them again, and the
//! kernel zeroes each page anew (Q1 spent 10% of its time in `clear_page`).
//! Freed memory is kept for a few seconds instead: back-to-back queries reuse
//! it, an idle process still returns it.

use std::ffi::{c_int, c_long};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_t` (mimalloc v3, as
/// libmimalloc-sys 0.1.49 builds it); its default is 1000 ms.
const MI_OPTION_PURGE_DELAY: c_int = 15;
/// How long freed memory stays with the process before it is purged.
const PURGE_DELAY_MS: c_long = 5000;

unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
}

/// Sets the purge delay; call first thing in `main`.
pub fn configure() {
    // SAFETY: mimalloc's option calls take any option number and value and
    // are thread-safe; the symbols come from the mimalloc library that
    // libmimalloc-sys links into this binary for the global allocator.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
}

/// The purge delay now in effect, in milliseconds.
#[cfg(test)]
fn purge_delay_ms() -> i64 {
    // SAFETY: as in `configure`.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) as i64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_15_is_the_purge_delay_and_takes_the_new_value() {
        // Only the purge delay defaults to 1000 ms among mimalloc's options
        // (the neighbours: eager_commit_delay 1, use_numa_nodes 0).
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(purge_delay_ms(), 1000);
        }
        configure();
        assert_eq!(purge_delay_ms(), PURGE_DELAY_MS as i64);
    }
}
