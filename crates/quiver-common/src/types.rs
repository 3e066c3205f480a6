//! MySQL type rules over Arrow types: names, result types of arithmetic and
//! aggregates, and text conversions of dates, decimals and doubles.

use std::cmp::Ordering;

use arrow_buffer::i256;
use arrow_schema::{DataType, TimeUnit};

use crate::{QuiverError, Result, ScalarValue};

/// MySQL's largest DECIMAL precision; results that would need more are capped here.
pub const MAX_DECIMAL_PRECISION: u8 = 65;
/// Largest precision kept in Arrow's Decimal128 (and its i128 kernels);
/// wider decimals are Decimal256.
pub const MAX_DECIMAL128_PRECISION: u8 = 38;
/// Digits of a quotient kept inside an expression (Decimal256's 76).
pub const MAX_INTERNAL_PRECISION: u8 = 76;
/// MariaDB's largest DECIMAL scale (declared and computed).
pub const MAX_DECIMAL_SCALE: i8 = 38;
/// MySQL's `div_precision_increment` default: `/` adds this many digits of scale.
pub const DIV_PRECISION_INCREMENT: i8 = 4;

/// Field metadata key holding a column's DEFAULT as SQL text.
pub const COLUMN_DEFAULT_KEY: &str = "quiver.default";
/// Field metadata key holding a column's declared type where the Arrow type
/// does not say it all, as SHOW COLUMNS prints it: `char(3)`, `varchar(20)`.
pub const COLUMN_TYPE_KEY: &str = "quiver.column_type";

/// Field metadata of a result column: a computed DOUBLE's display length.
pub const COLUMN_DISPLAY_LENGTH_KEY: &str = "quiver.display_length";

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

/// MySQL's integer column types, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum IntKind {
    Tiny,
    Short,
    Medium,
    Long,
    LongLong,
}

impl IntKind {
    fn name(self) -> &'static str {
        match self {
            IntKind::Tiny => "tinyint",
            IntKind::Short => "smallint",
            IntKind::Medium => "mediumint",
            IntKind::Long => "int",
            IntKind::LongLong => "bigint",
        }
    }

    /// Digits of the type's values, as MySQL counts them for arithmetic.
    pub fn digits(self, unsigned: bool) -> u32 {
        match (self, unsigned) {
            (IntKind::Tiny, _) => 3,
            (IntKind::Short, _) => 5,
            // 8388607 has 7, but MySQL counts 8 (its width 9 less the sign).
            (IntKind::Medium, _) => 8,
            (IntKind::Long, _) => 10,
            (IntKind::LongLong, false) => 19,
            (IntKind::LongLong, true) => 20,
        }
    }

    /// The display width of a column of this type: MEDIUMINT's is 9
    /// (a sign and 8), the others' their digits and a sign if signed.
    pub fn default_width(self, unsigned: bool) -> u32 {
        match self {
            IntKind::Medium => 9 - u32::from(unsigned),
            IntKind::LongLong => 20,
            k => k.digits(unsigned) + u32::from(!unsigned),
        }
    }

    /// The Arrow type values of this kind are kept in (MEDIUMINT in INT's).
    pub fn arrow_type(self, unsigned: bool) -> DataType {
        match (self, unsigned) {
            (IntKind::Tiny, false) => DataType::Int8,
            (IntKind::Tiny, true) => DataType::UInt8,
            (IntKind::Short, false) => DataType::Int16,
            (IntKind::Short, true) => DataType::UInt16,
            (IntKind::Medium | IntKind::Long, false) => DataType::Int32,
            (IntKind::Medium | IntKind::Long, true) => DataType::UInt32,
            (IntKind::LongLong, false) => DataType::Int64,
            (IntKind::LongLong, true) => DataType::UInt64,
        }
    }

    /// The kind of an Arrow integer type.
    pub fn of_arrow(t: &DataType) -> Option<IntKind> {
        Some(match t {
            DataType::Int8 | DataType::UInt8 => IntKind::Tiny,
            DataType::Int16 | DataType::UInt16 => IntKind::Short,
            DataType::Int32 | DataType::UInt32 => IntKind::Long,
            DataType::Int64 | DataType::UInt64 => IntKind::LongLong,
            _ => return None,
        })
    }
}

/// An integer expression's MySQL type as a client sees it: the kind (the
/// column type code) and the display width MariaDB derives for it (`1 + 1`
/// is INT of width 3, `i + 1` over an INT BIGINT of width 12). Kept as
/// `COLUMN_TYPE_KEY` text: `int(3)`, `bigint(21) unsigned`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntType {
    pub kind: IntKind,
    pub width: u32,
    pub unsigned: bool,
}

impl IntType {
    /// The type of a column of Arrow type `t` (at its kind's full width).
    pub fn of_arrow(t: &DataType) -> Option<IntType> {
        let kind = IntKind::of_arrow(t)?;
        let unsigned = t.is_unsigned_integer();
        Some(IntType {
            kind,
            width: kind.default_width(unsigned),
            unsigned,
        })
    }

