//! Random well-formed expressions and queries over generated tables. Types
//! are mixed on purpose (MySQL converts), so a query may fail with a MySQL
//! error (overflow, an illegal mix of collations): that is an answer, not a
//! finding. Expressions stay shallow enough to read in a report.

use crate::rng::Rng;
use crate::schema::{Kind, Table};

/// A column in scope: `alias.name` and what it holds.
#[derive(Debug, Clone)]
pub struct Scoped {
    pub sql: String,
    pub kind: Kind,
}

/// The FROM clause of a query and the columns it brings into scope.
#[derive(Debug, Clone)]
pub struct From {
    pub sql: String,
    pub columns: Vec<Scoped>,
}

/// One table, or two joined (inner, left, cross) on a random condition.
pub fn from(rng: &mut Rng, tables: &[Table]) -> From {
    let scoped = |t: &Table, alias: &str| -> Vec<Scoped> {
        t.columns
            .iter()
            .map(|c| Scoped {
                sql: format!("{alias}.{}", c.name),
                kind: c.kind,
            })
            .collect()
    };
    let a = rng.pick(tables);
    if tables.len() < 2 || rng.chance(1, 2) {
        return From {
            sql: format!("{} a", a.name),
            columns: scoped(a, "a"),
        };
    }
    let b = rng.pick(tables);
    let mut columns = scoped(a, "a");
    columns.extend(scoped(b, "b"));
    let kind = *rng.pick(&["JOIN", "LEFT JOIN", "CROSS JOIN", "JOIN"]);
    let on = match kind {
        "CROSS JOIN" => String::new(),
        _ if rng.chance(2, 3) => " ON a.id = b.id".into(),
        _ => {
            let mut g = Gen {
                rng,
                columns: &columns,
                tables: &[],
            };
            format!(" ON {}", g.boolean(2))
        }
    };
    From {
        sql: format!("{} a {kind} {} b{on}", a.name, b.name),
        columns,
    }
}

/// An expression generator over the columns in scope; `tables` are those
/// a subquery may read (none: no subqueries).
pub struct Gen<'a> {
    pub rng: &'a mut Rng,
    pub columns: &'a [Scoped],
    pub tables: &'a [Table],
}

const TEXTS: &[&str] = &[
    "''", "'a'", "'A '", "'ß'", "'ss'", "'%a%'", "'_'", "'xyz'", "'É'",
];
const INTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "10",
    "127",
    "2147483647",
    "-2147483648",
    "9223372036854775807",
    "18446744073709551615",
    "NULL",
];
const DECIMALS: &[&str] = &["0.5", "-1.25", "99999999.99", "0.001", "1e2"];
const DATES: &[&str] = &[
    "DATE '2000-01-01'",
    "DATE '9999-12-31'",
    "DATE '1000-01-01'",
    "'2024-02-29'",
];

