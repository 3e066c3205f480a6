//! Conditions a statement raises while it runs (MySQL's warnings: division
//! by zero, a string read as a number by its prefix), kept for SHOW WARNINGS.
//!
//! Between operators the sink travels in the [`crate::ExecContext`]
//! (`ctx.warnings`): whoever starts a thread to run operators or kernels (a
//! partition, a streamed batch, a sort worker) runs its work inside
//! [`collecting_into`] that sink, which gives the thread a buffer of its
//! own. Within that work, the kernels raise into the thread's buffer: they
//! do not see the context, and a raising path runs through most kernels
//! (every cast from a string, every division), which a sink parameter would
//! have to cross for a condition that is rare. A kernel adds to the buffer
//! only when something went wrong, once per batch where the condition
//! repeats (a count, not a push per row), so the hot paths pay nothing; the
//! buffer joins the shared sink, under its lock, when the thread's work
//! ends.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// A condition's severity, as SHOW WARNINGS names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

/// One row of SHOW WARNINGS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub level: Level,
    pub code: u16,
    pub message: String,
}

impl Condition {
    pub fn new(level: Level, code: u16, message: impl Into<String>) -> Condition {
        Condition {
            level,
            code,
            message: message.into(),
        }
    }
}

/// The conditions kept (at most `limit`, MySQL's `max_error_count`) and how
/// many were raised of each level, kept or not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conditions {
    pub list: Vec<Condition>,
    /// Raised, by level: notes, warnings, errors.
    pub counts: [u64; 3],
    pub limit: usize,
}

impl Conditions {
    pub fn new(limit: usize) -> Conditions {
        Conditions {
            limit,
            ..Default::default()
        }
    }

    /// Everything raised (`@@warning_count`, the count an OK packet sends).
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn errors(&self) -> u64 {
        self.counts[Level::Error as usize]
    }

    /// `c` raised `n` times in a row.
    pub fn push_n(&mut self, c: &Condition, n: u64) {
        let room = self.limit.saturating_sub(self.list.len());
        let keep = usize::try_from(n).unwrap_or(usize::MAX).min(room);
        self.list.extend(std::iter::repeat_n(c, keep).cloned());
        self.counts[c.level as usize] += n;
    }

    pub fn push(&mut self, c: Condition) {
        self.counts[c.level as usize] += 1;
        if self.list.len() < self.limit {
            self.list.push(c);
        }
    }

    /// Whether another pushed condition would be kept (else only counted).
    fn has_room(&self) -> bool {
        self.list.len() < self.limit
    }

    /// `other`'s conditions after these.
    pub fn append(&mut self, other: Conditions) {
        let room = self.limit.saturating_sub(self.list.len());
        self.list.extend(other.list.into_iter().take(room));
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
    }
}

/// A statement's conditions, shared by the threads that run it.
#[derive(Debug)]
pub struct Warnings {
    /// How many are kept (read by each thread that collects, without the lock).
    limit: usize,
    inner: Mutex<Conditions>,
}

impl Default for Warnings {
    fn default() -> Self {
        Warnings::new(MAX_ERROR_COUNT)
    }
}

/// MySQL's default `max_error_count`.
pub const MAX_ERROR_COUNT: usize = 64;