    /// `int(3)`, `bigint(21) unsigned`, or a stored column's `mediumint`.
    pub fn parse(text: &str) -> Option<IntType> {
        let (text, unsigned) = match text.strip_suffix(" unsigned") {
            Some(t) => (t, true),
            None => (text, false),
        };
        let (name, width) = match text.split_once('(') {
            Some((name, rest)) => (name, Some(rest.strip_suffix(')')?.parse().ok()?)),
            None => (text, None),
        };
        let kind = [
            IntKind::Tiny,
            IntKind::Short,
            IntKind::Medium,
            IntKind::Long,
            IntKind::LongLong,
        ]
        .into_iter()
        .find(|k| k.name() == name)?;
        Some(IntType {
            kind,
            width: width.unwrap_or_else(|| kind.default_width(unsigned)),
            unsigned,
        })
    }

    pub fn text(&self) -> String {
        let sign = if self.unsigned { " unsigned" } else { "" };
        format!("{}({}){sign}", self.kind.name(), self.width)
    }

    /// The type name without the display width, as MySQL 8 shows it.
    pub fn name(&self) -> String {
        let sign = if self.unsigned { " unsigned" } else { "" };
        format!("{}{sign}", self.kind.name())
    }
}

/// MySQL's largest fractional-seconds precision (DATETIME(6): microseconds).
pub const MAX_FSP: u8 = 6;

/// The timezone texts that mark DATETIME(1) ..= DATETIME(6).
const FSP_TAGS: [&str; 7] = ["", "fsp1", "fsp2", "fsp3", "fsp4", "fsp5", "fsp6"];

/// The Arrow type of DATETIME(fsp). Values are always microseconds since
/// 1970-01-01 (a DATETIME has no time zone); the fractional-seconds precision
/// MySQL declares (0 ..= 6 digits, which a TimeUnit cannot say) is kept in
/// the Timestamp's otherwise unused timezone slot: `None` for DATETIME(0),
/// MySQL's plain DATETIME (and what a manifest's `datetime` has always
/// meant), `Some("fspN")` for DATETIME(N). Being part of the type, it travels
/// with every expression, result column and stored column as a DECIMAL's
/// scale does: casts between precisions truncate, output prints N digits.
pub fn datetime_type(fsp: u8) -> DataType {
    let fsp = fsp.min(MAX_FSP) as usize;
    DataType::Timestamp(
        TimeUnit::Microsecond,
        (fsp > 0).then(|| FSP_TAGS[fsp].into()),
    )
}

/// The fractional-seconds precision of a DATETIME type (None if `t` is none).
pub fn datetime_fsp(t: &DataType) -> Option<u8> {
    match t {
        DataType::Timestamp(_, None) => Some(0),
        DataType::Timestamp(_, Some(tag)) => Some(
            FSP_TAGS
                .iter()
                .position(|f| f == &tag.as_ref())
                .map_or(MAX_FSP, |i| i as u8),
        ),
        _ => None,
    }
}

pub fn is_datetime(t: &DataType) -> bool {
    matches!(t, DataType::Timestamp(..))
}

/// `micros` cut to `fsp` fraction digits. MySQL truncates (does not round)
/// a value stored or cast into fewer digits, unless TIME_ROUND_FRACTIONAL.
pub fn truncate_fsp(micros: i64, fsp: u8) -> i64 {
    let unit = 10i64.pow((MAX_FSP - fsp.min(MAX_FSP)) as u32);
    micros - micros.rem_euclid(unit)
}

/// The digits of the fraction a datetime literal's text writes (at most 6):
/// `TIMESTAMP'2020-01-01 10:00:00.12'` is DATETIME(2).
pub fn literal_fsp(s: &str) -> u8 {
    let s = s.trim();
    let Some((_, time)) = s.split_once([' ', 'T']) else {
        return 0;
    };
    match time.split_once('.') {
        Some((_, frac)) => frac
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count()
            .min(MAX_FSP as usize) as u8,
        None => 0,
    }
}

pub fn is_integer(t: &DataType) -> bool {
    t.is_integer()
}

pub fn is_unsigned(t: &DataType) -> bool {
    t.is_unsigned_integer()
}

pub fn is_numeric(t: &DataType) -> bool {
    t.is_integer() || t.is_floating() || is_decimal(t) || matches!(t, DataType::Boolean)
}

pub fn is_decimal(t: &DataType) -> bool {
    matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..))
}

/// The Arrow type of DECIMAL(p, s): Decimal128 up to 38 digits, Decimal256 beyond.
pub fn decimal_type(p: u8, s: i8) -> DataType {
    if p <= MAX_DECIMAL128_PRECISION {
        DataType::Decimal128(p, s)
    } else {
        DataType::Decimal256(p, s)
    }
}

/// Text or a binary string: MySQL's string types (CHAR, VARCHAR, TEXT, and
/// BINARY, VARBINARY, BLOB).
pub fn is_string(t: &DataType) -> bool {
    is_text(t) || is_binary(t)
}

