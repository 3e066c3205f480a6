//! Binder tests against an in-memory catalog of schemas without data.

mod binder;
mod slt;
mod tpch;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_common::{QuiverError, Result};
use quiver_plan::{LogicalPlan, TableSource};

use crate::{parse_sql, Binder, Catalog};

#[derive(Debug)]
pub(crate) struct MockTable {
    name: String,
    schema: SchemaRef,
}

impl TableSource for MockTable {
    fn name(&self) -> &str {
        &self.name
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn row_count(&self) -> usize {
        1000
    }
    fn distinct_estimate(&self, _column: usize) -> Option<usize> {
        None
    }
    fn batches(&self) -> Result<Arc<Vec<RecordBatch>>> {
        Ok(Arc::new(vec![]))
    }
}

#[derive(Default)]
pub(crate) struct MockCatalog {
    tables: HashMap<String, Arc<dyn TableSource>>,
    views: HashMap<String, sqlparser::ast::Query>,
}

impl MockCatalog {
    pub fn table(mut self, name: &str, columns: &[(&str, DataType)]) -> Self {
        let fields: Vec<Field> = columns
            .iter()
            .map(|(n, t)| Field::new(*n, t.clone(), true))
            .collect();
        let t = MockTable {
            name: name.into(),
            schema: Arc::new(Schema::new(fields)),
        };
        self.tables.insert(name.to_lowercase(), Arc::new(t));
        self
    }

    /// A table of these fields (with their metadata: column collations).
    pub fn table_fields(mut self, name: &str, fields: Vec<Field>) -> Self {
        let t = MockTable {
            name: name.into(),
            schema: Arc::new(Schema::new(fields)),
        };
        self.tables.insert(name.to_lowercase(), Arc::new(t));
        self
    }

    pub fn view(mut self, name: &str, sql: &str) -> Self {
        let q = match parse_sql(sql).unwrap().remove(0) {
            sqlparser::ast::Statement::Query(q) => *q,
            other => panic!("not a query: {other}"),
        };
        self.views.insert(name.to_lowercase(), q);
        self
    }

    pub fn view_query(mut self, name: &str, q: sqlparser::ast::Query) -> Self {
        self.views.insert(name.to_lowercase(), q);
        self
    }

    pub fn get_table(&self, name: &str) -> Option<&Arc<dyn TableSource>> {
        self.tables.get(&name.to_lowercase())
    }

    pub fn drop(&mut self, name: &str) {
        self.tables.remove(&name.to_lowercase());
        self.views.remove(&name.to_lowercase());
    }

    pub fn bind(&self, sql: &str) -> Result<LogicalPlan> {
        let stmt = parse_sql(sql)?.remove(0);
        let sqlparser::ast::Statement::Query(q) = stmt else {
            return Err(QuiverError::internal("not a query"));
        };
        Binder::new(self).bind_query(&q)
    }
}

impl Catalog for MockCatalog {
    fn table(&self, name: &str) -> Option<Arc<dyn TableSource>> {
        self.tables.get(&name.to_lowercase()).cloned()
    }
    fn view(&self, name: &str) -> Option<sqlparser::ast::Query> {
        self.views.get(&name.to_lowercase()).cloned()
    }
    // The files' databases share one namespace here (their tables are
    // named apart), so `d.t` is `t`.
    fn table_in(&self, _database: Option<&str>, name: &str) -> Option<Arc<dyn TableSource>> {
        self.table(name)
    }
    fn view_in(&self, _database: Option<&str>, name: &str) -> Option<sqlparser::ast::Query> {
        self.view(name)
    }
    fn functions(&self) -> &dyn quiver_plan::FunctionRegistry {
        &quiver_exec::functions::REGISTRY
    }
}
