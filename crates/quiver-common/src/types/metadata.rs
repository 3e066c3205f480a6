//! Field-metadata keys: what a column carries beyond its Arrow type
//! (DEFAULT, declared type, collation, protocol flags), and the declared
//! CHAR / VARCHAR length read back from that metadata.

/// Field metadata key holding a column's DEFAULT as SQL text.
pub const COLUMN_DEFAULT_KEY: &str = "quiver.default";
/// Field metadata key holding a column's declared type where the Arrow type
/// does not say it all, as SHOW COLUMNS prints it: `char(3)`, `varchar(20)`.
pub const COLUMN_TYPE_KEY: &str = "quiver.column_type";

/// Field metadata of a result column: a computed DOUBLE's display length.
pub const COLUMN_DISPLAY_LENGTH_KEY: &str = "quiver.display_length";

/// Field metadata of a result column: a computed DOUBLE's fixed decimals
/// (MariaDB's `decimals` below 31: PI() shows 3.141593), which the text
/// protocol shows it with.
pub const COLUMN_DECIMALS_KEY: &str = "quiver.decimals";

/// The fixed decimals of a DOUBLE result field, if it has them.
pub fn field_decimals(f: &arrow_schema::Field) -> Option<usize> {
    if f.data_type() != &arrow_schema::DataType::Float64 {
        return None;
    }
    f.metadata().get(COLUMN_DECIMALS_KEY)?.parse().ok()
}

/// Field metadata key holding a string column's collation name.
pub const COLUMN_COLLATION_KEY: &str = "quiver.collation";
/// Field metadata of a query result column that can never be NULL (the
/// protocol's NOT_NULL flag). Result fields stay nullable for Arrow: this
/// is what the binder knows, not a checked constraint.
pub const COLUMN_NOT_NULL_KEY: &str = "quiver.not_null";
/// Field metadata of a query result column read unchanged from a table or
/// derived table: schema, table (as the query named it), original table and
/// original column, NUL-separated (what a MySQL column definition names).
pub const COLUMN_ORIGIN_KEY: &str = "quiver.origin";
/// Field metadata of a result column read from a NOT NULL table column
/// without a DEFAULT (the protocol's NO_DEFAULT_VALUE flag).
pub const COLUMN_NO_DEFAULT_KEY: &str = "quiver.no_default";

/// The four names of `COLUMN_ORIGIN_KEY`'s value.
pub fn split_origin(value: &str) -> Option<[&str; 4]> {
    let mut parts = value.split('\0');
    let names = [parts.next()?, parts.next()?, parts.next()?, parts.next()?];
    parts.next().is_none().then_some(names)
}

/// A string column's declared kind and length in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharLength {
    /// CHAR(n): trailing spaces are removed when a value is stored (MySQL
    /// without PAD_CHAR_TO_FULL_LENGTH reads them back without).
    Char(usize),
    /// VARCHAR(n): values keep their trailing spaces.
    Varchar(usize),
}

impl CharLength {
    /// The declared length of a column whose type text is `column_type`.
    pub fn of(column_type: &str) -> Option<CharLength> {
        let (kind, rest) = column_type.split_once('(')?;
        let n: usize = rest.strip_suffix(')')?.trim().parse().ok()?;
        match kind.trim() {
            "char" => Some(CharLength::Char(n)),
            "varchar" => Some(CharLength::Varchar(n)),
            _ => None,
        }
    }

    pub fn max_chars(self) -> usize {
        match self {
            CharLength::Char(n) | CharLength::Varchar(n) => n,
        }
    }
}

/// Schema (table) metadata key holding the table's PRIMARY KEY and UNIQUE
/// keys, one a line ([`TableKey::list_text`]).
pub const TABLE_KEYS_KEY: &str = "quiver.keys";
/// Schema (table) metadata key holding the table's default collation
/// (CREATE TABLE's DEFAULT CHARSET / COLLATE, else the database's).
pub const TABLE_COLLATION_KEY: &str = "quiver.table_collation";
/// Schema (table) metadata key holding the index of the AUTO_INCREMENT
/// column.
pub const TABLE_AUTO_INCREMENT_KEY: &str = "quiver.auto_increment";

/// A PRIMARY KEY or UNIQUE key of a table: its name (`PRIMARY` for the
/// primary key) and its columns by index, in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableKey {
    pub primary: bool,
    pub name: String,
    pub columns: Vec<usize>,
}