/// Text: characters of some charset, kept as UTF-8.
pub fn is_text(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// A binary string (charset `binary`): bytes.
pub fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

pub fn is_temporal(t: &DataType) -> bool {
    matches!(t, DataType::Date32 | DataType::Timestamp(..))
}

/// Decimal digits needed by the integer part of an integer type, as MySQL counts them.
pub fn integer_digits(t: &DataType) -> u8 {
    match t {
        DataType::Boolean => 1,
        DataType::Int8 | DataType::UInt8 => 3,
        DataType::Int16 | DataType::UInt16 => 5,
        DataType::Int32 | DataType::UInt32 => 10,
        DataType::Int64 => 19,
        DataType::UInt64 => 20,
        _ => 19,
    }
}

/// The precision MySQL gives an integer literal: its digits, the sign not
/// counted (MariaDB's `Item_int::decimal_precision`), so that with `a`
/// DECIMAL(18,2) `a * 2` is DECIMAL(19,2) rather than BIGINT's 19 digits more.
pub fn integer_literal_digits(v: &ScalarValue) -> Option<u8> {
    let n = match v {
        ScalarValue::Int64(i) => i.unsigned_abs(),
        ScalarValue::UInt64(u) => *u,
        _ => return None,
    };
    Some(n.checked_ilog10().map_or(1, |l| l as u8 + 1))
}

/// (precision, scale) of a numeric type seen as a decimal.
pub fn decimal_shape(t: &DataType) -> (u8, i8) {
    match t {
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => (*p, *s),
        other => (integer_digits(other), 0),
    }
}

fn capped(p: i32, s: i8) -> DataType {
    let s = s.clamp(0, MAX_DECIMAL_SCALE);
    let p = p.clamp(s.max(1) as i32, MAX_DECIMAL_PRECISION as i32) as u8;
    decimal_type(p, s)
}

/// Arithmetic operators whose result type MySQL defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
}

/// MySQL computes a decimal quotient in whole 9-digit words and truncates
/// there: each operand's fraction is widened to whole words, and the
/// `div_precision_increment` digits left over after that widening are added
/// (`100.00 / 3` is 33.333333333 inside, shown as 33.333333).
pub fn division_internal_scale(s1: i8, s2: i8) -> i8 {
    let word = |s: i32| (s + 8) / 9 * 9;
    let (f1, f2) = (word(s1 as i32), word(s2 as i32));
    let increment = (DIV_PRECISION_INCREMENT as i32 - (f1 - s1 as i32) - (f2 - s2 as i32)).max(0);
    word(f1 + f2 + increment).min(i8::MAX as i32) as i8
}

/// Type a value of `l op r` is computed in. It equals the declared type
/// ([`declared_arithmetic_type`]) except for decimal division, which keeps
/// MySQL's extra internal digits; the binder rounds those to the declared
/// scale where the value leaves the expression.
pub fn arithmetic_result_type(op: ArithOp, l: &DataType, r: &DataType) -> Result<DataType> {
    let declared = declared_arithmetic_type(op, l, r)?;
    if let (ArithOp::Div, DataType::Decimal128(_, s) | DataType::Decimal256(_, s)) = (op, &declared)
    {
        let (p1, s1) = decimal_shape(l);
        let (_, s2) = decimal_shape(r);
        let integer_digits = p1 as i32 - s1 as i32 + s2 as i32;
        // Keep as many internal digits as fit next to the integer part: up
        // to 76 (Decimal256), as MySQL's intermediate words hold more than 65.
        let room = MAX_INTERNAL_PRECISION as i32 - integer_digits;
        let internal = (division_internal_scale(s1, s2) as i32)
            .min(room)
            .min(MAX_DECIMAL_SCALE as i32)
            .max(*s as i32) as i8;
        if integer_digits + internal as i32 <= MAX_DECIMAL_PRECISION as i32 {
            return Ok(capped(integer_digits + internal as i32, internal));
        }
        let p = (integer_digits + internal as i32).min(MAX_INTERNAL_PRECISION as i32) as u8;
        return Ok(decimal_type(p, internal));
    }
    Ok(declared)
}

/// Result type of `l op r` as MySQL declares it (what clients see).
pub fn declared_arithmetic_type(op: ArithOp, l: &DataType, r: &DataType) -> Result<DataType> {
    let l = if is_string(l) || matches!(l, DataType::Null) {
        &DataType::Float64
    } else {
        l
    };
    let r = if is_string(r) || matches!(r, DataType::Null) {
        &DataType::Float64
    } else {
        r
    };
    if !is_numeric(l) || !is_numeric(r) {
        return Err(QuiverError::not_supported(format!(
            "arithmetic on {l} and {r}"
        )));
    }
    if l.is_floating() || r.is_floating() {
        return Ok(if op == ArithOp::IntDiv {
            DataType::Int64
        } else {
            DataType::Float64
        });
    }
    let both_int = !is_decimal(l) && !is_decimal(r);
    if op == ArithOp::IntDiv {
        return Ok(if is_unsigned(l) || is_unsigned(r) {
            DataType::UInt64
        } else {
            DataType::Int64
        });
    }
    if both_int && op != ArithOp::Div {
        return Ok(if is_unsigned(l) || is_unsigned(r) {
            DataType::UInt64
        } else {
            DataType::Int64
        });
    }
    let (p1, s1) = decimal_shape(l);
    let (p2, s2) = decimal_shape(r);
    let (p1, p2) = (p1 as i32, p2 as i32);
    Ok(match op {
        ArithOp::Add | ArithOp::Sub => {
            let s = s1.max(s2);
            capped((p1 - s1 as i32).max(p2 - s2 as i32) + s as i32 + 1, s)
        }
        ArithOp::Mul => capped(p1 + p2, s1 + s2),
        ArithOp::Div => {
            let s = (s1 + DIV_PRECISION_INCREMENT).min(MAX_DECIMAL_SCALE);
            capped(p1 - s1 as i32 + s2 as i32 + s as i32, s)
        }
        ArithOp::Mod => {
            let s = s1.max(s2);
            capped((p1 - s1 as i32).max(p2 - s2 as i32) + s as i32, s)
        }
        ArithOp::IntDiv => unreachable!("handled above"),
    })
}

