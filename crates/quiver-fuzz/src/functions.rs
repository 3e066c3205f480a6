//! The scalar functions and operators the generator calls, by the kind of
//! value they give. Each is a template whose holes the generator fills:
//! `{n}` a number, `{t}` a string, `{d}` a date, `{T}` a datetime, `{b}` a
//! truth value, `{s}` a small integer literal (a length, a count, a
//! position: -1 to 4). Special syntax (EXTRACT, INTERVAL, POSITION .. IN,
//! TRIM .. FROM, CAST) is written out.
//!
//! The functions of the registry (`quiver_exec::functions::SCALARS`) need
//! no line here: [`templates`] calls each of them, under every name, with
//! each argument count it takes, so a function moved onto the registry is
//! fuzzed from then on. The lists below are the functions and operators not
//! on it yet; one belongs here once Quiver answers it (a 1235 refusal only
//! makes the checks that draw it inconclusive).

use std::sync::OnceLock;

use quiver_plan::function::Family;

use crate::schema::Kind;

/// Templates giving a number (besides the registry's).
pub const NUMBER: &[&str] = &[
    "ROUND({n}, {s})",
    "TRUNCATE({n}, {s})",
    "POWER({n}, {s})",
    "CONV({n}, 10, 16)",
    "CONV({t}, 16, 10)",
    "({n} + {n})",
    "({n} - {n})",
    "({n} * {n})",
    "({n} / {n})",
    "({n} DIV {n})",
    "({n} % {n})",
    "MOD({n}, {n})",
    "-({n})",
    "GREATEST({n}, {n})",
    "LEAST({n}, {n}, {n})",
    "NULLIF({n}, {n})",
    "IFNULL({n}, {n})",
    "COALESCE({n}, {n})",
    "CASE WHEN {b} THEN {n} ELSE {n} END",
    "CASE {n} WHEN {n} THEN {n} END",
    "IF({b}, {n}, {n})",
    "LENGTH({t})",
    "CHAR_LENGTH({t})",
    "OCTET_LENGTH({t})",
    "BIT_LENGTH({t})",
    "ASCII({t})",
    "ORD({t})",
    "INSTR({t}, {t})",
    "LOCATE({t}, {t})",
    "LOCATE({t}, {t}, {s})",
    "POSITION({t} IN {t})",
    "STRCMP({t}, {t})",
    "FIELD({t}, {t}, {t})",
    "YEAR({d})",
    "MONTH({d})",
    "DAY({d})",
    "DAYOFMONTH({T})",
    "QUARTER({d})",
    "EXTRACT(YEAR FROM {d})",
    "EXTRACT(DAY FROM {T})",
    "TIMESTAMPDIFF(DAY, {d}, {d})",
    "TIMESTAMPDIFF(SECOND, {T}, {T})",
    "HOUR({T})",
    "MINUTE({T})",
    "SECOND({T})",
    "MICROSECOND({T})",
    "CAST({n} AS SIGNED)",
    "CAST({n} AS UNSIGNED)",
    "CAST({n} AS DECIMAL(12,3))",
    "CAST({n} AS DOUBLE)",
    "CAST({t} AS SIGNED)",
    "CAST({t} AS DOUBLE)",
    "({t} + 0)",
];

