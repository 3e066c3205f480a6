//! The scalar functions and operators the generator calls, by the kind of
//! value they give. Each is a template whose holes the generator fills:
//! `{n}` a number, `{t}` a string, `{d}` a date, `{T}` a datetime, `{b}` a
//! truth value, `{s}` a small integer literal (a length, a count, a
//! position: -1 to 4). Special syntax (EXTRACT, INTERVAL, POSITION .. IN,
//! TRIM .. FROM, CAST) is written out.
//!
//! A function belongs here once Quiver answers it (a 1235 refusal only
//! makes the checks that draw it inconclusive): add its template when it
//! lands, so that the fuzzer grows with the function library.

use crate::schema::Kind;

/// Templates giving a number.
pub const NUMBER: &[&str] = &[
    "({n} + {n})",
    "({n} - {n})",
    "({n} * {n})",
    "({n} / {n})",
    "({n} DIV {n})",
    "({n} % {n})",
    "MOD({n}, {n})",
    "-({n})",
    "ABS({n})",
    "ROUND({n}, {s})",
    "ROUND({n})",
    "TRUNCATE({n}, {s})",
    "FLOOR({n})",
    "CEIL({n})",
    "CEILING({n})",
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

/// The templates giving a value of `kind`.
pub fn templates(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Int | Kind::Decimal | Kind::Double => NUMBER,
        Kind::Text => TEXT,
        Kind::Date => DATE,
        Kind::DateTime => DATETIME,
    }
}
