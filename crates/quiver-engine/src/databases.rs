//! The session's current database: USE, and which database a table's
//! name is in (`d.t`, or unqualified in the current one).

use quiver_common::{QuiverError, Result};
use quiver_sql::sqlparser::ast::{ObjectName, ObjectNamePart};

use crate::catalog::{INFORMATION_SCHEMA, SCHEMA_NAME};
use crate::session::object_name;
use crate::{Session, StatementResult};

impl Session {
    /// A table's or view's name, `[database.]name`, as (database, name): an
    /// unqualified one is in the current database (1046 when there is none).
    pub(crate) fn qualified_name(&self, name: &ObjectName) -> Result<(String, String)> {
        let parts: Vec<&str> = name
            .0
            .iter()
            .map(|p| match p {
                ObjectNamePart::Identifier(i) => Ok(i.value.as_str()),
                _ => Err(QuiverError::syntax_msg(format!(
                    "unsupported object name {name}"
                ))),
            })
            .collect::<Result<_>>()?;
        match parts.as_slice() {
            [t] => Ok((self.schema_for(None)?, t.to_string())),
            [d, t] => Ok((d.to_string(), t.to_string())),
            _ => Err(QuiverError::syntax_msg(format!(
                "You have an error in your SQL syntax near '{name}'"
            ))),
        }
    }

    /// The database a name qualified by `database` (None: unqualified) is
    /// in; 1046 when unqualified and the database chosen was dropped.
    pub(crate) fn schema_for(&self, database: Option<&str>) -> Result<String> {
        if let Some(d) = database {
            return Ok(d.to_string());
        }
        if let Some(d) = self.current_database() {
            return Ok(d);
        }
        if self.no_database.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(QuiverError::new(1046, "3D000", "No database selected"));
        }
        Ok(SCHEMA_NAME.to_string())
    }

    /// `USE name`: a database of the folder or information_schema; any
    /// other name is MySQL's error 1049. New tables then take the
    /// database's default collation (`@@collation_database`).
    pub(crate) fn use_database(
        &self,
        u: &quiver_sql::sqlparser::ast::Use,
    ) -> Result<StatementResult> {
        use quiver_sql::sqlparser::ast::Use;
        let name = match u {
            Use::Object(n) | Use::Database(n) | Use::Schema(n) => object_name(n)?,
            other => return Err(QuiverError::not_supported(other.to_string())),
        };
        let canonical = match INFORMATION_SCHEMA.eq_ignore_ascii_case(&name) {
            true => INFORMATION_SCHEMA.to_string(),
            false => self
                .db
                .schema_name(&name)
                .ok_or_else(|| crate::catalog::unknown_database(&name))?,
        };
        if let Some(c) = self.db.schema_collation(&canonical) {
            self.vars
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .collation_database = c;
        }
        self.set_current_database(Some(canonical));
        Ok(StatementResult::Done { affected: 0 })
    }

    /// Makes `db` the current database (None: none, after it was dropped).
    pub(crate) fn set_current_database(&self, db: Option<String>) {
        self.no_database
            .store(db.is_none(), std::sync::atomic::Ordering::Relaxed);
        self.process.set_db(db.clone());
        *self
            .current_database
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = db;
    }

    /// Table `name` of the current database (a client's COM_FIELD_LIST).
    pub fn current_table(&self, name: &str) -> Option<std::sync::Arc<crate::Table>> {
        self.db.table_in(&self.schema_for(None).ok()?, name)
    }

    /// The current database's name for messages: the one USE chose, else
    /// the folder's default (empty after the chosen one was dropped).
    pub fn current_schema(&self) -> String {
        self.schema_for(None).unwrap_or_default()
    }
}