/// The type both sides of a comparison are converted to, as MySQL compares them.
pub fn comparison_type(l: &DataType, r: &DataType) -> DataType {
    use DataType::*;
    match (l, r) {
        (Null, other) | (other, Null) => other.clone(),
        (a, b) if a == b => a.clone(),
        // The binder has put both under one charset before; a binary side
        // is compared as bytes.
        (a, b) if (is_binary(a) || is_binary(b)) && is_string(a) && is_string(b) => Binary,
        (a, b) if is_string(a) && is_string(b) => Utf8,
        (Date32, Date32) => Date32,
        // Datetimes compare by value: in the wider precision, which holds
        // both exactly (a date is DATETIME(0)).
        (Date32, t @ Timestamp(..)) | (t @ Timestamp(..), Date32) => t.clone(),
        (a @ Timestamp(..), b @ Timestamp(..)) => wider_datetime(a, b),
        // A string compared with a date is read as a date, with all the
        // digits it has (`a = '2020-01-01 10:00:00.1234'` is 0 for a
        // DATETIME(3) holding .123).
        (Timestamp(..), s) | (s, Timestamp(..)) if is_string(s) => datetime_type(MAX_FSP),
        (t, s) | (s, t) if is_temporal(t) && is_string(s) => t.clone(),
        (a, b) if a.is_floating() || b.is_floating() => Float64,
        (a, b) if is_string(a) || is_string(b) => Float64,
        (a, b) if is_decimal(a) || is_decimal(b) => {
            let (p1, s1) = decimal_shape(a);
            let (p2, s2) = decimal_shape(b);
            let s = s1.max(s2);
            capped(
                (p1 as i32 - s1 as i32).max(p2 as i32 - s2 as i32) + s as i32,
                s,
            )
        }
        (a, b) if a.is_integer() && b.is_integer() => {
            if is_unsigned(a) && is_unsigned(b) {
                UInt64
            } else if is_unsigned(a) || is_unsigned(b) {
                // Mixed signedness: compare exactly in a wider decimal.
                Decimal128(20, 0)
            } else {
                Int64
            }
        }
        (Boolean, b) | (b, Boolean) if b.is_integer() => Int64,
        _ => Float64,
    }
}

/// The DATETIME of the larger precision of two.
pub fn wider_datetime(a: &DataType, b: &DataType) -> DataType {
    let fsp = |t| datetime_fsp(t).unwrap_or(0);
    datetime_type(fsp(a).max(fsp(b)))
}

/// The common type of the branches of CASE / COALESCE / UNION columns.
pub fn common_type(types: &[DataType]) -> DataType {
    let mut out = DataType::Null;
    for t in types {
        out = match (&out, t) {
            (DataType::Null, t) => t.clone(),
            (_, DataType::Null) => out.clone(),
            (a, b) if a == b => a.clone(),
            // Text meeting bytes is bytes, unless the binder's collation
            // rules said otherwise (it converts the operands first).
            (a, b) if is_binary(a) || is_binary(b) => DataType::Binary,
            (a, b) if is_string(a) || is_string(b) => DataType::Utf8,
            // The most fraction digits of the datetimes (MySQL: CASE,
            // COALESCE, UNION of DATETIME(0) and DATETIME(3) is DATETIME(3)).
            (DataType::Date32, t @ DataType::Timestamp(..))
            | (t @ DataType::Timestamp(..), DataType::Date32) => t.clone(),
            (a @ DataType::Timestamp(..), b @ DataType::Timestamp(..)) => wider_datetime(a, b),
            (a, b) if is_temporal(a) || is_temporal(b) => DataType::Utf8,
            (a, b) if a.is_floating() || b.is_floating() => DataType::Float64,
            (a, b) if is_decimal(a) || is_decimal(b) => {
                let (p1, s1) = decimal_shape(a);
                let (p2, s2) = decimal_shape(b);
                let s = s1.max(s2);
                capped(
                    (p1 as i32 - s1 as i32).max(p2 as i32 - s2 as i32) + s as i32,
                    s,
                )
            }
            (DataType::Boolean, b) | (b, DataType::Boolean) if b.is_integer() => DataType::Int64,
            (a, b) if a.is_integer() && b.is_integer() => {
                if is_unsigned(a) && is_unsigned(b) {
                    DataType::UInt64
                } else if is_unsigned(a) || is_unsigned(b) {
                    DataType::Decimal128(20, 0)
                } else {
                    DataType::Int64
                }
            }
            _ => DataType::Utf8,
        };
    }
    out
}

/// MySQL: SUM of an exact type is DECIMAL(p + 22, s); of a float, DOUBLE.
pub fn sum_type(t: &DataType) -> DataType {
    if t.is_floating() || is_string(t) {
        return DataType::Float64;
    }
    let (p, s) = decimal_shape(t);
    capped(p as i32 + 22, s)
}

/// MySQL: AVG of an exact type is DECIMAL(p + 4, s + 4); of a float, DOUBLE.
pub fn avg_type(t: &DataType) -> DataType {
    if t.is_floating() || is_string(t) {
        return DataType::Float64;
    }
    let (p, s) = decimal_shape(t);
    capped(p as i32 + 4, s + DIV_PRECISION_INCREMENT)
}

