//! Random tables: every kind of column (integers of each width at their
//! extremes, the widest and the all-fraction decimals, floats and doubles,
//! strings of several collations and character sets with empty, padded,
//! long and non-ASCII values, fixed-width CHAR, binary strings, dates and
//! datetimes with fractions), NULLs, and as SQL the statements that make
//! them.

use crate::rng::Rng;

/// What a column holds, as the expression generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Decimal,
    Double,
    Text,
    Date,
    DateTime,
}

/// A column type: its SQL, its kind and the values it may take (SQL text).
struct ColumnType {
    sql: &'static str,
    kind: Kind,
    values: &'static [&'static str],
}

const TYPES: &[ColumnType] = &[
    ColumnType {
        sql: "INT",
        kind: Kind::Int,
        values: &[
            "0",
            "1",
            "-1",
            "7",
            "42",
            "2147483647",
            "-2147483648",
            "100",
        ],
    },
    ColumnType {
        sql: "BIGINT",
        kind: Kind::Int,
        values: &[
            "0",
            "3",
            "-3",
            "9223372036854775807",
            "-9223372036854775808",
            "1000000",
        ],
    },
    ColumnType {
        sql: "BIGINT UNSIGNED",
        kind: Kind::Int,
        values: &["0", "1", "18446744073709551615", "9223372036854775808", "5"],
    },
    ColumnType {
        sql: "TINYINT",
        kind: Kind::Int,
        values: &["0", "127", "-128", "1", "-5"],
    },
    ColumnType {
        sql: "DECIMAL(10,2)",
        kind: Kind::Decimal,
        values: &[
            "0.00",
            "1.50",
            "-2.25",
            "99999999.99",
            "-99999999.99",
            "0.01",
        ],
    },
    ColumnType {
        sql: "DECIMAL(65,0)",
        kind: Kind::Decimal,
        values: &[
            "0",
            "12345678901234567890123456789012345678901234567890123456789012345",
            "-99999999999999999999999999999999999999999999999999999999999999999",
            "17",
        ],
    },
    ColumnType {
        sql: "DOUBLE",
        kind: Kind::Double,
        values: &["0", "-0.5", "3.25", "1e300", "-1e-300", "2.5"],
    },
    ColumnType {
        sql: "VARCHAR(12) COLLATE utf8mb4_bin",
        kind: Kind::Text,
        values: &["''", "'a'", "'A'", "'a '", "'ß'", "'ss'", "'b%_'", "'é😀'"],
    },
    ColumnType {
        sql: "VARCHAR(12) COLLATE utf8mb4_general_ci",
        kind: Kind::Text,
        values: &["''", "'a'", "'A'", "'a  '", "'Ä'", "'ae'", "'x_y'", "'Zz'"],
    },
    ColumnType {
        sql: "VARCHAR(12) COLLATE utf8mb4_unicode_ci",
        kind: Kind::Text,
        values: &["''", "'ß'", "'ss'", "'SS'", "'é'", "'E'", "'abc'"],
    },
    ColumnType {
        sql: "SMALLINT UNSIGNED",
        kind: Kind::Int,
        values: &["0", "65535", "1", "300"],
    },
    ColumnType {
        sql: "DECIMAL(5,5)",
        kind: Kind::Decimal,
        values: &["0.00000", "0.99999", "-0.99999", "0.00001", "0.5"],
    },
    ColumnType {
        sql: "FLOAT",
        kind: Kind::Double,
        values: &["0", "1.5", "-3.4e38", "3.4e38", "1e-30", "0.1"],
    },
    ColumnType {
        sql: "CHAR(5) COLLATE utf8mb4_general_ci",
        kind: Kind::Text,
        values: &["''", "'a'", "'A  '", "'abcde'", "'É'", "'  x'"],
    },
    ColumnType {
        sql: "VARCHAR(300) COLLATE latin1_swedish_ci",
        kind: Kind::Text,
        values: &["''", "'Å'", "'aa'", "'Z'", "REPEAT('x', 300)", "'y '"],
    },
    ColumnType {
        sql: "VARBINARY(16)",
        kind: Kind::Text,
        values: &["''", "x'00'", "'a'", "'A'", "x'FF00'", "'a '"],
    },
    ColumnType {
        sql: "DATETIME",
        kind: Kind::DateTime,
        values: &[
            "'1000-01-01 00:00:00'",
            "'9999-12-31 23:59:59'",
            "'2024-02-29 12:00:00'",
            "'1970-01-01 00:00:01'",
        ],
    },
    ColumnType {
        sql: "DATETIME(6)",
        kind: Kind::DateTime,
        values: &[
            "'2000-01-01 00:00:00.000001'",
            "'2000-01-01 00:00:00.999999'",
            "'1999-12-31 23:59:59.5'",
        ],
    },
    ColumnType {
        sql: "ENUM('b','a','C','') COLLATE utf8mb4_general_ci",
        kind: Kind::Text,
        values: &["'a'", "'B'", "'c'", "''", "'A '", "1"],
    },
    ColumnType {
        sql: "SET('x','y','z') COLLATE utf8mb4_bin",
        kind: Kind::Text,
        values: &["''", "'x'", "'y,x'", "'z,y,x'", "'z'", "3"],
    },
    ColumnType {
        sql: "DATE",
        kind: Kind::Date,
        values: &[
            "'1000-01-01'",
            "'9999-12-31'",
            "'2024-02-29'",
            "'1970-01-01'",
            "'2000-06-15'",
        ],
    },
];