impl Gen<'_> {
    fn column(&mut self, kinds: &[Kind]) -> Option<String> {
        let fits: Vec<&Scoped> = self
            .columns
            .iter()
            .filter(|c| kinds.contains(&c.kind))
            .collect();
        (!fits.is_empty()).then(|| self.rng.pick(&fits).sql.clone())
    }

    /// A number (integer, decimal or double).
    pub fn number(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(1, 3) {
            if let Some(c) = self
                .rng
                .chance(3, 4)
                .then(|| self.column(&[Kind::Int, Kind::Decimal, Kind::Double]))
                .flatten()
            {
                return c;
            }
            return match self.rng.below(3) {
                0 => self.rng.pick(DECIMALS).to_string(),
                _ => self.rng.pick(INTS).to_string(),
            };
        }
        let d = depth - 1;
        match self.rng.below(13) {
            0 => format!("({} + {})", self.number(d), self.number(d)),
            1 => format!("({} - {})", self.number(d), self.number(d)),
            2 => format!("({} * {})", self.number(d), self.number(d)),
            3 => format!("({} / {})", self.number(d), self.number(d)),
            4 => format!("({} DIV {})", self.number(d), self.number(d)),
            5 => format!("({} % {})", self.number(d), self.number(d)),
            6 => format!("ABS({})", self.number(d)),
            7 => format!("-({})", self.number(d)),
            8 => format!(
                "CASE WHEN {} THEN {} ELSE {} END",
                self.boolean(d),
                self.number(d),
                self.number(d)
            ),
            9 => format!("COALESCE({}, {})", self.number(d), self.number(d)),
            10 => format!("LENGTH({})", self.text(d)),
            11 => format!(
                "CAST({} AS {})",
                self.number(d),
                self.rng
                    .pick(&["SIGNED", "UNSIGNED", "DECIMAL(12,3)", "DOUBLE", "CHAR"])
            ),
            _ => format!("ROUND({}, {})", self.number(d), self.rng.below(4)),
        }
    }

    /// A string.
    pub fn text(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.chance(1, 3) {
            if let Some(c) = self
                .rng
                .chance(3, 4)
                .then(|| self.column(&[Kind::Text]))
                .flatten()
            {
                return c;
            }
            return self.rng.pick(TEXTS).to_string();
        }
        let d = depth - 1;
        match self.rng.below(10) {
            0 => format!("CONCAT({}, {})", self.text(d), self.text(d)),
            1 => format!("UPPER({})", self.text(d)),
            2 => format!("LOWER({})", self.text(d)),
            3 => format!(
                "SUBSTRING({}, {}, {})",
                self.text(d),
                self.rng.below(4) as i64 - 1,
                self.rng.below(5)
            ),
            4 => format!(
                "LPAD({}, {}, {})",
                self.text(d),
                self.rng.below(6),
                self.text(0)
            ),
            5 => format!(
                "RPAD({}, {}, {})",
                self.text(d),
                self.rng.below(6),
                self.text(0)
            ),
            6 => format!("TRIM({})", self.text(d)),
            7 => format!(
                "REPLACE({}, {}, {})",
                self.text(d),
                self.text(0),
                self.text(0)
            ),
            8 => format!(
                "IF({}, {}, {})",
                self.boolean(d),
                self.text(d),
                self.text(d)
            ),
            _ => format!("CAST({} AS CHAR)", self.number(d)),
        }
    }

    /// A date.
    fn date(&mut self) -> String {
        match self.column(&[Kind::Date]) {
            Some(c) if self.rng.chance(3, 4) => c,
            _ => self.rng.pick(DATES).to_string(),
        }
    }

    /// A truth value (which may be NULL).
    pub fn boolean(&mut self, depth: usize) -> String {
        let cmp = *self.rng.pick(&["=", "<>", "<", "<=", ">", ">=", "<=>"]);
        if depth == 0 {
            return match self.rng.below(4) {
                0 => format!("{} {cmp} {}", self.text(0), self.text(0)),
                1 => format!("{} {cmp} {}", self.date(), self.date()),
                _ => format!("{} {cmp} {}", self.number(0), self.number(0)),
            };
        }
        let d = depth - 1;
        if !self.tables.is_empty() && self.rng.chance(1, 8) {
            return self.subquery_test(d);
        }
        match self.rng.below(12) {
            0 => format!("({} AND {})", self.boolean(d), self.boolean(d)),
            1 => format!("({} OR {})", self.boolean(d), self.boolean(d)),
            2 => format!("NOT ({})", self.boolean(d)),
            3 => format!("{} IS NULL", self.number(d)),
            4 => format!("{} IS NOT NULL", self.text(d)),
            5 => format!(
                "{} BETWEEN {} AND {}",
                self.number(d),
                self.number(0),
                self.number(0)
            ),
            6 => format!(
                "{} IN ({}, {}, {})",
                self.number(d),
                self.number(0),
                self.number(0),
                self.number(0)
            ),
            7 => format!(
                "{} LIKE {}",
                self.text(d),
                self.rng
                    .pick(&["'a%'", "'%s%'", "'_'", "''", "'%'", "'A_'"])
            ),
            8 => format!("{} {cmp} {}", self.text(d), self.text(d)),
            9 => format!("{} {cmp} {}", self.date(), self.date()),
            10 => format!("({}) IS TRUE", self.boolean(d)),
            _ => format!("{} {cmp} {}", self.number(d), self.number(d)),
        }
    }

    /// IN / NOT IN / EXISTS over a table, plain or correlated with the
    /// columns in scope, or a comparison with a scalar subquery.
    fn subquery_test(&mut self, depth: usize) -> String {
        let t = self.rng.pick(self.tables).clone();
        let inner: Vec<Scoped> = t
            .columns
            .iter()
            .map(|c| Scoped {
                sql: format!("s.{}", c.name),
                kind: c.kind,
            })
            .collect();
        // The subquery sees its own columns and, correlated, the outer ones.
        let mut scope = inner.clone();
        if self.rng.chance(1, 2) {
            scope.extend(self.columns.iter().cloned());
        }
        let mut g = Gen {
            rng: self.rng,
            columns: &scope,
            tables: &[],
        };
        let filter = g.boolean(depth.min(1));
        let inner_num = {
            let mut g = Gen {
                rng: self.rng,
                columns: &inner,
                tables: &[],
            };
            g.number(0)
        };
        let outer = self.number(0);
        match self.rng.below(5) {
            0 => format!(
                "{outer} IN (SELECT {inner_num} FROM {} s WHERE {filter})",
                t.name
            ),
            1 => format!(
                "{outer} NOT IN (SELECT {inner_num} FROM {} s WHERE {filter})",
                t.name
            ),
            2 => format!("EXISTS (SELECT 1 FROM {} s WHERE {filter})", t.name),
            3 => format!("NOT EXISTS (SELECT 1 FROM {} s WHERE {filter})", t.name),
            _ => format!(
                "{outer} {} (SELECT {} FROM {} s WHERE {filter})",
                self.rng.pick(&["=", "<", ">="]),
                self.rng
                    .pick(&["MAX(s.id)", "MIN(s.id)", "COUNT(*)", "SUM(s.id)"]),
                t.name
            ),
        }
    }

    /// A select item of any kind.
    pub fn item(&mut self, depth: usize) -> String {
        match self.rng.below(4) {
            0 => self.text(depth),
            1 => self.boolean(depth),
            _ => self.number(depth),
        }
    }
}
