//! Micro benchmark of the string kernels against their speed of light.
//!
//! `cargo run --release -p quiver-string-kernels --example string_kernels_bench [-- --format csv] [--mb N] [--clock cpu|wall] [--reps N] [--only SUBSTRING]`
//!
//! Data (about `--mb` MB per column, default 100): a TPC-H-comment-like
//! column (random words from the TPC-H text grammar's vocabulary, cut to a
//! random length 10..=44, so values can end in a space or a half word),
//! a copy of it in a second buffer (for pairwise kernels), the copy with 0..3
//! trailing spaces added to a quarter of the rows (PAD SPACE), and a
//! shipmode-like column of 7 distinct short values.
//!
//! Every benchmark runs a loop over rows writing a result bitmask, with:
//! - `kernel`: this crate on the active ISA (and `portable`: forced portable path),
//! - `std`: the obvious standard-library expression (`==`, `cmp`, `position`, `str::contains`),
//! - `naive`: a per-byte loop (the `reference` module),
//! - `SoL` (speed of light): a bare loop over the memory the kernel must
//!   read (offsets and values), XOR-ing it in `u64` words, or for the
//!   constant-equality rows, the offsets-only loop that finds each row's
//!   length (values of the wrong length need not be read at all).
//!
//! `kernel/SoL` is kernel time over speed-of-light time: 1.0 means the
//! kernel costs no more than touching its input once.
//!
//! Times: by default (`--clock cpu`, Linux) the thread's CPU time per run,
//! averaged over at least 0.5 s of runs, because this benchmark usually
//! shares a 2-core machine with compiler jobs and wall time then mostly
//! measures the scheduler. `--clock wall` takes the minimum wall time over
//! `--reps` runs (default 5). Either way other jobs still compete for the
//! shared L3 cache and memory bandwidth.

use std::hint::black_box;
use std::time::{Duration, Instant};

use quiver_string_kernels::{
    contains_offsets, eq_const_folded_offsets_shaped, eq_const_offsets_shaped, reference, Isa,
    PreparedConstant, PreparedFoldedConstant, RowShape, SubstringFinder,
};

/// Words of the TPC-H comment grammar (nouns, verbs, adjectives, adverbs,
/// prepositions, auxiliaries), which the `dbgen` text pool is built from.
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
    "Tiresias",
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
    "packages",
    "requests",
    "accounts",
    "deposits",
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
    "special",
    "pending",
    "express",
    "unusual",
    "furiously",
    "slyly",
    "carefully",
    "blithely",
    "quickly",
    "fluffily",
    "about",
    "above",
    "according to",
    "across",
    "after",
    "against",
    "along",
    "alongside of",
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
    "in place of",
    "inside",
    "instead of",
    "into",
    "near",
    "of",
    "on",
    "outside",
    "over",
    "past",
    "since",
    "through",
    "throughout",
    "to",
    "toward",
    "under",
    "until",
    "up",
    "upon",
    "without",
    "with",
    "within",
    "do",
    "may",
    "might",
    "shall",
    "will",
    "would",
    "can",
    "could",
    "should",
    "ought to",
    "must",
    "will have to",
    "shall have to",
    "could have to",
    "should have to",
    "must have to",
    "need to",
    "try to",
];

const SHIPMODES: &[&str] = &["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"];
const CONST28: &[u8] = b"zzle? slyly regular instruc ";
const CONST4: &[u8] = b"MAIL";

/// SplitMix64: tiny, fast, good enough to make test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// An Arrow-style string column.
struct Column {
    offsets: Vec<i32>,
    values: Vec<u8>,
}

impl Column {
    fn new() -> Self {
        Column {
            offsets: vec![0],
            values: Vec::new(),
        }
    }

    fn push(&mut self, v: &[u8]) {
        self.values.extend_from_slice(v);
        self.offsets.push(self.values.len() as i32);
    }

    fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    fn bytes(&self) -> usize {
        self.values.len() + 4 * self.offsets.len()
    }

