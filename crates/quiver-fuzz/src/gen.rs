//! Random well-formed expressions and queries over generated tables. Types
//! are mixed on purpose (MySQL converts), so a query may fail with a MySQL
//! error (overflow, an illegal mix of collations): that is an answer, not a
//! finding. Expressions stay shallow enough to read in a report; the
//! functions they call are the templates of [`crate::functions`].

use crate::functions;
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
    // A table, or now and then a derived table over it (filtered, so that
    // the planner has something to push through it).
    let source = |rng: &mut Rng, t: &Table| -> String {
        if !rng.chance(1, 5) {
            return t.name.clone();
        }
        let columns = scoped(t, t.name.as_str());
        let mut g = Gen {
            rng,
            columns: &columns,
            tables: &[],
        };
        format!("(SELECT * FROM {} WHERE {})", t.name, g.boolean(1))
    };
    if tables.len() < 2 || rng.chance(1, 2) {
        return From {
            sql: format!("{} a", source(rng, a)),
            columns: scoped(a, "a"),
        };
    }
    let b = rng.pick(tables);
    let mut columns = scoped(a, "a");
    columns.extend(scoped(b, "b"));
    let kind = *rng.pick(&["JOIN", "LEFT JOIN", "RIGHT JOIN", "CROSS JOIN", "JOIN"]);
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
    let (sa, sb) = (source(rng, a), source(rng, b));
    From {
        sql: format!("{sa} a {kind} {sb} b{on}"),
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
    "'2023-02-29'",
];
const DATETIMES: &[&str] = &[
    "TIMESTAMP '2000-01-01 00:00:00'",
    "'9999-12-31 23:59:59.999999'",
    "'2024-02-29 12:30:00'",
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
        self.call(Kind::Int, depth - 1)
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
        self.call(Kind::Text, depth - 1)
    }

    /// A date.
    fn date(&mut self, depth: usize) -> String {
        if depth > 0 && self.rng.chance(1, 4) {
            return self.call(Kind::Date, depth - 1);
        }
        match self.column(&[Kind::Date]) {
            Some(c) if self.rng.chance(3, 4) => c,
            _ => self.rng.pick(DATES).to_string(),
        }
    }

    /// A datetime.
    fn datetime(&mut self, depth: usize) -> String {
        if depth > 0 && self.rng.chance(1, 4) {
            return self.call(Kind::DateTime, depth - 1);
        }
        match self.column(&[Kind::DateTime]) {
            Some(c) if self.rng.chance(3, 4) => c,
            _ => self.rng.pick(DATETIMES).to_string(),
        }
    }

    /// A value of `kind` by a function of [`functions`], its arguments of
    /// `depth`.
    fn call(&mut self, kind: Kind, depth: usize) -> String {
        let template = *self.rng.pick(functions::templates(kind));
        let mut out = String::with_capacity(template.len() + 16);
        let mut rest = template;
        while let Some(at) = rest.find('{') {
            out.push_str(&rest[..at]);
            let hole = &rest[at + 1..at + 2];
            out.push_str(&match hole {
                "n" => self.number(depth),
                "t" => self.text(depth),
                "d" => self.date(depth),
                "T" => self.datetime(depth),
                "b" => self.boolean(depth),
                _ => (self.rng.below(6) as i64 - 1).to_string(),
            });
            rest = &rest[at + 3..];
        }
        out.push_str(rest);
        out
    }

    /// A truth value (which may be NULL).
    pub fn boolean(&mut self, depth: usize) -> String {
        let cmp = *self.rng.pick(&["=", "<>", "<", "<=", ">", ">=", "<=>"]);
        if depth == 0 {
            return match self.rng.below(4) {
                0 => format!("{} {cmp} {}", self.text(0), self.text(0)),
                1 => format!("{} {cmp} {}", self.date(0), self.date(0)),
                2 => format!("{} {cmp} {}", self.datetime(0), self.datetime(0)),
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
            9 => match self.rng.chance(1, 2) {
                true => format!("{} {cmp} {}", self.date(d), self.date(d)),
                false => format!("{} {cmp} {}", self.datetime(d), self.datetime(d)),
            },
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

    /// A value of `kind`.
    pub fn of_kind(&mut self, kind: Kind, depth: usize) -> String {
        match kind {
            Kind::Int | Kind::Decimal | Kind::Double => self.number(depth),
            Kind::Text => self.text(depth),
            Kind::Date => self.date(depth),
            Kind::DateTime => self.datetime(depth),
        }
    }

    /// A select item of any kind.
    pub fn item(&mut self, depth: usize) -> String {
        match self.rng.below(6) {
            0 => self.text(depth),
            1 => self.boolean(depth),
            2 => match self.rng.chance(1, 2) {
                true => self.date(depth),
                false => self.datetime(depth),
            },
            _ => self.number(depth),
        }
    }
}
