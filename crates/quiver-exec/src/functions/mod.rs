//! The scalar function registry: every function Quiver has as an object
//! (`quiver_plan::ScalarFunction`), in the one list [`REGISTRY`] holds.
//!
//! Design (the contract and the reasons are in `quiver_plan::function`):
//! a function's name, aliases, argument count, MySQL type rule and
//! vectorized kernel are one object in one file of this folder (a small
//! family shares a file and a kernel, each member still its own object).
//! The binder finds it by name through `Catalog::functions` (the engine
//! hands it [`REGISTRY`]), converts the arguments to the types the object
//! asks for and keeps the object in the plan; the executor calls its
//! kernel; EXPLAIN and error messages print its MySQL name. `kernel.rs` has
//! the loops kernels share.
//!
//! To add a function: write its object in a file here and add it to
//! [`SCALARS`]; an aggregate (`quiver_plan::AggregateFunction`, with its
//! grouped accumulator) goes in `aggregate/` and [`AGGREGATES`]; a window
//! function (`quiver_plan::WindowFunction`) in `window/` and [`WINDOWS`]. Functions not listed are still `ScalarFunc` variants bound
//! in `quiver-sql/src/binder/functions.rs` and run in `expr/functions.rs`.

pub mod aggregate;
pub(crate) mod kernel;
pub mod math;
pub mod window;

use quiver_plan::function::StaticRegistry;
use quiver_plan::{AggregateFunction, ScalarFunction, WindowFunction};

/// Every registered scalar function, in docs/FUNCTIONS.md's order.
pub static SCALARS: &[&dyn ScalarFunction] = &[
    // Numeric.
    &math::rounding::ABS,
    &math::real::ACOS,
    &math::real::ASIN,
    &math::real::ATAN,
    &math::bit_count::BIT_COUNT,
    &math::rounding::CEILING,
    &math::conv::CONV,
    &math::real::COS,
    &math::real::COT,
    &math::crc::CRC32,
    &math::crc::CRC32C,
    &math::real::DEGREES,
    &math::real::EXP,
    &math::rounding::FLOOR,
    &math::real::LN,
    &math::real::LOG,
    &math::real::LOG10,
    &math::real::LOG2,
    &math::real::POW,
    &math::real::RADIANS,
    &math::rounding::ROUND,
    &math::sign::SIGN,
    &math::real::SIN,
    &math::real::SQRT,
    &math::real::TAN,
    &math::rounding::TRUNCATE,
];

/// Every registered aggregate (COUNT, SUM, AVG, MIN, MAX and GROUP_CONCAT
/// are `AggFunc` variants with their own accumulators).
pub static AGGREGATES: &[&dyn AggregateFunction] = &[
    &aggregate::bit::BIT_AND,
    &aggregate::bit::BIT_OR,
    &aggregate::bit::BIT_XOR,
    &aggregate::variance::STDDEV_POP,
    &aggregate::variance::STDDEV_SAMP,
    &aggregate::variance::VAR_POP,
    &aggregate::variance::VAR_SAMP,
];

/// Every registered window function (aggregates over a window are the
/// aggregates above).
pub static WINDOWS: &[&dyn WindowFunction] = &[
    &window::ranking::CUME_DIST,
    &window::ranking::DENSE_RANK,
    &window::value::FIRST_VALUE,
    &window::offset::LAG,
    &window::value::LAST_VALUE,
    &window::offset::LEAD,
    &window::value::NTH_VALUE,
    &window::ranking::NTILE,
    &window::ranking::PERCENT_RANK,
    &window::ranking::RANK,
    &window::ranking::ROW_NUMBER,
];

/// The registry the binder resolves names through.
pub static REGISTRY: StaticRegistry = StaticRegistry::with_windows(SCALARS, AGGREGATES, WINDOWS);