/// Templates giving a string.
pub const TEXT: &[&str] = &[
    "CONCAT({t}, {t})",
    "CONCAT({t}, {n})",
    "CONCAT_WS({t}, {t}, {t})",
    "UPPER({t})",
    "LOWER({t})",
    "LCASE({t})",
    "UCASE({t})",
    "SUBSTRING({t}, {s}, {s})",
    "SUBSTRING({t} FROM {s})",
    "SUBSTR({t}, {s})",
    "MID({t}, {s}, {s})",
    "LEFT({t}, {s})",
    "RIGHT({t}, {s})",
    "LPAD({t}, {s}, {t})",
    "RPAD({t}, {s}, {t})",
    "TRIM({t})",
    "LTRIM({t})",
    "RTRIM({t})",
    "TRIM(LEADING {t} FROM {t})",
    "TRIM(BOTH {t} FROM {t})",
    "REPLACE({t}, {t}, {t})",
    "REVERSE({t})",
    "REPEAT({t}, {s})",
    "SPACE({s})",
    "SUBSTRING_INDEX({t}, {t}, {s})",
    "INSERT({t}, {s}, {s}, {t})",
    "HEX({t})",
    "HEX({n})",
    "UNHEX({t})",
    "MD5({t})",
    "SHA1({t})",
    "IF({b}, {t}, {t})",
    "COALESCE({t}, {t})",
    "NULLIF({t}, {t})",
    "GREATEST({t}, {t})",
    "CASE WHEN {b} THEN {t} END",
    "CAST({n} AS CHAR)",
    "CAST({d} AS CHAR)",
    "CAST({T} AS CHAR)",
    "CAST({t} AS BINARY)",
    "CAST({n} AS CHAR(2))",
    "CONVERT({t} USING utf8mb4)",
    "({t} COLLATE utf8mb4_general_ci)",
];

/// Templates giving a date.
pub const DATE: &[&str] = &[
    "DATE_ADD({d}, INTERVAL {s} DAY)",
    "DATE_SUB({d}, INTERVAL {s} MONTH)",
    "({d} + INTERVAL {s} YEAR)",
    "({d} - INTERVAL {s} WEEK)",
    "CAST({T} AS DATE)",
    "DATE({T})",
    "CAST({t} AS DATE)",
    "IF({b}, {d}, {d})",
    "COALESCE({d}, {d})",
    "GREATEST({d}, {d})",
];

/// Templates giving a datetime.
pub const DATETIME: &[&str] = &[
    "CAST({d} AS DATETIME)",
    "({T} + INTERVAL {s} SECOND)",
    "DATE_ADD({T}, INTERVAL {s} HOUR)",
    "DATE_SUB({T}, INTERVAL {s} MINUTE)",
    "CAST({t} AS DATETIME)",
    "LEAST({T}, {T})",
    "IFNULL({T}, {T})",
];

/// The templates giving a value of `kind`: the lists above, and the
/// registry's functions by their family (numeric functions give numbers,
/// string functions strings; date and time functions give several kinds
/// and wait for their result kind to be asked of them).
pub fn templates(kind: Kind) -> &'static [&'static str] {
    static ALL: OnceLock<[Vec<&'static str>; 4]> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let mut all = [NUMBER, TEXT, DATE, DATETIME].map(|l| l.to_vec());
        for f in quiver_exec::functions::SCALARS {
            // Two runs of RAND() differ: no oracle can judge them.
            if !f.deterministic() {
                continue;
            }
            if f.operator_precedence().is_some() {
                // An operator (`|`, `~`) is written as one, over numbers.
                let call = match f.arity().start() {
                    1 => format!("({}{{n}})", f.name()),
                    _ => format!("({{n}} {} {{n}})", f.name()),
                };
                all[0].push(Box::leak(call.into_boxed_str()));
                continue;
            }
            let slot = match f.family() {
                Family::Numeric => 0,
                Family::String => 1,
                // The others (JSON, network addresses) over strings, by the
                // kind of their result.
                Family::Other => match other_result_slot(*f) {
                    Some(slot) => slot,
                    None => continue,
                },
                Family::DateTime => continue,
            };
            if f.family() == Family::Other {
                for name in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
                    for n in f.arity().take_while(|n| *n <= 3) {
                        let call = format!("{name}({})", vec!["{t}"; n].join(", "));
                        all[slot].push(Box::leak(call.into_boxed_str()));
                    }
                }
                continue;
            }
            for name in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
                for n in f.arity().take_while(|n| *n <= 3) {
                    // Numbers, and now and then a string read as one.
                    let args: Vec<&str> = (0..n)
                        .map(|i| if slot == 1 || i == 1 { "{t}" } else { "{n}" })
                        .collect();
                    let call = format!("{name}({})", args.join(", "));
                    all[slot].push(Box::leak(call.into_boxed_str()));
                    if slot == 0 && n > 0 {
                        let numbers = format!("{name}({})", vec!["{n}"; n].join(", "));
                        all[slot].push(Box::leak(numbers.into_boxed_str()));
                    }
                }
            }
        }
        all
    });
    match kind {
        Kind::Int | Kind::Decimal | Kind::Double => &all[0],
        Kind::Text => &all[1],
        Kind::Date => &all[2],
        Kind::DateTime => &all[3],
    }
}