/// The type AVG of an exact type is computed in: SUM / COUNT with the
/// internal digits of a decimal division ([`division_internal_scale`]).
pub fn avg_internal_type(t: &DataType) -> DataType {
    if t.is_floating() || is_string(t) {
        return DataType::Float64;
    }
    let (p, s) = decimal_shape(t);
    let internal = division_internal_scale(s, 0).min(MAX_DECIMAL_SCALE);
    // At least AVG's declared precision (which it keeps when the scales agree).
    let p = (p as i32 - s as i32 + internal as i32)
        .max((p as i32 + 4).min(MAX_DECIMAL_PRECISION as i32))
        .min(MAX_INTERNAL_PRECISION as i32);
    decimal_type(p.max(internal.max(1) as i32) as u8, internal)
}

/// The MySQL name of a type, as DESCRIBE shows it.
pub fn mysql_type_name(t: &DataType) -> String {
    match t {
        DataType::Null => "null".into(),
        DataType::Boolean => "tinyint(1)".into(),
        DataType::Int8 => "tinyint".into(),
        DataType::Int16 => "smallint".into(),
        DataType::Int32 => "int".into(),
        DataType::Int64 => "bigint".into(),
        DataType::UInt8 => "tinyint unsigned".into(),
        DataType::UInt16 => "smallint unsigned".into(),
        DataType::UInt32 => "int unsigned".into(),
        DataType::UInt64 => "bigint unsigned".into(),
        DataType::Float32 => "float".into(),
        DataType::Float64 => "double".into(),
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => format!("decimal({p},{s})"),
        DataType::Date32 => "date".into(),
        DataType::Timestamp(..) => match datetime_fsp(t) {
            Some(n @ 1..) => format!("datetime({n})"),
            _ => "datetime".into(),
        },
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "varchar".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "blob".into(),
        other => other.to_string(),
    }
}

/// Converts a value to an unscaled decimal at `scale`, rounding half away from zero.
pub fn to_decimal(v: &ScalarValue, scale: i8) -> Result<i128> {
    to_decimal256(v, scale)?
        .to_i128()
        .ok_or_else(|| QuiverError::out_of_range("DECIMAL", &v.to_string()))
}

/// [`to_decimal`] with room for 76 digits.
pub fn to_decimal256(v: &ScalarValue, scale: i8) -> Result<i256> {
    let overflow = || QuiverError::out_of_range("DECIMAL", &v.to_string());
    let m = pow10(scale.max(0) as u32).ok_or_else(overflow)?;
    match v {
        ScalarValue::Decimal(u, _, s) => rescale256(*u, *s, scale).ok_or_else(overflow),
        ScalarValue::Int64(i) => i256::from(*i).checked_mul(m).ok_or_else(overflow),
        ScalarValue::UInt64(i) => i256::from_i128(*i as i128)
            .checked_mul(m)
            .ok_or_else(overflow),
        ScalarValue::Boolean(b) => Ok(if *b { m } else { i256::ZERO }),
        ScalarValue::Utf8(s) => match parse_decimal256(s.trim()) {
            Some((u, s0)) => rescale256(u, s0, scale).ok_or_else(overflow),
            None => float_to_decimal256(parse_f64_prefix(s), scale).ok_or_else(overflow),
        },
        other => float_to_decimal256(other.as_f64().unwrap_or(0.0), scale).ok_or_else(overflow),
    }
}

/// A double at `scale`, rounded half away from zero; None beyond i256.
pub fn float_to_decimal256(f: f64, scale: i8) -> Option<i256> {
    let x = (f * 10f64.powi(scale as i32)).round();
    if x.abs() < 1e38 {
        return Some(i256::from_i128(x as i128));
    }
    if !f.is_finite() {
        return None;
    }
    // Large values from the double's shortest decimal text, as MySQL reads
    // them (1e65 is 10^65, not the binary value just below it).
    let text = format!("{f:e}");
    let (mantissa, exp) = text.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let (m, frac) = parse_decimal256(mantissa)?;
    let shift = exp + scale as i32 - frac as i32;
    if shift >= 0 {
        m.checked_mul(pow10(shift as u32)?)
    } else {
        rescale256(m, (-shift).min(76) as i8, 0)
    }
}

/// 10^0 ..= 10^76, the powers an i256 holds.
static POW10: [i256; 77] = {
    let mut t = [i256::ONE; 77];
    let mut i = 1;
    while i < 77 {
        t[i] = t[i - 1].wrapping_mul(i256::from_i128(10));
        i += 1;
    }
    t
};

/// 10^n as an i256 (None past 10^76).
#[inline]
pub fn pow10(n: u32) -> Option<i256> {
    POW10.get(n as usize).copied()
}

/// An i256 as the nearest double.
pub fn i256_to_f64(v: i256) -> f64 {
    match v.to_i128() {
        Some(x) => x as f64,
        None => {
            let (low, high) = v.to_parts();
            high as f64 * 2f64.powi(128) + low as f64
        }
    }
}

