//! SQL column types (CREATE TABLE, CAST) mapped to Arrow types.

use arrow_schema::DataType;
use quiver_common::types::{
    MemberKind, MemberType, MAX_DECIMAL_PRECISION, MAX_DECIMAL_SCALE, MAX_ENUM_MEMBERS, MAX_FSP,
    MAX_SET_MEMBERS,
};
use quiver_common::{QuiverError, Result};
use sqlparser::ast::{DataType as SqlType, ExactNumberInfo};

/// Maps a column type of CREATE TABLE or a CAST target to its Arrow type.
pub fn sql_type(dt: &SqlType) -> Result<DataType> {
    use SqlType as T;
    Ok(match dt {
        T::TinyInt(_) => DataType::Int8,
        T::SmallInt(_) | T::Int2(_) => DataType::Int16,
        T::MediumInt(_) | T::Int(_) | T::Integer(_) | T::Int4(_) => DataType::Int32,
        T::BigInt(_) | T::Int8(_) | T::Signed | T::SignedInteger => DataType::Int64,
        T::TinyIntUnsigned(_) | T::UTinyInt => DataType::UInt8,
        T::SmallIntUnsigned(_) | T::Int2Unsigned(_) | T::USmallInt => DataType::UInt16,
        T::MediumIntUnsigned(_)
        | T::IntUnsigned(_)
        | T::IntegerUnsigned(_)
        | T::Int4Unsigned(_) => DataType::UInt32,
        T::BigIntUnsigned(_)
        | T::Int8Unsigned(_)
        | T::UBigInt
        | T::Unsigned
        | T::UnsignedInteger => DataType::UInt64,
        T::Decimal(info)
        | T::Numeric(info)
        | T::Dec(info)
        | T::DecimalUnsigned(info)
        | T::DecUnsigned(info) => decimal_type(info)?,
        T::Float(_)
        | T::FloatUnsigned(_)
        | T::Double(_)
        | T::DoubleUnsigned(_)
        | T::DoublePrecision
        | T::DoublePrecisionUnsigned
        | T::Real
        | T::RealUnsigned
        | T::Float4
        | T::Float8
        | T::Float32
        | T::Float64 => DataType::Float64,
        T::Date => DataType::Date32,
        // DATETIME(n) / TIMESTAMP(n): n fraction digits, 0 without one.
        T::Datetime(p) | T::Timestamp(p, _) => {
            quiver_common::types::datetime_type(p.unwrap_or(0).min(MAX_FSP as u64) as u8)
        }
        // TIME(n): n fraction digits, 0 without one.
        T::Time(p, sqlparser::ast::TimezoneInfo::None) => {
            quiver_common::types::time_type(p.unwrap_or(0).min(MAX_FSP as u64) as u8)
        }
        T::Char(_)
        | T::Character(_)
        | T::Varchar(_)
        | T::Nvarchar(_)
        | T::CharacterVarying(_)
        | T::CharVarying(_)
        | T::Text
        | T::TinyText
        | T::MediumText
        | T::LongText
        | T::String(_) => DataType::Utf8,
        T::Binary(_)
        | T::Varbinary(_)
        | T::Blob(_)
        | T::TinyBlob
        | T::MediumBlob
        | T::LongBlob
        | T::Bytea => DataType::Binary,
        // MySQL: BOOLEAN is TINYINT(1); it stores any small integer.
        T::Boolean | T::Bool => DataType::Int8,
        // YEAR: a small integer (0 is 0000); the type text says YEAR.
        T::Custom(..) if is_year_type(dt)? => DataType::Int16,
        T::Enum(..) | T::Set(_) => match member_type(dt)? {
            Some(m) => m.code_type(),
            None => return Err(QuiverError::not_supported(format!("data type {dt}"))),
        },
        other => return Err(QuiverError::not_supported(format!("data type {other}"))),
    })
}

