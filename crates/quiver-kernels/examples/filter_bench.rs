//! Speed-of-light benchmark for the filter kernels.
//!
//! For columns of 16M values (override with the first argument) it times,
//! best of 5:
//! * `sol`: a bare loop that reads the same memory (wrapping sum of the
//!   values), i.e. the speed of light for one pass over it;
//! * `portable`: the autovectorized portable kernel;
//! * `avx2`: the AVX2 kernel (when the CPU has it);
//! * `naive`: Arrow-style per-element closure into a `Vec<bool>`, then
//!   packed into a `BooleanBuffer`.
//!
//! `x sol` is the variant's time divided by the speed-of-light time: 1.0
//! means the kernel runs at memory speed. A second table times IN lists
//! (linear SIMD scan vs hash set) to pick `Isa::linear_in_list_max`.
//!
//! Run: `cargo run -p quiver-kernels --release --example filter_bench [rows]`

use std::hint::black_box;
use std::time::{Duration, Instant};

use arrow_buffer::BooleanBuffer;
use quiver_kernels::{CmpNative, CmpOp, InListStrategy, Isa};

const DEFAULT_ROWS: usize = 16 << 20;
const RUNS: usize = 5;

/// A benchmarked column type: how to fill it and how to read it at speed.
trait BenchType: CmpNative {
    const NAME: &'static str;
    /// Maps 64 random bits to a value roughly uniform over `[0, domain)`.
    fn from_random(bits: u64) -> Self;
    /// A value `fraction` of the way through the domain.
    fn quantile(fraction: f64) -> Self;
    /// Wrapping sum, as the cheapest loop that touches every value.
    fn read_all(values: &[Self]) -> u64;
}

macro_rules! int_bench_type {
    ($t:ty, $domain:expr) => {
        impl BenchType for $t {
            const NAME: &'static str = stringify!($t);
            fn from_random(bits: u64) -> Self {
                (bits % $domain) as $t
            }
            fn quantile(fraction: f64) -> Self {
                ($domain as f64 * fraction) as $t
            }
            fn read_all(values: &[Self]) -> u64 {
                values.iter().fold(0 as $t, |acc, &v| acc.wrapping_add(v)) as u64
            }
        }
    };
}
int_bench_type!(i32, 1_000_000u64);
int_bench_type!(i64, 1_000_000_000u64);
int_bench_type!(u8, 256u64);

impl BenchType for f64 {
    const NAME: &'static str = "f64";
    fn from_random(bits: u64) -> Self {
        (bits >> 11) as f64 / (1u64 << 53) as f64
    }
    fn quantile(fraction: f64) -> Self {
        fraction
    }
    fn read_all(values: &[Self]) -> u64 {
        // Integer adds of the bit patterns: a float sum would be latency-bound
        // (no reassociation) and understate the memory speed.
        values
            .iter()
            .fold(0u64, |acc, v| acc.wrapping_add(v.to_bits()))
    }
}

/// xorshift64*: deterministic data without a `rand` dependency.
fn random_column<T: BenchType>(rows: usize) -> Vec<T> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..rows)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            T::from_random(state.wrapping_mul(0x2545_F491_4F6C_DD1D))
        })
        .collect()
}

/// Best wall time of `RUNS` runs of `f`; results are dropped untimed.
fn best_of<R>(mut f: impl FnMut() -> R) -> Duration {
    (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let result = black_box(f());
            let elapsed = start.elapsed();
            drop(result);
            elapsed
        })
        .min()
        .expect("RUNS > 0")
}

/// Arrow-style baseline: one closure call per value into a `Vec<bool>`,
/// then a second pass packing it into bits.
fn naive<T: Copy>(values: &[T], pred: impl Fn(T) -> bool) -> BooleanBuffer {
    let bools: Vec<bool> = values.iter().map(|&v| pred(v)).collect();
    BooleanBuffer::from(bools)
}

/// One benchmarked predicate: the kernel on a given ISA, and the naive baseline.
struct Case<'a> {
    op: &'static str,
    kernel: Box<dyn Fn(Isa) -> BooleanBuffer + 'a>,
    naive: Box<dyn Fn() -> BooleanBuffer + 'a>,
}