/// A column of a generated table.
#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
    /// The collation of a text column (its declaration's), for mixing
    /// only columns that can meet.
    pub collation: Option<&'static str>,
    /// The column's declared type (`VARCHAR(10) COLLATE ...`, `DOUBLE`).
    pub sql_type: &'static str,
}

/// A generated table: its name, columns, CREATE TABLE and rows (each the
/// SQL of one VALUES tuple, so a failure can be shrunk row by row).
#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
    pub create: String,
    pub rows: Vec<String>,
}

impl Table {
    /// The statements that make the table with its rows.
    pub fn statements(&self) -> Vec<String> {
        let mut out = vec![self.create.clone()];
        if !self.rows.is_empty() {
            out.push(format!(
                "INSERT INTO {} VALUES {}",
                self.name,
                self.rows.join(", ")
            ));
        }
        out
    }
}

/// A VARCHAR column type for every text collation of the registry (so a
/// collation added there is fuzzed without a change here), with values its
/// character set holds (an ASCII column gets only ASCII, a latin1 one
/// Latin-1).
fn collated_types() -> &'static [ColumnType] {
    use quiver_collation::{Charset, Collation};
    static TYPES: std::sync::OnceLock<Vec<ColumnType>> = std::sync::OnceLock::new();
    TYPES.get_or_init(|| {
        Collation::all()
            .filter(|c| c.charset() != Charset::Binary)
            .map(|c| ColumnType {
                sql: Box::leak(format!("VARCHAR(10) COLLATE {}", c.name()).into_boxed_str()),
                kind: Kind::Text,
                values: match c.charset() {
                    Charset::Ascii => &["''", "'a'", "'A '", "'ab'", "'B'", "' x'"],
                    Charset::Latin1 => &["''", "'a'", "'Å'", "'aa'", "'É '", "'ss'", "'ß'"],
                    Charset::Utf8mb3 => &["''", "'a'", "'É'", "'e'", "'ß'", "'ss '", "'ǅ'"],
                    _ => &[
                        "''",
                        "'a'",
                        "'A '",
                        "'é😀'",
                        "'ß'",
                        "'SS'",
                        "'Ǆ'",
                        "'e\u{301}'",
                    ],
                },
            })
            .collect()
    })
}

/// A table `name` of 2 to 5 columns (the first an INT id) and 0 to 24 rows.
pub fn table(rng: &mut Rng, name: &str) -> Table {
    let mut types: Vec<&ColumnType> = vec![&TYPES[0]];
    for _ in 0..1 + rng.below(4) {
        types.push(match rng.chance(1, 4) {
            true => rng.pick(collated_types()),
            false => rng.pick(TYPES),
        });
    }
    let columns: Vec<Column> = types
        .iter()
        .enumerate()
        .map(|(i, t)| Column {
            name: if i == 0 { "id".into() } else { format!("c{i}") },
            kind: t.kind,
            sql_type: t.sql,
            collation: if t.sql.starts_with("VARBINARY") {
                Some("binary")
            } else {
                t.sql.split("COLLATE ").nth(1)
            },
        })
        .collect();
    let defs: Vec<String> = columns
        .iter()
        .zip(&types)
        .map(|(c, t)| format!("{} {}", c.name, t.sql))
        .collect();
    let create = format!("CREATE TABLE {name} ({})", defs.join(", "));
    let rows = match rng.below(6) {
        0 => 0,
        1 => 1,
        _ => 2 + rng.below(23),
    };
    let rows: Vec<String> = (0..rows)
        .map(|r| {
            let cells: Vec<String> = types
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    if i == 0 {
                        // Ids repeat now and then, so joins fan out.
                        (r % 7 + rng.below(2)).to_string()
                    } else if rng.chance(1, 6) {
                        "NULL".into()
                    } else {
                        rng.pick(t.values).to_string()
                    }
                })
                .collect();
            format!("({})", cells.join(", "))
        })
        .collect();
    Table {
        name: name.into(),
        columns,
        create,
        rows,
    }
}