/// Whether `dt` is YEAR or YEAR(4); YEAR(2) and other widths are not
/// built (1235).
pub fn is_year_type(dt: &SqlType) -> Result<bool> {
    match dt {
        SqlType::Custom(name, args) if name.to_string().eq_ignore_ascii_case("year") => {
            match args.as_slice() {
                [] => Ok(true),
                [w] if w == "4" => Ok(true),
                _ => Err(QuiverError::not_supported(format!("data type {dt}"))),
            }
        }
        _ => Ok(false),
    }
}

/// Error 1426 for DATETIME(n) / TIMESTAMP(n) with n beyond 6, naming what
/// MariaDB names: the column, or the CAST's operand.
pub fn check_fsp(dt: &SqlType, name: &str) -> Result<()> {
    match dt {
        SqlType::Datetime(Some(p)) | SqlType::Timestamp(Some(p), _) | SqlType::Time(Some(p), _)
            if *p > MAX_FSP as u64 =>
        {
            Err(QuiverError::new(
                1426,
                "42000",
                format!("Too big precision specified for '{name}'. Maximum is {MAX_FSP}"),
            ))
        }
        _ => Ok(()),
    }
}

fn check_decimal_precision(p: u64) -> Result<()> {
    if p > MAX_DECIMAL_PRECISION as u64 {
        return Err(QuiverError::new(
            1426,
            "42000",
            format!("Too big precision {p} specified. Maximum is {MAX_DECIMAL_PRECISION}."),
        ));
    }
    Ok(())
}

/// The Arrow type of a CAST / CONVERT target: [`sql_type`], except that a
/// DECIMAL's precision is checked before its scale (MariaDB: CAST(1 AS
/// DECIMAL(100,50)) is 1426 where a column DECIMAL(100,50) is 1425).
pub fn cast_type(dt: &SqlType) -> Result<DataType> {
    use SqlType as T;
    if let T::Decimal(ExactNumberInfo::PrecisionAndScale(p, _))
    | T::Numeric(ExactNumberInfo::PrecisionAndScale(p, _))
    | T::Dec(ExactNumberInfo::PrecisionAndScale(p, _)) = dt
    {
        check_decimal_precision(*p)?;
    }
    if matches!(dt, T::Enum(..) | T::Set(_)) || is_year_type(dt).unwrap_or(false) {
        return Err(QuiverError::syntax_msg(format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{dt}'"
        )));
    }
    sql_type(dt)
}

/// The members of an ENUM / SET column type as MariaDB keeps them
/// (trailing spaces removed); None for other types. ClickHouse's
/// `ENUM8` / `'a' = 1` forms are not MySQL's.
pub fn member_type(dt: &SqlType) -> Result<Option<MemberType>> {
    use sqlparser::ast::EnumMember;
    let (kind, names): (MemberKind, Vec<&String>) = match dt {
        SqlType::Enum(members, None) => {
            let names = members
                .iter()
                .map(|m| match m {
                    EnumMember::Name(n) => Ok(n),
                    EnumMember::NamedValue(..) => {
                        Err(QuiverError::not_supported(format!("data type {dt}")))
                    }
                })
                .collect::<Result<_>>()?;
            (MemberKind::Enum, names)
        }
        SqlType::Set(members) => (MemberKind::Set, members.iter().collect()),
        SqlType::Enum(..) => return Err(QuiverError::not_supported(format!("data type {dt}"))),
        _ => return Ok(None),
    };
    let members: Vec<String> = names
        .into_iter()
        .map(|n| n.trim_end_matches(' ').to_string())
        .collect();
    let limit = match kind {
        MemberKind::Enum => MAX_ENUM_MEMBERS,
        MemberKind::Set => MAX_SET_MEMBERS,
    };
    if members.len() > limit {
        let what = match kind {
            MemberKind::Enum => "ENUM",
            MemberKind::Set => "SET",
        };
        return Err(QuiverError::new(
            1097,
            "HY000",
            format!("Too many strings for column and {what}"),
        ));
    }
    Ok(Some(MemberType { kind, members }))
}

