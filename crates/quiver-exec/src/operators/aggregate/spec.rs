//! What one aggregate of a GROUP BY computes ([`AggregateSpec`]), as the
//! planner gives it.

use std::sync::Arc;

use arrow_schema::DataType;
use quiver_plan::AggFunc;

use crate::expr::PhysicalExpr;
use crate::operators::group_concat::GroupConcatSpec;

#[derive(Debug, Clone)]
pub struct AggregateSpec {
    pub func: AggFunc,
    pub arg: Option<PhysicalExpr>,
    pub distinct: bool,
    pub output_type: DataType,
    pub text: String,
    /// GROUP_CONCAT's arguments and clauses (`arg` is None).
    pub concat: Option<Arc<GroupConcatSpec>>,
}
