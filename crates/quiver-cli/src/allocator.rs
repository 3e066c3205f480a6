//! The process's allocator: mimalloc, told to keep freed memory a while.
//!
//! Every query runs on fresh worker threads whose mimalloc heaps start
//! empty; with mimalloc's default purge delay the pages a query freed are
//! handed back to the OS before the next query asks for them again, and the
//! kernel zeroes each page anew (Q1 spent 10% of its time in `clear_page`).
//! Freed memory is kept for a few seconds instead: back-to-back queries reuse
//! it, an idle process still returns it.
//!
//! mimalloc purges what has waited its delay only when some thread calls
//! into it on a slow path (an allocation needing a fresh page, a collect):
//! an idle process, whose query and connection threads have ended, never
//! did, and kept the memory of its last load until new traffic came (a
//! server at 321 MB after a load stayed there; 96 MB with the purger). A
//! small thread asks mimalloc once a second to purge what has expired.

use std::ffi::{c_int, c_long};
use std::sync::Once;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_t` (mimalloc v3, as
/// libmimalloc-sys 0.1.49 builds it); its default is 1000 ms.
const MI_OPTION_PURGE_DELAY: c_int = 15;
/// How long freed memory stays with the process before it is purged.
const PURGE_DELAY_MS: c_long = 5000;
/// How often the purger looks for expired freed memory.
const PURGE_INTERVAL: Duration = Duration::from_secs(1);

unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_collect(force: bool);
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
}

/// Sets the purge delay and starts the purger; call first thing in `main`.
pub fn configure() {
    // SAFETY: mimalloc's option calls take any option number and value and
    // are thread-safe; the symbols come from the mimalloc library that
    // libmimalloc-sys links into this binary for the global allocator.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
    start_purger();
}

/// Starts (once) the thread that has mimalloc purge, every `PURGE_INTERVAL`,
/// the freed memory whose purge delay has passed. `mi_collect(false)` does
/// that for the whole process (mimalloc's arenas are shared) besides
/// collecting the purger's own, nearly empty, heap; it purges nothing early.
fn start_purger() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("mimalloc-purge".into())
            .stack_size(64 * 1024)
            .spawn(|| loop {
                std::thread::sleep(PURGE_INTERVAL);
                // SAFETY: `mi_collect` may be called from any thread at
                // any time; it touches the caller's heap and the arenas
                // under mimalloc's own locks.
                unsafe { mi_collect(false) }
            });
    });
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
    use std::time::Instant;

    #[test]
    fn option_15_is_the_purge_delay_and_takes_the_new_value() {
        // Only the purge delay defaults to 1000 ms among mimalloc's options
        // (the neighbours: eager_commit_delay 1, use_numa_nodes 0).
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(purge_delay_ms(), 1000);
        }
        configure();
        assert_eq!(purge_delay_ms(), PURGE_DELAY_MS);
    }

    fn rss_mib() -> f64 {
        let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        s.lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .map(|kb| kb / 1024.0)
            .unwrap_or(0.0)
    }

    /// Memory freed by threads that have ended goes back to the OS while
    /// the process does nothing else.
    #[test]
    fn an_idle_process_returns_what_its_ended_threads_freed() {
        if !std::path::Path::new("/proc/self/status").exists() {
            return;
        }
        // Whichever delay is in effect (this test may run before or after
        // the other one sets it), the purger must bring the memory back.
        start_purger();
        let before = rss_mib();
        // 192 MiB in 96 KiB blocks (pages mimalloc keeps in its arenas, not
        // single OS mappings), written so they are resident, freed by a
        // thread that then ends.
        let peak = std::thread::spawn(|| {
            let blocks: Vec<Vec<u8>> = (0..2048).map(|i| vec![i as u8 | 1; 96 * 1024]).collect();
            let peak = rss_mib();
            drop(blocks);
            peak
        })
        .join()
        .unwrap();
        assert!(
            peak > before + 150.0,
            "before {before:.0} MiB, peak {peak:.0} MiB"
        );
        let until = Instant::now() + Duration::from_secs(30);
        let mut now = rss_mib();
        while now > before + 64.0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(200));
            now = rss_mib();
        }
        assert!(
            now <= before + 64.0,
            "before {before:.0} MiB, peak {peak:.0} MiB, 30 s idle later {now:.0} MiB"
        );
    }
}