/// The declared type as SHOW COLUMNS prints it, for the types whose Arrow
/// type loses something (the length of CHAR and VARCHAR, MEDIUMINT).
pub fn column_type_text(dt: &SqlType) -> Option<String> {
    use sqlparser::ast::CharacterLength;
    use SqlType as T;
    let len = |l: &Option<CharacterLength>| match l {
        Some(CharacterLength::IntegerLength { length, .. }) => Some(*length),
        _ => None,
    };
    match dt {
        // MySQL: CHAR without a length is CHAR(1).
        T::Char(l) | T::Character(l) => Some(format!("char({})", len(l).unwrap_or(1))),
        T::Varchar(l) | T::Nvarchar(l) | T::CharacterVarying(l) | T::CharVarying(l) => {
            len(l).map(|n| format!("varchar({n})"))
        }
        T::Text => Some("text".into()),
        T::TinyText => Some("tinytext".into()),
        T::MediumText => Some("mediumtext".into()),
        T::LongText => Some("longtext".into()),
        T::Binary(n) => Some(format!("binary({})", n.unwrap_or(1))),
        T::Varbinary(Some(sqlparser::ast::BinaryLength::IntegerLength { length })) => {
            Some(format!("varbinary({length})"))
        }
        T::Blob(n) => Some(blob_type(n.unwrap_or(65_535)).into()),
        T::TinyBlob => Some("tinyblob".into()),
        T::MediumBlob => Some("mediumblob".into()),
        T::LongBlob => Some("longblob".into()),
        // BOOLEAN is TINYINT(1): clients read the width 1 as "boolean".
        T::Boolean | T::Bool => Some("tinyint(1)".into()),
        // A display width travels to clients as the column's length
        // (TINYINT(1) reads as a boolean in connectors).
        T::TinyInt(Some(w)) => Some(format!("tinyint({w})")),
        T::TinyIntUnsigned(Some(w)) => Some(format!("tinyint({w}) unsigned")),
        T::SmallInt(Some(w)) => Some(format!("smallint({w})")),
        T::SmallIntUnsigned(Some(w)) => Some(format!("smallint({w}) unsigned")),
        T::Int(Some(w)) | T::Integer(Some(w)) => Some(format!("int({w})")),
        T::IntUnsigned(Some(w)) | T::IntegerUnsigned(Some(w)) => Some(format!("int({w}) unsigned")),
        T::BigInt(Some(w)) => Some(format!("bigint({w})")),
        T::BigIntUnsigned(Some(w)) => Some(format!("bigint({w}) unsigned")),
        // Stored as INT: the type text keeps MEDIUMINT's narrower range.
        T::MediumInt(Some(w)) => Some(format!("mediumint({w})")),
        T::MediumIntUnsigned(Some(w)) => Some(format!("mediumint({w}) unsigned")),
        // Kept as a DATETIME of the same precision; the text keeps the name
        // SHOW COLUMNS and clients see (the type code TIMESTAMP).
        T::Timestamp(Some(n), _) if *n > 0 => Some(format!("timestamp({n})")),
        T::Timestamp(..) => Some("timestamp".into()),
        T::MediumInt(_) => Some("mediumint".into()),
        T::MediumIntUnsigned(_) => Some("mediumint unsigned".into()),
        T::Enum(..) | T::Set(_) => member_type(dt).ok().flatten().map(|m| m.text()),
        T::Custom(..) if is_year_type(dt).unwrap_or(false) => {
            Some(quiver_common::types::YEAR_TYPE_TEXT.into())
        }
        _ => None,
    }
}

/// The BLOB type MariaDB makes of `BLOB(n)`: the smallest that holds n bytes.
pub fn blob_type(n: u64) -> &'static str {
    match n {
        0..=255 => "tinyblob",
        256..=65_535 => "blob",
        65_536..=16_777_215 => "mediumblob",
        _ => "longblob",
    }
}

/// The binary column type MariaDB makes of a text type declared with
/// CHARACTER SET binary (VARCHAR(5) is VARBINARY(5), TEXT is BLOB).
pub fn binary_column_type(text_type: &str) -> String {
    match text_type.split_once('(') {
        Some(("char", n)) => format!("binary({n}"),
        Some(("varchar", n)) => format!("varbinary({n}"),
        _ => match text_type {
            "tinytext" => "tinyblob",
            "mediumtext" => "mediumblob",
            "longtext" => "longblob",
            _ => "blob",
        }
        .to_string(),
    }
}