    fn row(&self, i: usize) -> &[u8] {
        &self.values[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

fn comment_column(target_bytes: usize, rng: &mut Rng) -> Column {
    let mut col = Column::new();
    let mut text = Vec::with_capacity(64);
    while col.values.len() < target_bytes {
        // One row in 500 is the benchmark constant, so equality finds some.
        if rng.below(500) == 0 {
            col.push(CONST28);
            continue;
        }
        let len = 10 + rng.below(35);
        text.clear();
        while text.len() < len {
            if !text.is_empty() {
                text.push(b' ');
            }
            text.extend_from_slice(WORDS[rng.below(WORDS.len())].as_bytes());
            if rng.below(8) == 0 {
                text.push([b'.', b',', b'?', b'!'][rng.below(4)]);
            }
        }
        col.push(&text[..len]);
    }
    col
}

fn shipmode_column(target_bytes: usize, rng: &mut Rng) -> Column {
    let mut col = Column::new();
    while col.values.len() < target_bytes {
        col.push(SHIPMODES[rng.below(SHIPMODES.len())].as_bytes());
    }
    col
}

fn with_trailing_spaces(src: &Column, rng: &mut Rng) -> Column {
    let mut col = Column::new();
    let mut v = Vec::with_capacity(64);
    for i in 0..src.rows() {
        v.clear();
        v.extend_from_slice(src.row(i));
        if rng.below(4) == 0 {
            v.extend(std::iter::repeat_n(b' ', 1 + rng.below(3)));
        }
        col.push(&v);
    }
    col
}

/// Sets bit `i` of `out` for each row `i` of `col` satisfying `pred`.
#[inline(always)]
fn mask_rows(col: &Column, out: &mut [u64], mut pred: impl FnMut(&[u8]) -> bool) {
    let o = &col.offsets;
    for (w, word) in out.iter_mut().enumerate() {
        let first = w * 64;
        let last = (first + 64).min(col.rows());
        let mut bits = 0;
        for r in first..last {
            let v = &col.values[o[r] as usize..o[r + 1] as usize];
            bits |= u64::from(pred(v)) << (r - first);
        }
        *word = bits;
    }
}

/// Sets bit `i` of `out` for each row pair `(a[i], b[i])` satisfying `pred`.
#[inline(always)]
fn mask_pairs(a: &Column, b: &Column, out: &mut [u64], mut pred: impl FnMut(&[u8], &[u8]) -> bool) {
    let (oa, ob) = (&a.offsets, &b.offsets);
    for (w, word) in out.iter_mut().enumerate() {
        let first = w * 64;
        let last = (first + 64).min(a.rows());
        let mut bits = 0;
        for r in first..last {
            let x = &a.values[oa[r] as usize..oa[r + 1] as usize];
            let y = &b.values[ob[r] as usize..ob[r + 1] as usize];
            bits |= u64::from(pred(x, y)) << (r - first);
        }
        *word = bits;
    }
}

/// `s` without trailing spaces, the obvious std way.
fn std_trim(s: &[u8]) -> &[u8] {
    &s[..s.iter().rposition(|&c| c != b' ').map_or(0, |i| i + 1)]
}

/// XOR of every `u64` word of `bytes` (the tail bytes folded in too).
fn xor_words(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(64);
    let mut acc = [0u64; 8];
    for c in &mut chunks {
        for (k, a) in acc.iter_mut().enumerate() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&c[8 * k..8 * k + 8]);
            *a ^= u64::from_le_bytes(w);
        }
    }
    let mut x = acc.iter().fold(0, |x, a| x ^ a);
    for &b in chunks.remainder() {
        x ^= u64::from(b);
    }
    x
}

fn xor_offsets(o: &[i32]) -> u64 {
    o.iter().fold(0u32, |x, &v| x ^ v as u32) as u64
}

/// Speed of light for reading columns once: XOR of their values and offsets.
fn sol_read(cols: &[&Column]) -> u64 {
    cols.iter()
        .fold(0, |x, c| x ^ xor_words(&c.values) ^ xor_offsets(&c.offsets))
}

/// Speed of light for constant equality: per row, read the offsets and test
/// the length; no value bytes.
fn sol_lengths(col: &Column, len: usize, out: &mut [u64]) {
    let o = &col.offsets;
    for (w, word) in out.iter_mut().enumerate() {
        let first = w * 64;
        let last = (first + 64).min(col.rows());
        let mut bits = 0;
        for r in first..last {
            bits |= u64::from((o[r + 1] - o[r]) as usize == len) << (r - first);
        }
        *word = bits;
    }
}

/// CPU time this thread has run, from Linux's `/proc/thread-self/schedstat`
/// (nanoseconds on CPU; advanced at scheduler ticks and context switches).
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// How runs are timed (`--clock`).
#[derive(Clone, Copy, PartialEq)]
enum Clock {
    /// Minimum wall time over `reps` runs.
    Wall,
    /// Thread CPU time per run, averaged over runs adding up to at least
    /// 0.5 s of CPU (so scheduler-tick granularity stays under 1%); on a
    /// machine shared with other jobs this leaves out the time the benchmark
    /// was not running at all.
    Cpu,
}

fn time(clock: Clock, reps: usize, mut f: impl FnMut()) -> Duration {
    if clock == Clock::Cpu {
        if let Some(start) = thread_cpu_time() {
            let mut runs = 0u32;
            loop {
                f();
                runs += 1;
                let used = thread_cpu_time().unwrap_or(start) - start;
                if runs as usize >= reps.min(3) && used >= Duration::from_millis(500) {
                    return used / runs;
                }
            }
        }
    }
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

struct Row {
    name: String,
    rows: usize,
    bytes: usize,
    kernel: Duration,
    portable: Option<Duration>,
    std: Option<Duration>,
    naive: Option<Duration>,
    sol: Duration,
    matches: u64,
}

struct Bench {
    reps: usize,
    clock: Clock,
    /// Only benchmarks whose name contains this run (`--only`).
    only: Option<String>,
    rows: Vec<Row>,
}

/// One way of computing a benchmark's result bitmask.
type Variant<'a> = &'a mut dyn FnMut(&mut [u64]);

/// The ways one benchmark line is computed.
struct Variants<'a> {
    kernel: Variant<'a>,
    portable: Option<Variant<'a>>,
    std: Option<Variant<'a>>,
    naive: Option<Variant<'a>>,
    sol: Variant<'a>,
}

impl Bench {
    fn run(&mut self, name: &str, rows: usize, bytes: usize, v: Variants<'_>) {
        if self
            .only
            .as_ref()
            .is_some_and(|o| !name.contains(o.as_str()))
        {
            return;
        }
        let mut out = vec![0u64; rows.div_ceil(64)];
        let (reps, clock) = (self.reps, self.clock);
        let measure = |f: &mut dyn FnMut(&mut [u64]), out: &mut Vec<u64>| {
            time(clock, reps, || {
                f(out);
                black_box(&mut *out);
            })
        };
        let kernel = measure(v.kernel, &mut out);
        let matches: u64 = out.iter().map(|w| u64::from(w.count_ones())).sum();
        // Every variant must agree with the kernel's answer.
        let checked = |f: Option<Variant<'_>>, what: &str| {
            f.map(|f| {
                let mut o = vec![0u64; out.len()];
                let t = measure(f, &mut o);
                assert_eq!(o, out, "{name}: {what} disagrees with the kernel");
                t
            })
        };
        let portable = checked(v.portable, "portable");
        let std = checked(v.std, "std");
        let naive = checked(v.naive, "naive");
        let sol = measure(v.sol, &mut vec![0u64; out.len()]);
        eprintln!("  {name}: done");
        self.rows.push(Row {
            name: name.to_string(),
            rows,
            bytes,
            kernel,
            portable,
            std,
            naive,
            sol,
            matches,
        });
    }
}

