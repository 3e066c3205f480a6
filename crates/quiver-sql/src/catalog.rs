//! What the binder asks of the database: its tables, its views and which
//! tables are damaged. Apart from lib.rs so the binder can name it without
//! reaching the crate root that re-exports the binder.

use std::sync::Arc;

/// Tables and views by name, as the binder sees them.
pub trait Catalog {
    fn table(&self, name: &str) -> Option<Arc<dyn quiver_plan::TableSource>>;
    /// A view's defining query, parsed.
    fn view(&self, name: &str) -> Option<sqlparser::ast::Query>;
    /// Why table `name` cannot be read, if it exists but its files are
    /// damaged: statements using it fail with this, not "doesn't exist".
    fn damaged(&self, _name: &str) -> Option<quiver_common::QuiverError> {
        None
    }
    /// The scalar functions calls resolve to (the executor's registry,
    /// which this crate does not depend on).
    fn functions(&self) -> &dyn quiver_plan::FunctionRegistry;
}