/// Changes the scale of an unscaled decimal, rounding half away from zero.
pub fn rescale(v: i128, from: i8, to: i8) -> Option<i128> {
    match to.cmp(&from) {
        Ordering::Equal => Some(v),
        Ordering::Greater => v.checked_mul(10i128.checked_pow((to - from) as u32)?),
        Ordering::Less => {
            let Some(d) = 10i128.checked_pow((from - to) as u32) else {
                return Some(0);
            };
            let q = v / d;
            let r = (v % d).abs() * 2;
            Some(if r >= d { q + v.signum() } else { q })
        }
    }
}

/// [`rescale`] of an i256.
pub fn rescale256(v: i256, from: i8, to: i8) -> Option<i256> {
    // Most values and results fit an i128, whose arithmetic is much cheaper.
    if let Some(r) = v.to_i128().and_then(|x| rescale(x, from, to)) {
        return Some(i256::from_i128(r));
    }
    match to.cmp(&from) {
        Ordering::Equal => Some(v),
        Ordering::Greater => v.checked_mul(pow10((to - from) as u32)?),
        Ordering::Less => {
            let Some(d) = pow10((from - to) as u32) else {
                return Some(i256::ZERO);
            };
            let (q, r) = v.checked_div_rem(d)?;
            let r2 = r.wrapping_abs().wrapping_mul(i256::from_i128(2));
            Some(if r2 >= d {
                q.wrapping_add(v.signum())
            } else {
                q
            })
        }
    }
}

/// Parses `[-+]digits[.digits]` into (unscaled, scale).
pub fn parse_decimal(s: &str) -> Option<(i128, i8)> {
    let (v, scale) = parse_decimal256(s)?;
    if scale > 30 {
        return None;
    }
    Some((v.to_i128()?, scale))
}

/// [`parse_decimal`] with room for 76 digits (and a fraction of up to 76).
pub fn parse_decimal256(s: &str) -> Option<(i256, i8)> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (int_part, frac) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if (int_part.is_empty() && frac.is_empty())
        || !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 76
    {
        return None;
    }
    // Digits in chunks of 18 through i128 before the slower i256 steps.
    let mut v = i256::ZERO;
    let digits: Vec<u8> = int_part.bytes().chain(frac.bytes()).collect();
    for chunk in digits.chunks(18) {
        let mut c: i128 = 0;
        for b in chunk {
            c = c * 10 + (b - b'0') as i128;
        }
        v = v
            .checked_mul(pow10(chunk.len() as u32)?)?
            .checked_add(i256::from_i128(c))?;
    }
    Some((if neg { v.wrapping_neg() } else { v }, frac.len() as i8))
}

pub fn format_decimal(v: i128, scale: i8) -> String {
    if scale <= 0 {
        return v.to_string();
    }
    place_point(v < 0, v.unsigned_abs().to_string(), scale)
}

/// [`format_decimal`] of an i256.
pub fn format_decimal256(v: i256, scale: i8) -> String {
    if let Some(x) = v.to_i128() {
        return format_decimal(x, scale);
    }
    if scale <= 0 {
        return v.to_string();
    }
    // i256::MIN has no absolute value, and no DECIMAL(65) holds it.
    let digits = v.wrapping_abs().to_string();
    place_point(
        v.is_negative(),
        digits.trim_start_matches('-').to_string(),
        scale,
    )
}

fn place_point(neg: bool, digits: String, scale: i8) -> String {
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{}", "0".repeat(scale + 1 - digits.len()), digits)
    } else {
        digits
    };
    let (i, f) = padded.split_at(padded.len() - scale);
    format!("{}{}.{}", if neg { "-" } else { "" }, i, f)
}

/// MySQL prints doubles with the shortest text that reads back the same value.
pub fn format_double(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-15..1e15).contains(&a) {
        let s = format!("{v:e}");
        // Rust gives 1e20 / 1.5e-7; MySQL gives 1e20 / 1.5e-7 too.
        return s;
    }
    format!("{v}")
}

/// How much of a string MySQL reads as a number (its warning 1292 when not
/// all: a Note when only spaces follow the number, else a Warning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberRead {
    /// All of it, after leading spaces.
    Whole,
    SpacesAfter,
    /// Other characters follow, or there are no digits at all.
    Partly,
}

/// How much of `s` reads as a number. `integer`: digits only (CAST AS
/// SIGNED stops at a `.` or an exponent), else a fraction and an exponent.
pub fn number_read(s: &str, integer: bool) -> NumberRead {
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let b = s.as_bytes();
    let (digits, end) = number_prefix(b, integer, space);
    if digits == 0 {
        return NumberRead::Partly;
    }
    match &b[end..] {
        [] => NumberRead::Whole,
        rest if rest.iter().all(|c| space(*c)) => NumberRead::SpacesAfter,
        _ => NumberRead::Partly,
    }
}

/// The number `b` starts with: leading `space`s, a sign, digits and, unless
/// `integer`, a fraction and an exponent (taken only when it has digits).
/// Returns the count of digits before any exponent and where the number ends.
pub fn number_prefix(b: &[u8], integer: bool, space: impl Fn(u8) -> bool) -> (usize, usize) {
    let mut i = 0;
    while i < b.len() && space(b[i]) {
        i += 1;
    }
    if i < b.len() && matches!(b[i], b'+' | b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if !integer {
        if i < b.len() && b[i] == b'.' {
            i += 1;
            n += digits(&mut i);
        }
        if n > 0 && i < b.len() && matches!(b[i], b'e' | b'E') {
            let mut j = i + 1;
            if j < b.len() && matches!(b[j], b'+' | b'-') {
                j += 1;
            }
            if digits(&mut j) > 0 {
                i = j;
            }
        }
    }
    (n, i)
}

/// Reads the numeric prefix of a string as MySQL does ('12abc' is 12, 'abc' is 0).
pub fn parse_f64_prefix(s: &str) -> f64 {
    let s = s.trim_start();
    let b = s.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
        end += 1;
    }
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end < b.len() && b[end] == b'.' {
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'-' || b[e] == b'+') {
            e += 1;
        }
        if e < b.len() && b[e].is_ascii_digit() {
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            end = e;
        }
    }
    s[..end].parse().unwrap_or(0.0)
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian).
pub fn days_from_civil(y: i32, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = (y - era * 400) as u32;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe as i32 - 719468
}