fn ns_per(d: Duration, rows: usize) -> f64 {
    d.as_secs_f64() * 1e9 / rows as f64
}

fn gbps(d: Duration, bytes: usize) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let csv = flag("--format").as_deref() == Some("csv");
    let mb: usize = flag("--mb").and_then(|v| v.parse().ok()).unwrap_or(100);
    let reps: usize = flag("--reps").and_then(|v| v.parse().ok()).unwrap_or(5);
    let target = mb * 1_000_000;

    eprintln!("generating ~{mb} MB per column ...");
    let mut rng = Rng(0x5EED);
    let comments = comment_column(target, &mut rng);
    let copy = Column {
        offsets: comments.offsets.clone(),
        values: comments.values.clone(),
    };
    let padded = with_trailing_spaces(&comments, &mut rng);
    let shipmodes = shipmode_column(target, &mut rng);
    let text = std::str::from_utf8(&comments.values).expect("generated text is ASCII");
    let n = comments.rows();
    let pair_bytes = comments.bytes() + copy.bytes();
    eprintln!(
        "comments: {} rows, {:.1} MB values; shipmodes: {} rows; ISA {}",
        n,
        comments.values.len() as f64 / 1e6,
        shipmodes.rows(),
        quiver_string_kernels::active_isa()
    );

    let clock = match flag("--clock").as_deref() {
        Some("wall") => Clock::Wall,
        _ if thread_cpu_time().is_some() => Clock::Cpu,
        _ => Clock::Wall,
    };
    eprintln!(
        "clock: {}",
        if clock == Clock::Cpu {
            "thread CPU time"
        } else {
            "wall"
        }
    );
    let mut bench = Bench {
        reps,
        clock,
        only: flag("--only"),
        rows: Vec::new(),
    };
    let p = Isa::Portable;

    bench.run(
        "bytes_eq (equal pairs)",
        n,
        pair_bytes,
        Variants {
            kernel: &mut |o| mask_pairs(&comments, &copy, o, quiver_string_kernels::bytes_eq),
            portable: Some(&mut |o| mask_pairs(&comments, &copy, o, |a, b| p.bytes_eq(a, b))),
            std: Some(&mut |o| mask_pairs(&comments, &copy, o, |a, b| a == b)),
            naive: Some(&mut |o| mask_pairs(&comments, &copy, o, reference::bytes_eq)),
            sol: &mut |_| {
                black_box(sol_read(&[&comments, &copy]));
            },
        },
    );

    let less = |o: std::cmp::Ordering| o.is_le();
    bench.run(
        "bytes_cmp (equal pairs) <=",
        n,
        pair_bytes,
        Variants {
            kernel: &mut |o| {
                mask_pairs(&comments, &copy, o, |a, b| {
                    less(quiver_string_kernels::bytes_cmp(a, b))
                })
            },
            portable: Some(&mut |o| {
                mask_pairs(&comments, &copy, o, |a, b| less(p.bytes_cmp(a, b)))
            }),
            std: Some(&mut |o| mask_pairs(&comments, &copy, o, |a, b| less(a.cmp(b)))),
            naive: Some(&mut |o| {
                mask_pairs(&comments, &copy, o, |a, b| less(reference::bytes_cmp(a, b)))
            }),
            sol: &mut |_| {
                black_box(sol_read(&[&comments, &copy]));
            },
        },
    );

    bench.run(
        "pad_space_eq (0..3 extra spaces)",
        n,
        comments.bytes() + padded.bytes(),
        Variants {
            kernel: &mut |o| mask_pairs(&comments, &padded, o, quiver_string_kernels::pad_space_eq),
            portable: Some(&mut |o| mask_pairs(&comments, &padded, o, |a, b| p.pad_space_eq(a, b))),
            std: Some(&mut |o| {
                mask_pairs(&comments, &padded, o, |a, b| std_trim(a) == std_trim(b))
            }),
            naive: Some(&mut |o| mask_pairs(&comments, &padded, o, reference::pad_space_eq)),
            sol: &mut |_| {
                black_box(sol_read(&[&comments, &padded]));
            },
        },
    );

    let big = &comments.values;
    bench.run(
        "memchr whole 100MB buffer, absent byte",
        1,
        big.len(),
        Variants {
            kernel: &mut |o| o[0] = u64::from(quiver_string_kernels::memchr(0x01, big).is_some()),
            portable: Some(&mut |o| o[0] = u64::from(p.memchr(0x01, big).is_some())),
            std: Some(&mut |o| o[0] = u64::from(big.iter().position(|&b| b == 0x01).is_some())),
            naive: Some(&mut |o| o[0] = u64::from(reference::memchr(0x01, big).is_some())),
            sol: &mut |_| {
                black_box(xor_words(big));
            },
        },
    );

    bench.run(
        "memchr per value ('?')",
        n,
        comments.bytes(),
        Variants {
            kernel: &mut |o| {
                mask_rows(&comments, o, |v| {
                    quiver_string_kernels::memchr(b'?', v).is_some()
                })
            },
            portable: Some(&mut |o| mask_rows(&comments, o, |v| p.memchr(b'?', v).is_some())),
            std: Some(&mut |o| {
                mask_rows(&comments, o, |v| {
                    v.iter().position(|&b| b == b'?').is_some()
                })
            }),
            naive: Some(&mut |o| mask_rows(&comments, o, |v| reference::memchr(b'?', v).is_some())),
            sol: &mut |_| {
                black_box(sol_read(&[&comments]));
            },
        },
    );

    for needle in ["regular", "pending", "zzle? sly"] {
        let f = SubstringFinder::new(needle.as_bytes());
        let fp = SubstringFinder::with_isa(needle.as_bytes(), Isa::Portable);
        let nb = needle.as_bytes();
        bench.run(
            &format!("contains '{needle}' (contains_offsets)"),
            n,
            comments.bytes(),
            Variants {
                kernel: &mut |o| {
                    contains_offsets(&comments.offsets, &comments.values, &f, o).unwrap()
                },
                portable: Some(&mut |o| {
                    contains_offsets(&comments.offsets, &comments.values, &fp, o).unwrap()
                }),
                std: Some(&mut |o| {
                    let off = &comments.offsets;
                    for (w, word) in o.iter_mut().enumerate() {
                        let first = w * 64;
                        let last = (first + 64).min(n);
                        let mut bits = 0;
                        for r in first..last {
                            let v = &text[off[r] as usize..off[r + 1] as usize];
                            bits |= u64::from(v.contains(needle)) << (r - first);
                        }
                        *word = bits;
                    }
                }),
                naive: Some(&mut |o| mask_rows(&comments, o, |v| reference::find(nb, v).is_some())),
                sol: &mut |_| {
                    black_box(sol_read(&[&comments]));
                },
            },
        );
        bench.run(
            &format!("contains '{needle}' (find per value)"),
            n,
            comments.bytes(),
            Variants {
                kernel: &mut |o| mask_rows(&comments, o, |v| f.find(v).is_some()),
                portable: Some(&mut |o| mask_rows(&comments, o, |v| fp.find(v).is_some())),
                std: None,
                naive: None,
                sol: &mut |_| {
                    black_box(sol_read(&[&comments]));
                },
            },
        );
    }

    for (col, c, label) in [
        (&comments, CONST28, "comments"),
        (&shipmodes, CONST4, "shipmodes"),
    ] {
        let pc = PreparedConstant::new(c);
        let pp = PreparedConstant::with_isa(c, Isa::Portable);
        let show = String::from_utf8_lossy(c);
        let known = shape_of(col);
        for (pad, shape) in [(false, None), (true, None), (true, Some(known))] {
            let what = match (pad, shape) {
                (false, _) => "exact".to_string(),
                (true, None) => "pad_space".to_string(),
                (true, Some(s)) => format!("pad_space, {}", shape_label(s)),
            };
            let shape = shape.unwrap_or_default();
            let trimmed = reference::trim_end_spaces(c);
            bench.run(
                &format!("{label} = '{show}' ({what}, eq_const_offsets)"),
                col.rows(),
                col.bytes(),
                Variants {
                    kernel: &mut |o| {
                        eq_const_offsets_shaped(
                            &col.offsets,
                            &col.values,
                            &pc,
                            pad,
                            shape.into(),
                            o,
                        )
                        .unwrap()
                    },
                    portable: Some(&mut |o| {
                        eq_const_offsets_shaped(
                            &col.offsets,
                            &col.values,
                            &pp,
                            pad,
                            shape.into(),
                            o,
                        )
                        .unwrap()
                    }),
                    std: Some(&mut |o| {
                        if pad {
                            mask_rows(col, o, |v| {
                                let t =
                                    &v[..v.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1)];
                                t == trimmed
                            })
                        } else {
                            mask_rows(col, o, |v| v == c)
                        }
                    }),
                    naive: Some(&mut |o| {
                        if pad {
                            mask_rows(col, o, |v| reference::pad_space_eq(v, c))
                        } else {
                            mask_rows(col, o, |v| reference::bytes_eq(v, c))
                        }
                    }),
                    sol: &mut |o| sol_lengths(col, c.len(), o),
                },
            );
        }
    }

    // The same constants in lower case under the case-insensitive kernel
    // (`utf8mb4_general_ci` equality of ASCII data): the length test is the
    // same, the compare folds letters. Speed of light: the length test alone.
    for (col, c, label) in [
        (&comments, CONST28, "comments"),
        (&shipmodes, CONST4, "shipmodes"),
    ] {
        let lower = c.to_ascii_lowercase();
        let fc = PreparedFoldedConstant::new(&lower).expect("ASCII constant");
        let fp = PreparedFoldedConstant::with_isa(&lower, Isa::Portable).expect("ASCII constant");
        let show = String::from_utf8_lossy(&lower);
        let upper_trimmed = reference::trim_end_spaces(c);
        let known = shape_of(col);
        for (pad, shape) in [(false, None), (true, None), (true, Some(known))] {
            let what = match (pad, shape) {
                (false, _) => "no pad".to_string(),
                (true, None) => "pad_space".to_string(),
                (true, Some(s)) => format!("pad_space, {}", shape_label(s)),
            };
            let shape = shape.unwrap_or_default();
            let folded = |p: &PreparedFoldedConstant, o: &mut [u64]| {
                eq_const_folded_offsets_shaped(
                    &col.offsets,
                    &col.values,
                    p,
                    pad,
                    shape.into(),
                    o,
                    |_| false,
                )
                .unwrap()
            };
            bench.run(
                &format!("{label} = '{show}' (ci {what}, eq_const_folded_offsets)"),
                col.rows(),
                col.bytes(),
                Variants {
                    kernel: &mut |o| folded(&fc, o),
                    portable: Some(&mut |o| folded(&fp, o)),
                    std: Some(&mut |o| {
                        mask_rows(col, o, |v| {
                            let v = if pad {
                                &v[..v.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1)]
                            } else {
                                v
                            };
                            let k = if pad { upper_trimmed } else { c };
                            v.eq_ignore_ascii_case(k)
                        })
                    }),
                    naive: Some(&mut |o| {
                        mask_rows(col, o, |v| {
                            if pad {
                                reference::ascii_eq_ignore_case(
                                    reference::trim_end_spaces(v),
                                    upper_trimmed,
                                )
                            } else {
                                reference::ascii_eq_ignore_case(v, c)
                            }
                        })
                    }),
                    sol: &mut |o| sol_lengths(col, c.len(), o),
                },
            );
        }
    }

    print_results(&bench.rows, csv);
}

