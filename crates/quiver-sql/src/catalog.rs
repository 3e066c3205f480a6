//! What the binder asks of the database: its tables, its views and which
//! tables are damaged. Apart from lib.rs so the binder can name it without
//! reaching the crate root that re-exports the binder.

use std::sync::Arc;

/// The database an unqualified name is in when the catalog knows no other.
pub const DEFAULT_DATABASE: &str = "quiver";

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
    /// Table `name` of database `database` (None: the current one).
    fn table_in(
        &self,
        database: Option<&str>,
        name: &str,
    ) -> Option<Arc<dyn quiver_plan::TableSource>> {
        match database {
            Some(d) if !d.eq_ignore_ascii_case(DEFAULT_DATABASE) => None,
            _ => self.table(name),
        }
    }
    /// View `name` of database `database` (None: the current one).
    fn view_in(&self, database: Option<&str>, name: &str) -> Option<sqlparser::ast::Query> {
        match database {
            Some(d) if !d.eq_ignore_ascii_case(DEFAULT_DATABASE) => None,
            _ => self.view(name),
        }
    }
    /// [`Catalog::damaged`] of a table of database `database`.
    fn damaged_in(&self, database: Option<&str>, name: &str) -> Option<quiver_common::QuiverError> {
        match database {
            Some(d) if !d.eq_ignore_ascii_case(DEFAULT_DATABASE) => None,
            _ => self.damaged(name),
        }
    }
    /// The database unqualified names are in: MySQL's 1046 when none is.
    fn current_database(&self) -> quiver_common::Result<String> {
        Ok(DEFAULT_DATABASE.to_string())
    }
    /// The scalar functions calls resolve to (the executor's registry,
    /// which this crate does not depend on).
    fn functions(&self) -> &dyn quiver_plan::FunctionRegistry;
}