impl TableKey {
    /// The keys as kept in [`TABLE_KEYS_KEY`]: a line each, `P` or `U`, the
    /// column indexes joined by `,`, then the name (which has no newline),
    /// separated by spaces.
    pub fn list_text(keys: &[TableKey]) -> String {
        keys.iter()
            .map(|k| {
                let cols: Vec<String> = k.columns.iter().map(|c| c.to_string()).collect();
                let kind = if k.primary { "P" } else { "U" };
                format!("{kind} {} {}", cols.join(","), k.name)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The keys of a table's schema metadata value under
    /// [`TABLE_KEYS_KEY`] (none when it has none or the text is not
    /// understood).
    pub fn of_schema(text: Option<&String>) -> Vec<TableKey> {
        let Some(text) = text else {
            return Vec::new();
        };
        text.lines()
            .filter_map(|line| {
                let mut parts = line.splitn(3, ' ');
                let primary = match parts.next()? {
                    "P" => true,
                    "U" => false,
                    _ => return None,
                };
                let columns = parts
                    .next()?
                    .split(',')
                    .map(|c| c.parse().ok())
                    .collect::<Option<Vec<usize>>>()?;
                let name = parts.next()?.to_string();
                Some(TableKey {
                    primary,
                    name,
                    columns,
                })
            })
            .collect()
    }
}

/// The AUTO_INCREMENT column of a table's schema metadata value under
/// [`TABLE_AUTO_INCREMENT_KEY`].
pub fn auto_increment_column(text: Option<&String>) -> Option<usize> {
    text?.parse().ok()
}

/// Schema (table) metadata key holding the table's CHECK constraints, one
/// a line ([`checks_text`]).
pub const TABLE_CHECKS_KEY: &str = "quiver.checks";

/// One CHECK constraint of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCheck {
    /// The column of a column check (named after the column it was
    /// declared on, a name it keeps when the column is renamed); None for
    /// a table check.
    pub column: Option<String>,
    pub name: String,
    /// The expression as MariaDB prints it.
    pub text: String,
}

impl TableCheck {
    /// MariaDB's 4025 for a row of table `table` of database `db` that fails it.
    pub fn failed(&self, db: &str, table: &str) -> crate::QuiverError {
        let name = match self.column {
            Some(_) => format!("{table}.{}", self.name),
            None => self.name.clone(),
        };
        crate::QuiverError::new(
            4025,
            "23000",
            format!("CONSTRAINT `{name}` failed for `{db}`.`{table}`"),
        )
    }
}

/// The checks as kept under [`TABLE_CHECKS_KEY`]: a line each, `T` (table)
/// or `C` and the column (a column check), a tab, the name, a tab, the text
/// with `\`, tab and newline escaped.
pub fn checks_text(checks: &[TableCheck]) -> String {
    checks
        .iter()
        .map(|c| {
            let text = c
                .text
                .replace('\\', "\\\\")
                .replace('\t', "\\t")
                .replace('\n', "\\n");
            let kind = match &c.column {
                Some(col) => format!("C{col}"),
                None => "T".to_string(),
            };
            format!("{kind}\t{}\t{text}", c.name)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The checks of a table's schema.
pub fn checks_of_schema(schema: &arrow_schema::Schema) -> Vec<TableCheck> {
    let Some(text) = schema.metadata().get(TABLE_CHECKS_KEY) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, '\t');
            let kind = parts.next()?;
            let column = match kind.split_at_checked(1)? {
                ("C", col) => Some(col.to_string()),
                ("T", _) => None,
                _ => return None,
            };
            let name = parts.next()?.to_string();
            let mut text = String::new();
            let mut chars = parts.next()?.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some('t') => text.push('\t'),
                        Some('n') => text.push('\n'),
                        Some(o) => text.push(o),
                        None => {}
                    },
                    c => text.push(c),
                }
            }
            Some(TableCheck { column, name, text })
        })
        .collect()
}

/// Sets (or, when there are none, removes) the checks of a schema's metadata.
pub fn set_checks<S: std::hash::BuildHasher>(
    meta: &mut std::collections::HashMap<String, String, S>,
    checks: &[TableCheck],
) {
    match checks.is_empty() {
        true => meta.remove(TABLE_CHECKS_KEY),
        false => meta.insert(TABLE_CHECKS_KEY.to_string(), checks_text(checks)),
    };
}
