//! A global allocator for tests that bound a query's heap: it wraps the
//! system allocator and counts the live bytes and their peak. A test binary
//! installs it with
//! `#[global_allocator] static HEAP: CountingHeap = CountingHeap;`
//! and reads [`live`] and [`peak`]; the counters are the whole process's.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

pub struct CountingHeap;

static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

fn grew(by: i64) {
    let now = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; the counters only
// observe the sizes.
unsafe impl GlobalAlloc for CountingHeap {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size() as i64, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            grew(new as i64 - l.size() as i64);
        }
        q
    }
}

/// Bytes allocated and not freed.
pub fn live() -> i64 {
    LIVE.load(Ordering::Relaxed)
}

/// The most bytes live at once since [`reset_peak`].
pub fn peak() -> i64 {
    PEAK.load(Ordering::Relaxed)
}

/// Starts a new peak from the live heap now, and returns it.
pub fn reset_peak() -> i64 {
    let now = live();
    PEAK.store(now, Ordering::Relaxed);
    now
}