impl Warnings {
    pub fn new(limit: usize) -> Warnings {
        Warnings {
            limit,
            inner: Mutex::new(Conditions::new(limit)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Conditions> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn push(&self, c: Condition) {
        self.lock().push(c);
    }

    /// Adds what another sink collected (an attempt that succeeded).
    pub fn append(&self, other: &Warnings) {
        let taken = other.take();
        self.lock().append(taken);
    }

    /// What was raised so far.
    pub fn snapshot(&self) -> Conditions {
        self.lock().clone()
    }

    /// What was raised, leaving the sink empty.
    pub fn take(&self) -> Conditions {
        let mut g = self.lock();
        let limit = g.limit;
        std::mem::replace(&mut *g, Conditions::new(limit))
    }

    pub fn total(&self) -> u64 {
        self.lock().total()
    }
}

/// The buffer of the work running on this thread.
struct Local {
    sink: Arc<Warnings>,
    pending: Conditions,
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

/// Runs `f` with the conditions raised on this thread during it going to
/// `sink` (when `f` ends, in the order raised). Nests: an inner sink takes
/// its own, and the outer one is back after.
pub fn collecting_into<T>(sink: &Arc<Warnings>, f: impl FnOnce() -> T) -> T {
    let limit = sink.limit();
    let previous = LOCAL.with(|l| {
        l.borrow_mut().replace(Local {
            sink: sink.clone(),
            pending: Conditions::new(limit),
        })
    });
    // Restores the outer buffer however `f` ends (a panic too).
    struct Restore(Option<Option<Local>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take().flatten();
            let mine = LOCAL.with(|l| std::mem::replace(&mut *l.borrow_mut(), previous));
            if let Some(m) = mine {
                if m.pending.total() > 0 {
                    m.sink.lock().append(m.pending);
                }
            }
        }
    }
    let _restore = Restore(Some(previous));
    f()
}

/// Whether this thread's work collects warnings (else there is no point in
/// looking for them).
pub fn collecting() -> bool {
    LOCAL.with(|l| l.borrow().is_some())
}

/// `n` warnings `code` / `message` raised by one batch.
#[cold]
pub fn raise_n(level: Level, code: u16, message: &str, n: u64) {
    if n == 0 {
        return;
    }
    LOCAL.with(|l| {
        if let Some(l) = l.borrow_mut().as_mut() {
            l.pending.push_n(&Condition::new(level, code, message), n);
        }
    });
}

/// One condition, its message made only if it is kept (past the limit it
/// only counts).
#[cold]
pub fn raise_with(level: Level, code: u16, message: impl FnOnce() -> String) {
    LOCAL.with(|l| {
        if let Some(l) = l.borrow_mut().as_mut() {
            if l.pending.has_room() {
                l.pending.push(Condition::new(level, code, message()));
            } else {
                l.pending.counts[level as usize] += 1;
            }
        }
    });
}

/// MySQL's warning 1365 for `n` divisions (or MODs) by zero.
pub fn division_by_zero(n: u64) {
    raise_n(Level::Warning, 1365, "Division by 0", n);
}

/// Where this thread's conditions stand, to take back those raised after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    kept: usize,
    counts: [u64; 3],
}

pub fn mark() -> Mark {
    LOCAL.with(|l| match l.borrow().as_ref() {
        Some(l) => Mark {
            kept: l.pending.list.len(),
            counts: l.pending.counts,
        },
        None => Mark {
            kept: 0,
            counts: [0; 3],
        },
    })
}

/// Whether anything was raised on this thread since `m`.
pub fn raised_since(m: Mark) -> bool {
    LOCAL.with(|l| {
        l.borrow()
            .as_ref()
            .is_some_and(|l| l.pending.counts != m.counts)
    })
}

/// Takes back what was raised since `m` (work redone on fewer rows: the
/// rows a CASE branch does not take raise nothing in MySQL).
pub fn rollback(m: Mark) {
    LOCAL.with(|l| {
        if let Some(l) = l.borrow_mut().as_mut() {
            l.pending.list.truncate(m.kept);
            l.pending.counts = m.counts;
        }
    });
}

/// Whether this thread's buffer keeps no more (later ones only count).
pub fn full() -> bool {
    LOCAL.with(|l| l.borrow().as_ref().is_none_or(|l| !l.pending.has_room()))
}

/// What was raised since `m` raised again in the order `redo` raises it
/// (row by row where the work went column by column), as far as the list
/// keeps: the counts stay those of the first pass, which `redo` may stop
/// short of once [`full`].
pub fn reorder_since(m: Mark, redo: impl FnOnce()) {
    let after = LOCAL.with(|l| l.borrow().as_ref().map(|l| l.pending.counts));
    let Some(after) = after else { return };
    if after == m.counts {
        return;
    }
    rollback(m);
    redo();
    LOCAL.with(|l| {
        if let Some(l) = l.borrow_mut().as_mut() {
            let limit = l.pending.limit;
            l.pending.list.truncate(limit);
            l.pending.counts = after;
        }
    });
}

/// What was raised since `m` raised `times` times in all: a constant
/// computed once for a batch stands for each of its rows.
pub fn repeat_since(m: Mark, times: usize) {
    LOCAL.with(|l| {
        let mut l = l.borrow_mut();
        let Some(l) = l.as_mut() else { return };
        if l.pending.counts == m.counts || times == 1 {
            return;
        }
        let raised: Vec<Condition> = l.pending.list.split_off(m.kept.min(l.pending.list.len()));
        let counts: Vec<u64> = l
            .pending
            .counts
            .iter()
            .zip(m.counts)
            .map(|(a, b)| a - b)
            .collect();
        l.pending.counts = m.counts;
        for _ in 0..times {
            for c in &raised {
                if l.pending.has_room() {
                    l.pending.list.push(c.clone());
                } else {
                    break;
                }
            }
        }
        for (total, n) in l.pending.counts.iter_mut().zip(counts) {
            *total += n * times as u64;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_up_to_the_limit_counted_beyond() {
        let sink = Arc::new(Warnings::new(2));
        collecting_into(&sink, || {
            division_by_zero(3);
            raise_with(Level::Note, 1292, || "x".into());
        });
        let c = sink.take();
        assert_eq!(c.list.len(), 2);
        assert_eq!(c.total(), 4);
        assert_eq!(c.counts, [1, 3, 0]);
    }

    #[test]
    fn repeated_for_each_row() {
        let sink = Arc::new(Warnings::new(64));
        collecting_into(&sink, || {
            division_by_zero(1);
            let m = mark();
            raise_with(Level::Warning, 1292, || "a".into());
            raise_with(Level::Note, 1292, || "b".into());
            repeat_since(m, 3);
            let m = mark();
            division_by_zero(1);
            repeat_since(m, 0);
        });
        let c = sink.take();
        let codes: Vec<&str> = c.list.iter().map(|c| c.message.as_str()).collect();
        assert_eq!(codes, ["Division by 0", "a", "b", "a", "b", "a", "b"]);
        assert_eq!(c.counts, [3, 4, 0]);
    }

    #[test]
    fn reordered_keeps_the_counts() {
        let sink = Arc::new(Warnings::new(3));
        collecting_into(&sink, || {
            let m = mark();
            raise_with(Level::Warning, 1, || "a1".into());
            raise_with(Level::Warning, 1, || "a2".into());
            raise_with(Level::Warning, 1, || "b1".into());
            raise_with(Level::Warning, 1, || "b2".into());
            reorder_since(m, || {
                for r in ["a1", "b1", "a2", "b2"] {
                    if full() {
                        break;
                    }
                    raise_with(Level::Warning, 1, || r.into());
                }
            });
        });
        let c = sink.take();
        let got: Vec<&str> = c.list.iter().map(|c| c.message.as_str()).collect();
        assert_eq!(got, ["a1", "b1", "a2"]);
        assert_eq!(c.total(), 4);
    }

    #[test]
    fn rollback_forgets_and_nesting_restores() {
        let outer = Arc::new(Warnings::default());
        let inner = Arc::new(Warnings::default());
        collecting_into(&outer, || {
            division_by_zero(1);
            let m = mark();
            division_by_zero(2);
            assert!(raised_since(m));
            rollback(m);
            assert!(!raised_since(m));
            collecting_into(&inner, || division_by_zero(5));
            division_by_zero(1);
        });
        let m = mark();
        collecting_into(&inner, || ());
        assert!(!raised_since(m));
        assert_eq!(outer.total(), 2);
        assert_eq!(inner.total(), 5);
        // No sink: nothing is kept, nothing fails.
        division_by_zero(1);
    }
}
