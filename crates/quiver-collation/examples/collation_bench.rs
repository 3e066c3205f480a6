//! Collation micro benchmark, in the spirit of TiFlash's CollationEqBench /
//! CollationLikeBench: per collation, the throughput of `=`, compare and
//! `LIKE` over a column of TPC-H-comment-like ASCII strings (and a smaller
//! mixed UTF-8 column), next to the speed of light (plain `==` / `memcmp` /
//! the substring kernel over the same bytes) and a naive per-character
//! version (decode each character, look its weight up, compare).
//!
//! Run: `cargo run --release -p quiver-collation --example collation_bench [MB [COLLATIONS]]`
//! (default 64 MB of ASCII strings; the mixed set is an eighth of that;
//! COLLATIONS a comma-separated subset, `binary` always included).

use std::hint::black_box;
use std::time::Instant;

use quiver_collation::{naive, with_collator, CollatedConstant, Collation, Collator, LikePattern};
use quiver_string_kernels::SubstringFinder;

/// A string column: `values[offsets[i]..offsets[i + 1]]`.
struct Column {
    values: Vec<u8>,
    offsets: Vec<usize>,
}

impl Column {
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }
    #[inline(always)]
    fn get(&self, i: usize) -> &[u8] {
        &self.values[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// xorshift64*: a fixed, dependency-free sequence.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

// Words of TPC-H's text grammar (nouns, verbs, adjectives, adverbs, ...).
const WORDS: &[&str] = &[
    "foxes",
    "ideas",
    "theodolites",
    "pinto",
    "beans",
    "instructions",
    "dependencies",
    "excuses",
    "platelets",
    "asymptotes",
    "courts",
    "dolphins",
    "multipliers",
    "sauternes",
    "warthogs",
    "frets",
    "dinos",
    "attainments",
    "somas",
    "Tiresias'",
    "patterns",
    "forges",
    "braids",
    "hockey",
    "players",
    "frays",
    "warhorses",
    "dugouts",
    "notornis",
    "epitaphs",
    "pearls",
    "tithes",
    "waters",
    "orbits",
    "gifts",
    "sheaves",
    "depths",
    "sentiments",
    "decoys",
    "realms",
    "pains",
    "grouches",
    "escapades",
    "sleep",
    "wake",
    "are",
    "cajole",
    "haggle",
    "nag",
    "use",
    "boost",
    "affix",
    "detect",
    "integrate",
    "maintain",
    "nod",
    "was",
    "lose",
    "sublate",
    "solve",
    "thrash",
    "promise",
    "engage",
    "hinder",
    "print",
    "x-ray",
    "breach",
    "eat",
    "grow",
    "impress",
    "mold",
    "poach",
    "serve",
    "run",
    "dazzle",
    "snooze",
    "doze",
    "unwind",
    "kindle",
    "play",
    "hang",
    "believe",
    "doubt",
    "furious",
    "sly",
    "careful",
    "blithe",
    "quick",
    "fluffy",
    "slow",
    "quiet",
    "ruthless",
    "thin",
    "close",
    "dogged",
    "daring",
    "brave",
    "stealthy",
    "permanent",
    "enticing",
    "idle",
    "busy",
    "regular",
    "final",
    "ironic",
    "even",
    "bold",
    "silent",
    "furiously",
    "slyly",
    "carefully",
    "blithely",
    "quickly",
    "fluffily",
    "slowly",
    "quietly",
    "ruthlessly",
    "thinly",
    "closely",
    "doggedly",
    "daringly",
    "bravely",
    "stealthily",
    "permanently",
    "enticingly",
    "idly",
    "busily",
    "regularly",
    "finally",
    "ironically",
    "evenly",
    "boldly",
    "silently",
    "about",
    "above",
    "according",
    "to",
    "across",
    "after",
    "against",
    "along",
    "alongside",
    "of",
    "among",
    "around",
    "at",
    "atop",
    "before",
    "behind",
    "beneath",
    "beside",
    "besides",
    "between",
    "beyond",
    "by",
    "despite",
    "during",
    "except",
    "for",
    "from",
    "in",
    "place",
    "inside",
    "instead",
    "into",
    "near",
    "on",
    "outside",
    "over",
    "past",
    "since",
    "through",
    "throughout",
    "toward",
    "under",
    "until",
    "up",
    "upon",
    "without",
    "with",
    "within",
    "requests",
    "accounts",
    "packages",
    "deposits",
    "pending",
    "express",
    "special",
    "unusual",
];

// Words with non-ASCII characters for the mixed set.
const MIXED_WORDS: &[&str] = &[
    "café",
    "naïve",
    "Straße",
    "ÉCOLE",
    "smörgåsbord",
    "déjà",
    "Ångström",
    "jalapeño",
    "İstanbul",
    "😀",
    "中文",
];

fn sentence(rng: &mut Rng, out: &mut Vec<u8>, mixed: bool) {
    let target = 10 + rng.below(70);
    let start = out.len();
    while out.len() - start < target {
        if out.len() > start {
            out.push(b' ');
        }
        let w = if mixed && rng.below(4) == 0 {
            MIXED_WORDS[rng.below(MIXED_WORDS.len())]
        } else {
            WORDS[rng.below(WORDS.len())]
        };
        out.extend_from_slice(w.as_bytes());
    }
    if rng.below(3) == 0 {
        out.push(b'.');
    }
}

fn column(bytes: usize, mixed: bool, seed: u64) -> Column {
    let mut rng = Rng(seed);
    let mut values = Vec::with_capacity(bytes + 100);
    let mut offsets = vec![0];
    while values.len() < bytes {
        sentence(&mut rng, &mut values, mixed);
        offsets.push(values.len());
    }
    Column { values, offsets }
}

/// Best of `runs` timings of `f`, in seconds.
fn time<R>(runs: usize, mut f: impl FnMut() -> R) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn count_eq_const<C: Collator>(c: C, col: &Column, k: &CollatedConstant) -> usize {
    (0..col.len())
        .filter(|&i| c.eq_const(k, col.get(i)))
        .count()
}

fn count_eq<C: Collator>(c: C, col: &Column, k: &[u8]) -> usize {
    (0..col.len()).filter(|&i| c.eq(col.get(i), k)).count()
}

fn count_less_adjacent<C: Collator>(c: C, col: &Column) -> usize {
    (1..col.len())
        .filter(|&i| c.compare(col.get(i - 1), col.get(i)).is_lt())
        .count()
}

fn count_like(p: &LikePattern, col: &Column) -> usize {
    (0..col.len()).filter(|&i| p.matches(col.get(i))).count()
}

struct Row {
    set: &'static str,
    collation: &'static str,
    op: String,
    secs: f64,
    sol: f64,
    naive: Option<f64>,
}

fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let runs = 9;
    let load_before = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let ascii = column(mb << 20, false, 0x9E37_79B9_7F4A_7C15);
    let mixed = column((mb << 20) / 8, true, 0xD6E8_FEB8_6659_FD93);
    println!(
        "data: ascii {} rows, {:.1} MB; mixed UTF-8 {} rows, {:.1} MB; best of {runs} runs; kernels: {}",
        ascii.len(),
        ascii.values.len() as f64 / 1e6,
        mixed.len(),
        mixed.values.len() as f64 / 1e6,
        quiver_string_kernels::active_isa()
    );

    let default_collations = [
        "binary",
        "utf8mb4_bin",
        "utf8mb4_general_ci",
        "latin1_swedish_ci",
        "utf8mb4_unicode_ci",
        "utf8mb4_0900_ai_ci",
    ];
    // An optional second argument picks collations (comma-separated;
    // `binary` is always measured, as the reference).
    let picked: Option<Vec<String>> = std::env::args()
        .nth(2)
        .map(|a| a.split(',').map(str::to_string).collect());
    let collations: Vec<&str> = default_collations
        .into_iter()
        .filter(|c| *c == "binary" || picked.as_ref().is_none_or(|p| p.iter().any(|x| x == c)))
        .collect();
    let mut rows = Vec::new();
    for (set, col) in [("ascii", &ascii), ("mixed", &mixed)] {
        // An existing value, so that some rows match (like TPC-H's
        // `l_comment = 'zzle? slyly regular instruc '`).
        let konst = col.get(col.len() / 2).to_vec();
        let offsets64: Vec<i64> = col.offsets.iter().map(|&o| o as i64).collect();
        let prepared = CollatedConstant::new(&konst);
        let sol_eq = time(runs, || {
            (0..col.len())
                .filter(|&i| col.get(i) == konst.as_slice())
                .count()
        });
        let sol_cmp = time(runs, || {
            (1..col.len())
                .filter(|&i| col.get(i - 1) < col.get(i))
                .count()
        });
        let likes: [(&str, &[u8]); 3] = [
            ("%pending%deposits%", b"pending"),
            ("furiously%", b"furiously"),
            ("%requests", b"requests"),
        ];
        for &name in &collations {
            let c = Collation::from_name(name).expect("collation");
            if set == "mixed" && name == "latin1_swedish_ci" {
                continue; // UTF-8 bytes are not latin1 text
            }
            let eqc = time(runs, || {
                with_collator!(c, |cc| count_eq_const(cc, col, &prepared))
            });
            let eq = time(runs, || with_collator!(c, |cc| count_eq(cc, col, &konst)));
            let naive_eq = time(1, || {
                (0..col.len())
                    .filter(|&i| naive::eq(c, col.get(i), &konst))
                    .count()
            });
            rows.push(Row {
                set,
                collation: name,
                op: "= const (prepared)".into(),
                secs: eqc,
                sol: sol_eq,
                naive: Some(naive_eq),
            });
            rows.push(Row {
                set,
                collation: name,
                op: "= const".into(),
                secs: eq,
                sol: sol_eq,
                naive: Some(naive_eq),
            });
            let cmp = time(runs, || {
                with_collator!(c, |cc| count_less_adjacent(cc, col))
            });
            let naive_cmp = time(1, || {
                (1..col.len())
                    .filter(|&i| naive::compare(c, col.get(i - 1), col.get(i)).is_lt())
                    .count()
            });
            rows.push(Row {
                set,
                collation: name,
                op: "compare adjacent".into(),
                secs: cmp,
                sol: sol_cmp,
                naive: Some(naive_cmp),
            });
            for (pattern, piece) in likes {
                let p = LikePattern::new(c, pattern.as_bytes(), None).expect("pattern");
                let secs = time(runs, || count_like(&p, col));
                let slow =
                    LikePattern::new_char_matcher(c, pattern.as_bytes(), None).expect("pattern");
                let naive_secs = time(1, || count_like(&slow, col));
                let sol = match pattern.as_bytes()[0] {
                    b'%' if pattern.ends_with('%') => {
                        let a = SubstringFinder::new(b"pending");
                        let b = SubstringFinder::new(b"deposits");
                        time(runs, || {
                            (0..col.len())
                                .filter(|&i| {
                                    let v = col.get(i);
                                    a.find(v).is_some_and(|at| b.find(&v[at + 7..]).is_some())
                                })
                                .count()
                        })
                    }
                    b'%' => time(runs, || {
                        (0..col.len())
                            .filter(|&i| col.get(i).ends_with(piece))
                            .count()
                    }),
                    _ => time(runs, || {
                        (0..col.len())
                            .filter(|&i| col.get(i).starts_with(piece))
                            .count()
                    }),
                };
                rows.push(Row {
                    set,
                    collation: name,
                    op: format!("LIKE '{pattern}'"),
                    secs,
                    sol,
                    naive: Some(naive_secs),
                });
                if pattern.starts_with('%') && pattern.ends_with('%') {
                    // The column form the executor calls: one search for
                    // the first piece over the whole values buffer.
                    let mut out = vec![0u64; col.len().div_ceil(64)];
                    let secs = time(runs, || {
                        p.matches_column(&offsets64, &col.values, &mut out)
                            .expect("valid column");
                        out.iter().map(|w| w.count_ones()).sum::<u32>()
                    });
                    rows.push(Row {
                        set,
                        collation: name,
                        op: format!("LIKE '{pattern}' (column)"),
                        secs,
                        sol,
                        naive: Some(naive_secs),
                    });
                }
            }
        }
    }

    let load_after = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!();
    println!(
        "| set | collation | operation | ns/row | MB/s | vs binary | vs speed of light | naive ns/row | naive / this |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let col = if r.set == "ascii" { &ascii } else { &mixed };
        let n = col.len() as f64;
        let bin = rows
            .iter()
            .find(|b| b.set == r.set && b.collation == "binary" && b.op == r.op)
            .map_or(f64::NAN, |b| b.secs);
        let naive_ns = r.naive.map_or(f64::NAN, |s| s * 1e9 / n);
        println!(
            "| {} | {} | {} | {:.1} | {:.0} | {:.2}x | {:.2}x | {:.1} | {:.1}x |",
            r.set,
            r.collation,
            r.op,
            r.secs * 1e9 / n,
            col.values.len() as f64 / r.secs / 1e6,
            r.secs / bin,
            r.secs / r.sol,
            naive_ns,
            r.naive.map_or(f64::NAN, |s| s / r.secs),
        );
    }
    println!();
    println!("load average before: {}", load_before.trim());
    println!("load average after:  {}", load_after.trim());
}
