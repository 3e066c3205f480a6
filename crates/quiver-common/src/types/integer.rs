//! MySQL's integer types: kinds, display widths, and the digits MySQL
//! counts for an integer type or literal in decimal arithmetic.

use arrow_schema::DataType;

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
