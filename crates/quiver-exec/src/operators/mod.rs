//! Physical operators. Each produces `output_partitions()` independent streams
//! of batches; pipeline breakers (join build, aggregation, sort) drain all
//! partitions of their input in parallel before producing output.

mod aggregate;
mod exec_plan;
mod filter;
mod group_concat;
mod hash_join;
mod int_group_map;
mod int_tuple_group_map;
mod json_table;
mod limit;
mod packed_keys;
mod project;
mod recursive_cte;
mod run_once;
mod scan;
mod set_op;
mod sort;
mod str_group_map;
mod union;
mod values;
mod window;

pub use crate::join_key_filter::JoinKeyFilter;
pub use aggregate::{AggregateExec, AggregateSpec};
pub use exec_plan::{
    collect, display_plan, execute_partitions, for_each_partition, BatchStream, ExecutionPlan,
    Metrics,
};
pub use filter::FilterExec;
pub use group_concat::GroupConcatSpec;
pub use hash_join::HashJoinExec;
pub use json_table::JsonTableExec;
pub use limit::LimitExec;
pub use project::ProjectExec;
pub use recursive_cte::{RecursiveCteExec, WorkTableExec};
pub(crate) use recursive_cte::{RecursiveCteParts, WorkTables};
pub use scan::ScanExec;
pub use set_op::SetOpExec;
pub use sort::{SortExec, SortKey};
pub use union::UnionExec;
pub use values::ValuesExec;
pub use window::{WindowExec, WindowSpec};