fn print_row(
    ty: &str,
    op: &str,
    variant: &str,
    time: Duration,
    rows: usize,
    sol: Duration,
    bytes: usize,
) {
    let secs = time.as_secs_f64();
    println!(
        "{ty:<5} {op:<13} {variant:<9} {:>9.3} {:>8.2} {:>7.2}",
        secs * 1e9 / rows as f64,
        bytes as f64 / secs / 1e9,
        secs / sol.as_secs_f64(),
    );
}

/// Times every variant of `<`, `=` and `between` on a column of `T`.
fn bench_type<T: BenchType>(rows: usize) {
    let values = random_column::<T>(rows);
    let bytes = std::mem::size_of_val(values.as_slice());
    let sol = best_of(|| T::read_all(&values));
    let (mid, lo, hi) = (T::quantile(0.5), T::quantile(0.25), T::quantile(0.55));
    // Equality against a value that occurs, as `col = literal` would.
    let needle = values[rows / 3];
    let values = values.as_slice();

    print_row(T::NAME, "(read)", "sol", sol, rows, sol, bytes);
    let cases = [
        Case {
            op: "< (50%)",
            kernel: Box::new(move |isa| isa.cmp_scalar(values, CmpOp::Lt, mid)),
            naive: Box::new(move || naive(values, |v| v < mid)),
        },
        Case {
            op: "= literal",
            kernel: Box::new(move |isa| isa.cmp_scalar(values, CmpOp::Eq, needle)),
            naive: Box::new(move || naive(values, |v| v == needle)),
        },
        Case {
            op: "between 30%",
            kernel: Box::new(move |isa| isa.between(values, lo, hi)),
            naive: Box::new(move || naive(values, |v| lo <= v && v <= hi)),
        },
    ];
    for case in &cases {
        // All variants must agree before their times mean anything.
        let reference = (case.naive)();
        for isa in Isa::supported() {
            assert_eq!(
                (case.kernel)(isa),
                reference,
                "{} {} {isa:?}",
                T::NAME,
                case.op
            );
            let time = best_of(|| (case.kernel)(isa));
            print_row(T::NAME, case.op, isa.name(), time, rows, sol, bytes);
        }
        let time = best_of(&case.naive);
        print_row(T::NAME, case.op, "naive", time, rows, sol, bytes);
    }
}

/// Linear scan vs hash set for `IN (list)` as the list grows.
fn bench_in_list<T: BenchType>(rows: usize) {
    let values = random_column::<T>(rows);
    println!();
    println!(
        "{} IN (list) on {rows} values, ns/value (lower is better):",
        T::NAME
    );
    print!("{:<10}", "list len");
    let variants: Vec<(String, Isa, InListStrategy)> = Isa::supported()
        .map(|isa| {
            (
                format!("linear/{}", isa.name()),
                isa,
                InListStrategy::Linear,
            )
        })
        .chain(std::iter::once((
            "hashed".to_string(),
            Isa::Portable,
            InListStrategy::Hashed,
        )))
        .collect();
    for (name, ..) in &variants {
        print!(" {name:>16}");
    }
    println!();
    for len in [1usize, 2, 4, 8, 12, 16, 24, 32] {
        // Entries drawn from the column: a few hits, mostly misses, like
        // `l_shipmode IN ('MAIL', 'SHIP')` on a high-cardinality key.
        let list: Vec<T> = (0..len).map(|i| values[(i * 7919) % rows]).collect();
        print!("{len:<10}");
        for (_, isa, strategy) in &variants {
            let time = best_of(|| isa.in_list_with(&values, &list, *strategy));
            print!(" {:>16.3}", time.as_secs_f64() * 1e9 / rows as f64);
        }
        println!();
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

fn main() {
    let rows = std::env::args()
        .nth(1)
        .map(|arg| arg.parse().expect("rows must be a number"))
        .unwrap_or(DEFAULT_ROWS);
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "machine: {} | {cores} cores | ISA chosen: {} | supported: {}",
        cpu_model(),
        quiver_kernels::active_isa(),
        Isa::supported()
            .map(Isa::name)
            .collect::<Vec<_>>()
            .join(", "),
    );
    println!("{rows} values per column, best of {RUNS}, single thread");
    println!();
    println!(
        "{:<5} {:<13} {:<9} {:>9} {:>8} {:>7}",
        "type", "op", "variant", "ns/value", "GB/s", "x sol"
    );
    bench_type::<i32>(rows);
    bench_type::<i64>(rows);
    bench_type::<f64>(rows);
    bench_type::<u8>(rows);
    bench_in_list::<i32>(rows);
    bench_in_list::<i64>(rows);
}
