//! Logical plans: what a query computes, independent of how.
//!
//! The binder (`quiver-sql`) builds these; the optimizer rules in [`optimizer`]
//! rewrite them; `quiver-exec` turns them into physical operators.
//! Every column a plan node produces has a [`ColumnId`] unique in the query, so a
//! rule can tell where an expression may go by the ids it reads.

pub mod aggregate;
pub mod copy;
pub mod expr;
pub mod function;
pub mod interval;
pub mod json_table;
pub mod mysql_text;
pub mod optimizer;
pub mod plan;
pub mod window;

pub use aggregate::{AggregateFunction, AggregateRef, GroupsAccumulator};
pub use copy::copy_with_fresh_ids;
pub use expr::*;
pub use function::{FunctionRef, FunctionRegistry, ScalarFunction};
pub use json_table::{JsonTableColumn, JsonTableDef, JsonTableOn};
pub use mysql_text::mysql_text;
pub use plan::*;
pub use window::{WindowFrame, WindowFunction, WindowRef};
