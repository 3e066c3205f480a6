//! A session's optimized plans of the queries it ran, by their text: a
//! repeated statement (a driver's `SELECT 1` ping, the queries a client sends
//! at connect, a dashboard's refresh) skips parsing, binding and optimizing
//! and goes straight to physical planning. TiDB calls this the non-prepared
//! plan cache.
//!
//! A plan is used again only under the conditions it was made under: the
//! catalog generation (no table or view created, dropped or written since),
//! the session variables binding reads, and the current database. Plans that
//! read information_schema or a SHOW statement's rows are never kept: their
//! contents change without the catalog moving (PROCESSLIST above all).
//! Physical plans hold the state of one execution, so the logical plan is
//! what is kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use quiver_plan::LogicalPlan;
use quiver_sql::SessionVars;

/// Entries a session keeps; past it, one is dropped for each new one.
const MAX_ENTRIES: usize = 128;
/// Longer statements are not kept: they are rarely repeated word for word,
/// and hashing them costs on every lookup.
pub(crate) const MAX_TEXT: usize = 8 * 1024;

/// What a plan was bound under; a plan is valid while these are unchanged.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Conditions {
    pub generation: u64,
    pub vars: SessionVars,
    pub database: Option<String>,
}

struct Entry {
    made_under: Conditions,
    plan: Arc<LogicalPlan>,
}

#[derive(Default)]
pub(crate) struct PlanCache {
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    /// The catalog generation of the entries: all are dropped when it moves,
    /// so that a dropped or rewritten table's data is not held by a plan.
    generation: u64,
    by_text: HashMap<Box<str>, Entry>,
}

impl Entries {
    fn at(&mut self, generation: u64) -> &mut HashMap<Box<str>, Entry> {
        if self.generation != generation {
            self.by_text.clear();
            self.generation = generation;
        }
        &mut self.by_text
    }
}

impl PlanCache {
    /// The plan of `sql` if it was made under `now`'s conditions.
    pub fn get(
        &self,
        sql: &str,
        generation: u64,
        still_valid: impl FnOnce(&Conditions) -> bool,
    ) -> Option<Arc<LogicalPlan>> {
        if sql.len() > MAX_TEXT {
            return None;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let e = entries.at(generation).get(sql)?;
        still_valid(&e.made_under).then(|| e.plan.clone())
    }

    /// Keeps `plan` for `sql`, replacing what was kept for it.
    pub fn put(&self, sql: &str, made_under: Conditions, plan: Arc<LogicalPlan>) {
        if sql.len() > MAX_TEXT {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let entries = entries.at(made_under.generation);
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(sql) {
            // Any one: a session cycling through more distinct statements
            // than this gains little from the cache whichever is dropped.
            if let Some(k) = entries.keys().next().cloned() {
                entries.remove(&k);
            }
        }
        entries.insert(sql.into(), Entry { made_under, plan });
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .by_text
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Arc<LogicalPlan> {
        Arc::new(LogicalPlan::Values {
            columns: vec![],
            rows: vec![vec![]],
        })
    }

    fn at(generation: u64) -> Conditions {
        Conditions {
            generation,
            vars: SessionVars::default(),
            database: None,
        }
    }

    #[test]
    fn bounded_and_emptied_when_the_catalog_moves() {
        let cache = PlanCache::default();
        for i in 0..MAX_ENTRIES * 2 {
            cache.put(&format!("SELECT {i}"), at(1), plan());
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        let last = format!("SELECT {}", MAX_ENTRIES * 2 - 1);
        let now = |c: Conditions| move |made: &Conditions| *made == c;
        assert!(cache.get(&last, 1, now(at(1))).is_some());
        let db = Conditions {
            database: Some("quiver".into()),
            ..at(1)
        };
        assert!(cache.get(&last, 1, now(db)).is_none());
        // A newer generation drops every plan, not only the one asked for.
        assert!(cache.get(&last, 2, now(at(2))).is_none());
        assert_eq!(cache.len(), 0);
        let long = format!("SELECT '{}'", "x".repeat(MAX_TEXT));
        cache.put(&long, at(2), plan());
        assert_eq!(cache.len(), 0);
    }
}