fn decimal_type(info: &ExactNumberInfo) -> Result<DataType> {
    let (p, s) = match *info {
        ExactNumberInfo::None => (10, 0),
        ExactNumberInfo::Precision(p) => (p, 0),
        ExactNumberInfo::PrecisionAndScale(p, s) => (p, s.max(0) as u64),
    };
    // A column definition (MariaDB) checks the scale first, then the
    // precision, then scale <= precision; CAST checks the precision first
    // ([`cast_type`]).
    if s > MAX_DECIMAL_SCALE as u64 {
        return Err(QuiverError::new(
            1425,
            "42000",
            format!("Too big scale {s} specified. Maximum is {MAX_DECIMAL_SCALE}."),
        ));
    }
    check_decimal_precision(p)?;
    if s > p {
        return Err(QuiverError::new(
            1427,
            "42000",
            "For float(M,D), double(M,D) or decimal(M,D), M must be >= D",
        ));
    }
    Ok(quiver_common::types::decimal_type(p.max(1) as u8, s as i8))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_sql;
    use sqlparser::ast::{ColumnDef, CreateTable, Statement};

    fn column_types(sql: &str) -> Vec<Result<DataType>> {
        match parse_sql(sql).unwrap().remove(0) {
            Statement::CreateTable(CreateTable { columns, .. }) => columns
                .iter()
                .map(|c: &ColumnDef| sql_type(&c.data_type))
                .collect(),
            other => panic!("not a CREATE TABLE: {other}"),
        }
    }

    #[test]
    fn mysql_column_types() {
        let t = column_types(
            "CREATE TABLE t (a TINYINT, b SMALLINT, c MEDIUMINT, d INT, e INTEGER, f BIGINT, g INT UNSIGNED, \
             h BIGINT UNSIGNED, i DECIMAL(15,2), j DECIMAL, k NUMERIC(5), l DOUBLE, m FLOAT, n DATE, o DATETIME, \
             p TIMESTAMP, q VARCHAR(10), r CHAR(3), s TEXT, u BOOLEAN, v TINYINT UNSIGNED)",
        );
        let t: Vec<DataType> = t.into_iter().map(|r| r.unwrap()).collect();
        use DataType::*;
        let ts = Timestamp(arrow_schema::TimeUnit::Microsecond, None);
        assert_eq!(
            t,
            vec![
                Int8,
                Int16,
                Int32,
                Int32,
                Int32,
                Int64,
                UInt32,
                UInt64,
                Decimal128(15, 2),
                Decimal128(10, 0),
                Decimal128(5, 0),
                Float64,
                Float64,
                Date32,
                ts.clone(),
                ts,
                Utf8,
                Utf8,
                Utf8,
                Int8, // BOOLEAN is TINYINT(1)
                UInt8
            ]
        );
        assert_eq!(
            column_types("CREATE TABLE t (a DECIMAL(50, 2), b DECIMAL(65, 38))")
                .into_iter()
                .map(|t| t.unwrap())
                .collect::<Vec<_>>(),
            vec![Decimal256(50, 2), Decimal256(65, 38)]
        );
        let e = column_types("CREATE TABLE t (a DECIMAL(66, 2))")
            .remove(0)
            .unwrap_err();
        assert_eq!(e.code, 1426);
        let e = column_types("CREATE TABLE t (a DECIMAL(40, 39))")
            .remove(0)
            .unwrap_err();
        assert_eq!(e.code, 1425);
        // A column checks the scale first (MariaDB), CAST the precision.
        let e = column_types("CREATE TABLE t (a DECIMAL(100, 50))")
            .remove(0)
            .unwrap_err();
        assert_eq!(e.code, 1425);
        let t = SqlType::Decimal(ExactNumberInfo::PrecisionAndScale(100, 50));
        assert_eq!(cast_type(&t).unwrap_err().code, 1426);
        let e = column_types("CREATE TABLE t (a DECIMAL(5, 6))")
            .remove(0)
            .unwrap_err();
        assert_eq!(e.code, 1427);
    }
}