/// The column's true [`RowShape`], as a storage page's statistics give it.
fn shape_of(col: &Column) -> RowShape {
    let mut shape = RowShape {
        max_trailing_spaces: Some(0),
        ascii: col.values.is_ascii(),
    };
    for w in col.offsets.windows(2) {
        let v = &col.values[w[0] as usize..w[1] as usize];
        let trailing = v.iter().rev().take_while(|&&b| b == b' ').count();
        shape.max_trailing_spaces = shape.max_trailing_spaces.max(Some(trailing));
    }
    shape
}

fn shape_label(s: RowShape) -> String {
    format!(
        "<= {} trailing spaces{}",
        s.max_trailing_spaces.unwrap_or(usize::MAX),
        if s.ascii { ", ASCII" } else { "" }
    )
}

fn print_results(rows: &[Row], csv: bool) {
    let opt = |d: Option<Duration>, n: usize| {
        d.map(|d| format!("{:.2}", ns_per(d, n)))
            .unwrap_or_default()
    };
    if csv {
        println!("benchmark,rows,bytes,matches,kernel_ns_per_value,kernel_gb_s,sol_gb_s,kernel_over_sol,portable_ns_per_value,std_ns_per_value,naive_ns_per_value");
        for r in rows {
            println!(
                "\"{}\",{},{},{},{:.3},{:.3},{:.3},{:.3},{},{},{}",
                r.name.replace('"', "\"\""),
                r.rows,
                r.bytes,
                r.matches,
                ns_per(r.kernel, r.rows),
                gbps(r.kernel, r.bytes),
                gbps(r.sol, r.bytes),
                r.kernel.as_secs_f64() / r.sol.as_secs_f64(),
                opt(r.portable, r.rows),
                opt(r.std, r.rows),
                opt(r.naive, r.rows),
            );
        }
        return;
    }
    println!(
        "{:<50} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "benchmark (ns = ns/value)",
        "rows",
        "matches",
        "ns",
        "GB/s",
        "SoL GB/s",
        "ker/SoL",
        "port ns",
        "std ns",
        "naive ns",
    );
    for r in rows {
        println!(
            "{:<50} {:>9} {:>8} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8} {:>8} {:>8}",
            r.name,
            r.rows,
            r.matches,
            ns_per(r.kernel, r.rows),
            gbps(r.kernel, r.bytes),
            gbps(r.sol, r.bytes),
            r.kernel.as_secs_f64() / r.sol.as_secs_f64(),
            opt(r.portable, r.rows),
            opt(r.std, r.rows),
            opt(r.naive, r.rows),
        );
    }
}
