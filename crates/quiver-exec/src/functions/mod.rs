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
pub mod datetime;
pub mod json;
pub(crate) mod kernel;
pub mod math;
pub mod misc;
pub mod regexp;
pub mod string;
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
    &math::conv::BIN,
    &math::bit_count::BIT_COUNT,
    // Bit operators.
    &math::bit_ops::BIT_AND_OP,
    &math::bit_ops::SHIFT_RIGHT,
    &math::bit_ops::SHIFT_LEFT,
    &math::bit_ops::BIT_XOR_OP,
    &math::bit_ops::BIT_OR_OP,
    &math::bit_ops::BIT_NOT,
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
    &math::conv::OCT,
    &math::rand::PI,
    &math::real::POW,
    &math::real::RADIANS,
    &math::rand::RAND,
    &math::rounding::ROUND,
    &math::sign::SIGN,
    &math::real::SIN,
    &math::real::SQRT,
    &math::real::TAN,
    &math::rounding::TRUNCATE,
    // Date and time.
    &datetime::convert_tz::CONVERT_TZ,
    &datetime::date_format::DATE_FORMAT,
    &datetime::datediff::DATEDIFF,
    &datetime::day_parts::DAYNAME,
    &datetime::day_parts::DAYOFWEEK,
    &datetime::day_parts::DAYOFYEAR,
    &datetime::day_numbers::FROM_DAYS,
    &datetime::unix_time::FROM_UNIXTIME,
    &datetime::day_parts::LAST_DAY,
    &datetime::day_numbers::MAKEDATE,
    &datetime::day_parts::MONTHNAME,
    &datetime::day_numbers::PERIOD_ADD,
    &datetime::day_numbers::PERIOD_DIFF,
    &datetime::str_to_date::STR_TO_DATE,
    &datetime::day_parts::TO_DAYS,
    &datetime::day_parts::TO_SECONDS,
    &datetime::unix_time::UNIX_TIMESTAMP,
    &datetime::week::WEEK,
    &datetime::day_parts::WEEKDAY,
    &datetime::week::WEEKOFYEAR,
    &datetime::week::YEARWEEK,
    &datetime::time_fns::ADDTIME,
    &datetime::time_fns::HOUR,
    &datetime::time_fns::MAKETIME,
    &datetime::time_fns::MICROSECOND,
    &datetime::time_fns::MINUTE,
    &datetime::time_fns::SECOND,
    &datetime::time_fns::SEC_TO_TIME,
    &datetime::time_fns::SUBTIME,
    &datetime::time_fns::TIME,
    &datetime::time_fns::TIMEDIFF,
    &datetime::time_format::TIME_FORMAT,
    &datetime::time_fns::TIME_TO_SEC,
    // String.
    &string::chr::CHR,
    &regexp::matches::REGEXP,
    &regexp::search::REGEXP_INSTR,
    &regexp::replace::REGEXP_REPLACE,
    &regexp::search::REGEXP_SUBSTR,
    &string::elt::ELT,
    &string::elt::EXPORT_SET,
    &string::find_in_set::FIND_IN_SET,
    &string::format::FORMAT,
    &string::base64::FROM_BASE64,
    &string::chr::LENGTHB,
    &string::elt::MAKE_SET,
    &string::quote::QUOTE,
    &string::soundex::SOUNDEX,
    &string::base64::TO_BASE64,
    // Miscellaneous.
    &misc::aes::AES_DECRYPT,
    &misc::aes::AES_ENCRYPT,
    &misc::compress::COMPRESS,
    &misc::compress::UNCOMPRESS,
    &misc::compress::UNCOMPRESSED_LENGTH,
    &misc::inet::INET6_ATON,
    &misc::inet::INET6_NTOA,
    &misc::inet::INET_ATON,
    &misc::inet::INET_NTOA,
    &misc::inet::IS_IPV4,
    &misc::inet::IS_IPV4_COMPAT,
    &misc::inet::IS_IPV4_MAPPED,
    &misc::inet::IS_IPV6,
    &misc::uuid::SYS_GUID,
    &misc::uuid::UUID,
    &misc::uuid::UUID_SHORT,
    // JSON.
    &json::build::JSON_ARRAY,
    &json::build::JSON_OBJECT,
    &json::compare::JSON_CONTAINS,
    &json::compare::JSON_EQUALS,
    &json::compare::JSON_OVERLAPS,
    &json::compare::JSON_SEARCH,
    &json::format::JSON_DETAILED,
    &json::format::JSON_LOOSE,
    &json::format::JSON_NORMALIZE,
    &json::merge::JSON_MERGE,
    &json::merge::JSON_MERGE_PATCH,
    &json::merge::JSON_MERGE_PRESERVE,
    &json::modify::JSON_ARRAY_APPEND,
    &json::modify::JSON_ARRAY_INSERT,
    &json::modify::JSON_INSERT,
    &json::modify::JSON_REMOVE,
    &json::modify::JSON_REPLACE,
    &json::modify::JSON_SET,
    &json::read::JSON_COMPACT,
    &json::read::JSON_CONTAINS_PATH,
    &json::read::JSON_DEPTH,
    &json::read::JSON_EXISTS,
    &json::read::JSON_EXTRACT,
    &json::read::JSON_KEYS,
    &json::read::JSON_LENGTH,
    &json::read::JSON_QUERY,
    &json::read::JSON_QUOTE,
    &json::read::JSON_TYPE,
    &json::read::JSON_UNQUOTE,
    &json::read::JSON_VALID,
    &json::read::JSON_VALUE,
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
    &window::percentile::MEDIAN,
    &window::value::NTH_VALUE,
    &window::ranking::NTILE,
    &window::ranking::PERCENT_RANK,
    &window::percentile::PERCENTILE_CONT,
    &window::percentile::PERCENTILE_DISC,
    &window::ranking::RANK,
    &window::ranking::ROW_NUMBER,
];

/// The registry the binder resolves names through.
pub static REGISTRY: StaticRegistry = StaticRegistry::with_windows(SCALARS, AGGREGATES, WINDOWS);
