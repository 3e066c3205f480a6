//! The workload's queries, read from `queries.sql`, and their spelling for
//! each engine.
//!
//! A query is written once, in MySQL, with a few macros where the engines
//! spell the same meaning differently:
//!
//! | macro | Quiver (MySQL) | DuckDB / DataFusion | chDB (ClickHouse) |
//! |---|---|---|---|
//! | `{ci:x}` | `x` | `lower(rtrim(x))` | `lowerUTF8(trimRight(x))` |
//! | `{hour:t}`, `{minute:t}` | `HOUR(t)` | `hour(t)` / `date_part('hour', t)` | `toHour(t)` |
//! | `{hour_text:t}` | `DATE_FORMAT(t, '%Y-%m-%d %H:00')` | `strftime` / `to_char` | `formatDateTime` |
//! | `{chars:x}` | `CHAR_LENGTH(x)` | `length(x)` / `character_length(x)` | `lengthUTF8(x)` |
//!
//! `{ci:x}` is the point of the workload: `x` is a `utf8mb4_general_ci`
//! column, where `'Москва '` and `'москва'` are one group. Engines that
//! compare bytes are asked for the same meaning explicitly (the folding
//! is exact for the generated data: see the vocabulary module). A line
//! `-- <engine>: text` replaces the whole query for that engine, where a
//! macro is not enough (regular expression dialects).

/// The engines the workload runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Quiver,
    DuckDb,
    DataFusion,
    ChDb,
}

impl Engine {
    pub fn from_name(name: &str) -> Option<Engine> {
        match name {
            "quiver" => Some(Engine::Quiver),
            "duckdb" => Some(Engine::DuckDb),
            "datafusion" => Some(Engine::DataFusion),
            "chdb" => Some(Engine::ChDb),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Engine::Quiver => "quiver",
            Engine::DuckDb => "duckdb",
            Engine::DataFusion => "datafusion",
            Engine::ChDb => "chdb",
        }
    }

    fn expand(self, macro_name: &str, arg: &str) -> Option<String> {
        use Engine::*;
        Some(match (macro_name, self) {
            ("ci", Quiver) => arg.to_string(),
            ("ci", DuckDb | DataFusion) => format!("lower(rtrim({arg}))"),
            ("ci", ChDb) => format!("lowerUTF8(trimRight({arg}))"),
            ("hour" | "minute", Quiver) => format!("{}({arg})", macro_name.to_uppercase()),
            ("hour" | "minute", DuckDb) => format!("{macro_name}({arg})"),
            ("hour" | "minute", DataFusion) => {
                format!("CAST(date_part('{macro_name}', {arg}) AS BIGINT)")
            }
            ("hour", ChDb) => format!("toHour({arg})"),
            ("minute", ChDb) => format!("toMinute({arg})"),
            ("hour_text", Quiver) => format!("DATE_FORMAT({arg}, '%Y-%m-%d %H:00')"),
            ("hour_text", DuckDb) => format!("strftime({arg}, '%Y-%m-%d %H:00')"),
            ("hour_text", DataFusion) => format!("to_char({arg}, '%Y-%m-%d %H:00')"),
            ("hour_text", ChDb) => format!("formatDateTime({arg}, '%Y-%m-%d %H:00')"),
            ("chars", Quiver) => format!("CHAR_LENGTH({arg})"),
            ("chars", DuckDb) => format!("length({arg})"),
            ("chars", DataFusion) => format!("character_length({arg})"),
            ("chars", ChDb) => format!("lengthUTF8({arg})"),
            _ => return None,
        })
    }
}

/// One query of the workload.
#[derive(Debug, Clone)]
pub struct Query {
    pub name: String,
    /// Whether string cells are compared folded (lowercase, trailing spaces
    /// removed): the query groups or orders by a `{ci:..}` key, where each
    /// engine shows its own member of an equal group.
    pub folded: bool,
    overrides: Vec<(String, String)>,
    text: String,
}

impl Query {
    /// The query as `engine` spells it.
    pub fn sql(&self, engine: Engine) -> Result<String, String> {
        if let Some((_, t)) = self.overrides.iter().find(|(e, _)| e == engine.name()) {
            return Ok(t.clone());
        }
        let mut out = String::with_capacity(self.text.len());
        let mut rest = self.text.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("{}: an unclosed macro", self.name))?;
            let body = &rest[open + 1..open + close];
            let (m, arg) = body
                .split_once(':')
                .ok_or_else(|| format!("{}: macro {{{body}}} without ':'", self.name))?;
            out.push_str(
                &engine
                    .expand(m.trim(), arg.trim())
                    .ok_or_else(|| format!("{}: unknown macro {m}", self.name))?,
            );
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// The queries of `queries.sql`, in order.
pub fn queries() -> Vec<Query> {
    parse(include_str!("../queries.sql"))
}

fn parse(file: &str) -> Vec<Query> {
    let mut out = Vec::new();
    let mut current: Option<Query> = None;
    for line in file.lines() {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("-- name:") {
            if let Some(q) = current.take() {
                out.push(q);
            }
            current = Some(Query {
                name: name.trim().to_string(),
                folded: false,
                overrides: Vec::new(),
                text: String::new(),
            });
            continue;
        }
        let Some(q) = current.as_mut() else { continue };
        if let Some(rest) = trimmed.strip_prefix("--") {
            let rest = rest.trim();
            if rest == "compare: folded" {
                q.folded = true;
            } else if let Some((engine, text)) = rest.split_once(':') {
                if Engine::from_name(engine.trim()).is_some() {
                    q.overrides
                        .push((engine.trim().to_string(), text.trim().to_string()));
                }
            }
            continue;
        }
        if !trimmed.is_empty() {
            if !q.text.is_empty() {
                q.text.push('\n');
            }
            q.text.push_str(line);
        }
    }
    out.extend(current);
    for q in &mut out {
        let t = q.text.trim_end().trim_end_matches(';').to_string();
        q.text = t;
        for (_, o) in &mut q.overrides {
            *o = o.trim_end_matches(';').to_string();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_expands_for_every_engine() {
        let qs = queries();
        assert!(qs.len() >= 40, "{} queries", qs.len());
        for q in &qs {
            for e in [
                Engine::Quiver,
                Engine::DuckDb,
                Engine::DataFusion,
                Engine::ChDb,
            ] {
                let sql = q.sql(e).unwrap();
                // No macro left: `{name:` (a regex's `${1}` is not one).
                let left = sql.split('{').skip(1).any(|after| {
                    after.split_once(':').is_some_and(|(m, _)| {
                        !m.is_empty() && m.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    })
                });
                assert!(!left, "{}: {sql}", q.name);
            }
        }
        let mut names: Vec<_> = qs.iter().map(|q| &q.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), qs.len(), "query names are unique");
    }

    #[test]
    fn macros_expand_per_engine() {
        let q = &parse("-- name: x\nSELECT {ci:a}, {hour:t} FROM h;\n")[0];
        assert_eq!(q.sql(Engine::Quiver).unwrap(), "SELECT a, HOUR(t) FROM h");
        assert_eq!(
            q.sql(Engine::DuckDb).unwrap(),
            "SELECT lower(rtrim(a)), hour(t) FROM h"
        );
    }
}