/// The civil date (year, month, day) of a day number.
pub fn civil_from_days(z: i32) -> (i32, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = (z - era * 146097) as u32;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe as i32 + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

pub fn format_date(days: i32) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A DATETIME(fsp) value as MySQL prints it: exactly `fsp` fraction digits
/// (`2020-01-01 00:00:00.000` for DATETIME(3)), none for DATETIME(0). A
/// value with more digits than its type (it never should have) is cut.
pub fn format_datetime(micros: i64, fsp: u8) -> String {
    let days = micros.div_euclid(86_400_000_000);
    let rem = micros.rem_euclid(86_400_000_000);
    let secs = rem / 1_000_000;
    let frac = rem % 1_000_000;
    let base = format!(
        "{} {:02}:{:02}:{:02}",
        format_date(days as i32),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    match fsp.min(MAX_FSP) {
        0 => base,
        n => {
            let digits = format!("{frac:06}");
            format!("{base}.{}", &digits[..n as usize])
        }
    }
}

/// Parses 'YYYY-MM-DD' (also with a time part, which is dropped).
pub fn parse_date(s: &str) -> Option<i32> {
    let s = s.trim();
    let date = s.split([' ', 'T']).next()?;
    let mut it = date.split('-');
    let y: i32 = it.next()?.parse().ok()?;
    let m: u32 = it.next()?.parse().ok()?;
    let d: u32 = it.next()?.parse().ok()?;
    if it.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Parses 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]'.
pub fn parse_datetime(s: &str) -> Option<i64> {
    let s = s.trim();
    let days = parse_date(s)? as i64;
    let time = s.split_once([' ', 'T']).map(|(_, t)| t).unwrap_or("");
    let mut micros = 0i64;
    if !time.is_empty() {
        let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
        let mut parts = hms.split(':');
        let h: i64 = parts.next()?.parse().ok()?;
        let mi: i64 = parts.next().unwrap_or("0").parse().ok()?;
        let se: i64 = parts.next().unwrap_or("0").parse().ok()?;
        if h > 23 || mi > 59 || se > 59 {
            return None;
        }
        let mut f = 0i64;
        let fd: String = frac.chars().take(6).collect();
        if !fd.is_empty() {
            f = fd.parse::<i64>().ok()? * 10i64.pow(6 - fd.len() as u32);
        }
        micros = ((h * 60 + mi) * 60 + se) * 1_000_000 + f;
    }
    Some(days * 86_400_000_000 + micros)
}

/// Adds months to a date as MySQL does: the day is clipped to the month's last day.
pub fn add_months(days: i32, months: i64) -> Option<i32> {
    let (y, m, d) = civil_from_days(days);
    let total = y as i64 * 12 + (m as i64 - 1) + months;
    let ny = total.div_euclid(12);
    let nm = (total.rem_euclid(12) + 1) as u32;
    if !(0..=9999).contains(&ny) {
        return None;
    }
    let nd = d.min(days_in_month(ny as i32, nm));
    Some(days_from_civil(ny as i32, nm, nd))
}

/// PAD SPACE comparison of byte strings (utf8mb4_bin): the shorter one is
/// compared as if padded with spaces, so 'a' = 'a  ' and 'a\t' < 'a'.
pub fn compare_pad_space(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    match a[..n].cmp(&b[..n]) {
        Ordering::Equal => {}
        other => return other,
    }
    let (rest, flip) = if a.len() > n {
        (&a[n..], false)
    } else {
        (&b[n..], true)
    };
    for &c in rest {
        if c != b' ' {
            let o = c.cmp(&b' ');
            return if flip { o.reverse() } else { o };
        }
    }
    Ordering::Equal
}

/// Bytes of `s` without trailing spaces: the key under which PAD SPACE strings are equal.
pub fn trim_pad(s: &[u8]) -> &[u8] {
    let mut end = s.len();
    while end > 0 && s[end - 1] == b' ' {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for d in [-800_000, -1, 0, 1, 10_000, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(parse_date("1998-12-01"), Some(10561));
        assert_eq!(format_date(10561), "1998-12-01");
        assert_eq!(parse_date("1998-02-30"), None);
    }

    #[test]
    fn integer_literal_digits_count_the_value() {
        let digits = |v| integer_literal_digits(&v);
        assert_eq!(digits(ScalarValue::Int64(0)), Some(1));
        assert_eq!(digits(ScalarValue::Int64(-2)), Some(1));
        assert_eq!(digits(ScalarValue::Int64(12345)), Some(5));
        assert_eq!(digits(ScalarValue::Int64(i64::MIN)), Some(19));
        assert_eq!(digits(ScalarValue::UInt64(u64::MAX)), Some(20));
        assert_eq!(digits(ScalarValue::Float64(2.0)), None);
    }

    #[test]
    fn add_months_clips() {
        let jan31 = parse_date("2020-01-31").unwrap();
        assert_eq!(format_date(add_months(jan31, 1).unwrap()), "2020-02-29");
        assert_eq!(format_date(add_months(jan31, -13).unwrap()), "2018-12-31");
    }

    #[test]
    fn decimal_text() {
        assert_eq!(format_decimal(-5, 2), "-0.05");
        assert_eq!(format_decimal(12345, 2), "123.45");
        assert_eq!(parse_decimal("-1.50"), Some((-150, 2)));
        assert_eq!(rescale(125, 2, 1), Some(13));
        assert_eq!(rescale(-125, 2, 1), Some(-13));
    }

    #[test]
    fn pad_space() {
        assert_eq!(compare_pad_space(b"a", b"a  "), Ordering::Equal);
        assert_eq!(compare_pad_space(b"a\t", b"a"), Ordering::Less);
        assert_eq!(compare_pad_space(b"a", b"a\t"), Ordering::Greater);
    }

    #[test]
    fn division_keeps_whole_words_of_fraction() {
        // MariaDB 10.11: 100.00/3 = 33.333333333 inside, 2.00000/3 = 0.666666666,
        // 1/0.123456789 keeps 18 digits (x 1e9 = 8100000073.7100).
        assert_eq!(division_internal_scale(2, 0), 9);
        assert_eq!(division_internal_scale(5, 0), 9);
        assert_eq!(division_internal_scale(9, 0), 18);
        assert_eq!(division_internal_scale(0, 9), 18);
        assert_eq!(division_internal_scale(0, 0), 9);
    }

    #[test]
    fn mysql_decimal_rules() {
        let d = DataType::Decimal128(15, 2);
        assert_eq!(
            arithmetic_result_type(ArithOp::Mul, &d, &d).unwrap(),
            DataType::Decimal128(30, 4)
        );
        assert_eq!(
            declared_arithmetic_type(ArithOp::Div, &DataType::Int64, &DataType::Int64).unwrap(),
            DataType::Decimal128(23, 4)
        );
        // Computed with whole 9-digit words of fraction (MariaDB: 2/3*1000000000 = 666666666.0000).
        assert_eq!(
            arithmetic_result_type(ArithOp::Div, &DataType::Int64, &DataType::Int64).unwrap(),
            DataType::Decimal128(28, 9)
        );
        assert_eq!(sum_type(&d), DataType::Decimal128(37, 2));
        assert_eq!(avg_type(&d), DataType::Decimal128(19, 6));
        assert_eq!(avg_internal_type(&d), DataType::Decimal128(22, 9));
    }

    #[test]
    fn datetime_precision_is_part_of_the_type() {
        // DATETIME(0) is the untagged Timestamp manifests have always held.
        assert_eq!(
            datetime_type(0),
            DataType::Timestamp(TimeUnit::Microsecond, None)
        );
        for fsp in 0..=MAX_FSP {
            assert_eq!(datetime_fsp(&datetime_type(fsp)), Some(fsp));
        }
        assert_eq!(datetime_fsp(&DataType::Date32), None);
        assert_eq!(mysql_type_name(&datetime_type(0)), "datetime");
        assert_eq!(mysql_type_name(&datetime_type(3)), "datetime(3)");
        // Comparisons and CASE / UNION take the larger precision.
        let (d0, d3) = (datetime_type(0), datetime_type(3));
        assert_eq!(comparison_type(&d0, &d3), d3);
        assert_eq!(common_type(&[d3.clone(), d0.clone()]), d3);
        assert_eq!(common_type(&[DataType::Date32, d3.clone()]), d3);
        // A string compared with a datetime keeps all its digits.
        assert_eq!(comparison_type(&d0, &DataType::Utf8), datetime_type(6));
    }

    #[test]
    fn datetime_values_are_cut_and_printed_at_their_precision() {
        let t = parse_datetime("2020-01-01 10:00:00.123456").unwrap();
        assert_eq!(format_datetime(t, 6), "2020-01-01 10:00:00.123456");
        assert_eq!(format_datetime(t, 3), "2020-01-01 10:00:00.123");
        assert_eq!(format_datetime(t, 0), "2020-01-01 10:00:00");
        assert_eq!(
            format_datetime(truncate_fsp(t, 0), 3),
            "2020-01-01 10:00:00.000"
        );
        // Truncated, not rounded.
        let t = parse_datetime("2020-01-01 10:00:00.99").unwrap();
        assert_eq!(
            format_datetime(truncate_fsp(t, 1), 1),
            "2020-01-01 10:00:00.9"
        );
        // Before 1970 too.
        let t = parse_datetime("1969-12-31 23:59:59.75").unwrap();
        assert_eq!(
            format_datetime(truncate_fsp(t, 1), 1),
            "1969-12-31 23:59:59.7"
        );
        assert_eq!(literal_fsp("2020-01-01 10:00:00.12"), 2);
        assert_eq!(literal_fsp("2020-01-01 10:00:00"), 0);
        assert_eq!(literal_fsp("2020-01-01"), 0);
        assert_eq!(literal_fsp("2020-01-01 10:00:00.1234567"), 6);
    }
}