/// Where a function of the Other family goes: by its result over string
/// arguments (0 numbers, 1 strings), None when it takes no strings.
fn other_result_slot(f: &'static dyn quiver_plan::ScalarFunction) -> Option<usize> {
    use arrow_schema::DataType;
    let n = *f.arity().start();
    let types = f.coerce_types(&vec![DataType::Utf8; n]).ok()?;
    let args: Vec<_> = types
        .into_iter()
        .map(|data_type| quiver_plan::function::ArgInfo {
            data_type,
            literal: None,
        })
        .collect();
    match f.return_type(&args).ok()? {
        quiver_plan::function::Bound::Call(t) if t.is_integer() => Some(0),
        quiver_plan::function::Bound::Call(DataType::Utf8) => Some(1),
        _ => None,
    }
}

/// Registered aggregates whose value does not depend on the order rows
/// are folded in (bitwise folds): over the union of a TLP split they equal
/// the fold of the parts' values, and every thread count gives the same
/// answer. The others (the floating-point VARIANCE family) move in their
/// last digits with the summation order: they are drawn for no-panic
/// checks only.
const ORDER_FREE: &[&str] = &["bit_and", "bit_or", "bit_xor"];

/// Every name of every registered aggregate
/// (`quiver_exec::functions::AGGREGATES`) as (name, order-free), so an
/// aggregate added to the registry is fuzzed from then on.
pub fn aggregates() -> &'static [(&'static str, bool)] {
    static ALL: OnceLock<Vec<(&'static str, bool)>> = OnceLock::new();
    ALL.get_or_init(|| {
        quiver_exec::functions::AGGREGATES
            .iter()
            .flat_map(|f| {
                let exact = ORDER_FREE.contains(&f.name());
                std::iter::once(f.name())
                    .chain(f.aliases().iter().copied())
                    .map(move |n| (n, exact))
            })
            .collect()
    })
}

/// The order-free registered aggregates (see [`aggregates`]).
pub fn order_free_aggregates() -> Vec<&'static str> {
    aggregates()
        .iter()
        .filter(|(_, exact)| *exact)
        .map(|(n, _)| *n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered aggregate, under each of its names, is drawn; the
    /// order-free list names only registered aggregates.
    #[test]
    fn every_registry_aggregate_is_drawn() {
        let names: Vec<&str> = aggregates().iter().map(|(n, _)| *n).collect();
        for f in quiver_exec::functions::AGGREGATES {
            for name in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
                assert!(names.contains(&name), "{name}");
            }
        }
        for n in ORDER_FREE {
            assert!(names.contains(n), "{n} is not a registered aggregate");
        }
    }

    /// Every registered deterministic function, under each of its names,
    /// is called.
    #[test]
    fn every_registry_function_is_drawn() {
        let all: Vec<&str> = [Kind::Int, Kind::Text, Kind::Date, Kind::DateTime]
            .into_iter()
            .flat_map(|k| templates(k).iter().copied())
            .collect();
        for f in quiver_exec::functions::SCALARS {
            if !f.deterministic() {
                continue;
            }
            if f.operator_precedence().is_some() {
                let op = f.name();
                assert!(all.iter().any(|t| t.contains(&format!(" {op} ")) || t.starts_with(&format!("({op}"))), "{op}");
            } else if matches!(f.family(), Family::Numeric | Family::String) {
                for name in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
                    let call = format!("{name}(");
                    assert!(all.iter().any(|t| t.starts_with(&call)), "{name}");
                }
            }
        }
    }
}
