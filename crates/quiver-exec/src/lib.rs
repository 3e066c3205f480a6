//! Physical execution: operators over Arrow record batches, run as parallel
//! partitions (morsel-driven scans, shared hash tables, partial aggregation).

pub mod bytes;
pub mod context;
pub mod expr;
pub mod functions;
pub mod hash;
mod join_key_filter;
pub mod operators;
pub mod planner;
pub mod warnings;

pub use context::ExecContext;
pub use operators::{collect, ExecutionPlan};
pub use planner::{create_narrow_plan, create_physical_plan, to_declared};
