//! EXPLAIN and EXPLAIN ANALYZE of a query: the operator tree it runs
//! (narrow decimals where they differ), with each operator's rows and time
//! after running it.

use std::sync::Arc;
use std::time::Instant;

use quiver_common::{QuiverError, Result};
use quiver_exec::operators::display_plan;
use quiver_sql::sqlparser::ast::Statement;
use quiver_sql::SqlSource;

use crate::query::Purpose;
use crate::session::text_result;
use crate::{Session, StatementResult};

impl Session {
    pub(crate) fn explain(
        &self,
        statement: &Statement,
        analyze: bool,
        source: Option<&Arc<SqlSource>>,
    ) -> Result<StatementResult> {
        let Statement::Query(q) = statement else {
            return Err(QuiverError::not_supported(
                "EXPLAIN of a statement other than SELECT",
            ));
        };
        let query = self.prepare(q, source, Purpose::Plan)?;
        if !analyze {
            let (plan, _) = query.physical_plan()?;
            return text_result(
                "plan",
                display_plan(&plan, false)
                    .lines()
                    .map(String::from)
                    .collect(),
            );
        }
        let start = Instant::now();
        let (batches, plan) = query.collect_analyzed()?;
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        let mut lines: Vec<String> = display_plan(&plan, true)
            .lines()
            .map(String::from)
            .collect();
        lines.push(format!(
            "Total: {rows} rows in {:.3} ms",
            start.elapsed().as_secs_f64() * 1e3
        ));
        text_result("plan", lines)
    }
}
