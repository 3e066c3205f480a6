//! Time zones as MariaDB's CONVERT_TZ knows them: `+HH:MM` offsets
//! (-12:59 ..= +13:00) and the named zones of the system's tz database
//! (/usr/share/zoneinfo, read as `mariadb-tzinfo-to-sql` loads it: the
//! TZif file's 32-bit transitions). Names are matched without regard to
//! case, as MariaDB's `time_zone_name` table does; `SYSTEM` is
//! /etc/localtime. Each zone is read once per process.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

const ZONEINFO: &str = "/usr/share/zoneinfo";

/// A zone: a fixed offset, or transitions (UTC seconds) to offsets.
#[derive(Debug)]
pub(crate) enum Zone {
    Offset(i64),
    Rules {
        transitions: Vec<i64>,
        /// The offset (seconds east of UTC) from each transition on.
        offsets: Vec<i64>,
        /// Before the first transition.
        initial: i64,
    },
}

impl Zone {
    /// The offset in force at UTC second `t`.
    fn offset_at(&self, t: i64) -> i64 {
        match self {
            Zone::Offset(o) => *o,
            Zone::Rules {
                transitions,
                offsets,
                initial,
            } => match transitions.partition_point(|x| *x <= t) {
                0 => *initial,
                i => offsets[i - 1],
            },
        }
    }

    /// UTC seconds of local time `local` (seconds of the local calendar):
    /// the earlier of two readings in a fall-back overlap, the transition
    /// itself for a time in a spring-forward gap (MariaDB's answers).
    pub(crate) fn utc_of_local(&self, local: i64) -> i64 {
        let (transitions, offsets, initial) = match self {
            Zone::Offset(o) => return local - o,
            Zone::Rules {
                transitions,
                offsets,
                initial,
            } => (transitions, offsets, *initial),
        };
        let before = |i: usize| if i == 0 { initial } else { offsets[i - 1] };
        // Transitions near `local`: those within a day of it.
        let from = transitions.partition_point(|t| *t < local - 86_400);
        let to = transitions.partition_point(|t| *t <= local + 86_400);
        let mut best: Option<i64> = None;
        let mut candidates: Vec<i64> = vec![before(from)];
        candidates.extend(offsets[from..to].iter().copied());
        for o in candidates {
            let u = local - o;
            if self.offset_at(u) == o {
                best = Some(best.map_or(u, |b| b.min(u)));
            }
        }
        if let Some(u) = best {
            return u;
        }
        for i in from..to {
            let t = transitions[i];
            if t + before(i) <= local && local < t + offsets[i] {
                return t;
            }
        }
        local - self.offset_at(local)
    }

    /// Local seconds of UTC second `t`.
    pub(crate) fn local_of_utc(&self, t: i64) -> i64 {
        t + self.offset_at(t)
    }
}

/// `+HH:MM` / `-HH:MM` as MariaDB reads a time zone offset.
fn offset(name: &str) -> Option<i64> {
    let b = name.as_bytes();
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (h, m) = name[1..].split_once(':')?;
    if h.is_empty() || h.len() > 2 || m.len() != 2 {
        return None;
    }
    let h: i64 = h.parse().ok()?;
    let m: i64 = m.parse().ok()?;
    if m > 59 {
        return None;
    }
    let secs = sign * (h * 3600 + m * 60);
    (-(12 * 3600 + 59 * 60)..=13 * 3600)
        .contains(&secs)
        .then_some(secs)
}

fn be32(b: &[u8], at: usize) -> Option<i64> {
    Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?) as i64)
}

/// A TZif file's first (32-bit) block.
fn read_tzif(path: &Path) -> Option<Zone> {
    let b = std::fs::read(path).ok()?;
    if b.get(..4)? != b"TZif" {
        return None;
    }
    let count = |i: usize| be32(&b, 20 + 4 * i).map(|v| v as usize);
    let (isut, isstd, leap, timecnt, typecnt, charcnt) = (
        count(0)?,
        count(1)?,
        count(2)?,
        count(3)?,
        count(4)?,
        count(5)?,
    );
    let _ = (isut, isstd, leap, charcnt);
    let mut at = 44;
    let mut transitions = Vec::with_capacity(timecnt);
    for _ in 0..timecnt {
        transitions.push(be32(&b, at)?);
        at += 4;
    }
    let idx = b.get(at..at + timecnt)?.to_vec();
    at += timecnt;
    let mut types = Vec::with_capacity(typecnt);
    for _ in 0..typecnt {
        types.push(be32(&b, at)?);
        at += 6;
    }
    if types.is_empty() {
        return None;
    }
    let offsets = idx
        .iter()
        .map(|i| types.get(*i as usize).copied())
        .collect::<Option<Vec<_>>>()?;
    Some(Zone::Rules {
        transitions,
        offsets,
        initial: types[0],
    })
}

/// Every zone file's name in lower case, to its path.
fn zone_names() -> &'static HashMap<String, PathBuf> {
    static NAMES: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut out = HashMap::new();
        let mut stack = vec![PathBuf::from(ZONEINFO)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(rel) = p.strip_prefix(ZONEINFO) {
                    out.insert(rel.to_string_lossy().to_lowercase(), p.clone());
                }
            }
        }
        out
    })
}

/// The zone a CONVERT_TZ argument names, if any.
pub(crate) fn zone(name: &str) -> Option<Arc<Zone>> {
    static ZONES: OnceLock<Mutex<HashMap<String, Option<Arc<Zone>>>>> = OnceLock::new();
    if let Some(o) = offset(name) {
        return Some(Arc::new(Zone::Offset(o)));
    }
    let key = name.to_lowercase();
    let zones = ZONES.get_or_init(Default::default);
    let mut zones = zones.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(z) = zones.get(&key) {
        return z.clone();
    }
    let path = if key == "system" {
        Some(PathBuf::from("/etc/localtime"))
    } else if key.is_empty() || key.starts_with('/') || key.split('/').any(|p| p == "..") {
        None
    } else {
        zone_names().get(&key).cloned()
    };
    let z = path.and_then(|p| read_tzif(&p)).map(Arc::new);
    zones.insert(key, z.clone());
    z
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(offset("+05:30"), Some(19_800));
        assert_eq!(offset("+5:30"), Some(19_800));
        assert_eq!(offset("-12:59"), Some(-46_740));
        assert_eq!(offset("+13:00"), Some(46_800));
        assert_eq!(offset("+14:00"), None);
        assert_eq!(offset("05:30"), None);
        assert_eq!(offset("+01:00:00"), None);
    }
}
