//! Declared string types of computed columns: the length in characters MySQL
//! derives for a string expression (CONCAT adds its arguments' lengths,
//! SUBSTRING with a constant length keeps at most that many, ...). Clients
//! read it in a result's column definitions, CREATE TABLE ... AS SELECT
//! declares its columns with it, DESCRIBE shows it for a view's columns.
//!
//! The text is what `COLUMN_TYPE_KEY` holds (`char(5)`, `varchar(25)`,
//! `text`); where MySQL's length depends on rules not modelled here the
//! type stays undeclared (the longest VARCHAR), never a wrong bound.

use std::sync::Arc;

use arrow_schema::DataType;
use quiver_common::types::{is_binary, is_string, ArithOp, CharLength, IntKind, IntType};
use quiver_common::ScalarValue;
use quiver_plan::function::{DeclaredString, IntWidth};
use quiver_plan::{AggFunc, BinaryOp, DatePart, Expr, ScalarFunc, UnaryOp, WindowFunc};

use super::Binder;

/// MySQL's longest VARCHAR in utf8mb4 characters: a derived length beyond it
/// is no longer a VARCHAR (and is left undeclared).
const MAX_VARCHAR: u64 = 16_383;

/// MySQL's longest VARBINARY in bytes.
const MAX_VARBINARY: u64 = 65_532;

/// A string expression's declared kind and length in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Declared {
    Char(u64),
    Varchar(u64),
}

impl Declared {
    fn parse(text: &str) -> Option<Declared> {
        Some(match CharLength::of(text)? {
            CharLength::Char(n) => Declared::Char(n as u64),
            CharLength::Varchar(n) => Declared::Varchar(n as u64),
        })
    }

    fn chars(self) -> u64 {
        match self {
            Declared::Char(n) | Declared::Varchar(n) => n,
        }
    }

    fn text(self) -> Option<Arc<str>> {
        match self {
            Declared::Char(n) => Some(format!("char({n})").into()),
            Declared::Varchar(n) if n <= MAX_VARCHAR => Some(format!("varchar({n})").into()),
            Declared::Varchar(_) => None,
        }
    }
}

/// An integer constant (a SUBSTRING position or length).
fn constant(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(v, _) => match v {
            ScalarValue::Int64(n) => Some(*n),
            ScalarValue::UInt64(n) => i64::try_from(*n).ok(),
            _ => None,
        },
        Expr::Cast { expr, .. } => constant(expr),
        Expr::Unary {
            op: quiver_plan::UnaryOp::Neg,
            expr,
        } => constant(expr)?.checked_neg(),
        _ => None,
    }
}

impl Binder<'_> {
    /// The declared type text of string expression `e`, if MySQL's rules
    /// for it are modelled here and its operands' lengths are known.
    pub(crate) fn declared_type(&self, e: &Expr) -> Option<Arc<str>> {
        let t = e.data_type();
        if t.is_integer() {
            // A column read unchanged keeps its table's text (`mediumint`).
            if let Expr::Column(id, _) = e {
                if let Some(text) = self.declared.get(id) {
                    return Some(text.clone());
                }
            }
            return Some(self.declared_int(e)?.text().into());
        }
        if quiver_common::types::is_datetime(&t) {
            // A TIMESTAMP column read unchanged (or its MIN / MAX) stays a
            // TIMESTAMP; any other datetime is the DATETIME of its type.
            return match e {
                Expr::Column(id, _) => self.declared.get(id).cloned(),
                _ => None,
            };
        }
        if !is_string(&t) {
            return None;
        }
        match e {
            // A column keeps its own type, TEXT included.
            Expr::Column(id, _) => self.declared.get(id).cloned(),
            Expr::Collate { expr, .. } => self.declared_type(expr),
            // An ENUM / SET column read unchanged keeps its type.
            Expr::Function {
                func: ScalarFunc::MemberText,
                ..
            } => e.member_type_text().map(Arc::from),
            Expr::Function {
                func: ScalarFunc::Registered(f),
                ..
            } if f.declared_string() == Some(DeclaredString::Long) => Some(
                if is_binary(&t) {
                    "longblob"
                } else {
                    "longtext"
                }
                .into(),
            ),
            _ if is_binary(&t) => {
                let n = self.bytes(e)?;
                (n <= MAX_VARBINARY).then(|| format!("varbinary({n})").into())
            }
            _ => self.declared_string(e)?.text(),
        }
    }

    /// The most bytes binary expression `e` holds, if known (MariaDB: a
    /// literal's bytes, text made bytes its characters times its charset's
    /// widest, CONCAT's the sum).
    fn bytes(&self, e: &Expr) -> Option<u64> {
        let t = e.data_type();
        if !is_binary(&t) {
            let width = super::collation::charset_of(e).max_char_len() as u64;
            return self.chars(e)?.checked_mul(width);
        }
        match e {
            Expr::Literal(ScalarValue::Binary(b), _) => Some(b.len() as u64),
            Expr::Literal(v, _) if v.is_null() => Some(0),
            Expr::Collate { expr, .. } => self.bytes(expr),
            Expr::Column(id, _) => {
                let text = self.declared.get(id)?;
                let (kind, rest) = text.split_once('(')?;
                matches!(kind, "binary" | "varbinary")
                    .then(|| rest.strip_suffix(')')?.parse().ok())?
            }
            Expr::Function { func, args, .. } => match func {
                ScalarFunc::ToCharset(_) | ScalarFunc::Upper | ScalarFunc::Lower => {
                    self.bytes(args.first()?)
                }
                // CAST(x AS BINARY(n)): n bytes.
                ScalarFunc::Rpad => constant(args.get(1)?).map(|n| n.max(0) as u64),
                ScalarFunc::Registered(f) => {
                    let infos: Vec<_> = args.iter().map(Expr::arg_info).collect();
                    self.registered_length(*f, &infos, args)
                }
                ScalarFunc::Concat => {
                    let mut n: u64 = 0;
                    for a in args {
                        n = n.checked_add(self.bytes(a)?)?;
                    }
                    Some(n)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// MIN / MAX keep their argument's declared type; COUNT is BIGINT(21).
    pub(crate) fn declared_aggregate(&self, func: AggFunc, arg: Option<&Expr>) -> Option<Arc<str>> {
        match func {
            AggFunc::Min | AggFunc::Max => self.declared_type(arg?),
            AggFunc::Count | AggFunc::CountStar => Some(COUNT.text().into()),
            AggFunc::Registered(r) => r.declared_type().map(Into::into),
            _ => None,
        }
    }

    /// A window function's declared type: its own (ranks are BIGINT(21))
    /// or its first argument's (LAG, FIRST_VALUE); MIN / MAX keep their
    /// argument's.
    pub(crate) fn declared_window(&self, func: WindowFunc, arg: Option<&Expr>) -> Option<Arc<str>> {
        match func {
            WindowFunc::Registered(f) => match f.declared_type() {
                Some(t) => Some(t.into()),
                None => self.declared_type(arg?),
            },
            WindowFunc::Agg(f) => self.declared_aggregate(f, arg),
        }
    }

    /// The display length MariaDB gives DOUBLE expression `e`: a table's
    /// DOUBLE is 22, a computed one 23 (DBL_DIG + 8), and CASE / IF /
    /// COALESCE / NULLIF the longest of their values (`COALESCE(f, 1)` is 22).
    /// A literal counts 23 here (MariaDB: as many as its text has).
    pub(crate) fn double_length(&self, e: &Expr) -> u32 {
        const COMPUTED: u32 = 23;
        let operand = |v: &Expr| -> Option<u32> {
            let t = v.data_type();
            if matches!(v, Expr::Literal(x, _) if x.is_null()) {
                return None;
            }
            Some(if t == DataType::Float64 {
                self.double_length(v)
            } else if let Some(i) = self.int_of(v) {
                i.t.width
            } else {
                display_width(&t).map_or(COMPUTED, |w| w as u32)
            })
        };
        let longest = |values: &mut dyn Iterator<Item = &Expr>| {
            values.filter_map(operand).max().unwrap_or(COMPUTED)
        };
        match e {
            // A table's column (it has an origin) is 22; an aggregate's 23.
            Expr::Column(id, _) => match self.double_lengths.get(id) {
                Some(n) => *n,
                None if self.origins.contains_key(id) => 22,
                None => COMPUTED,
            },
            // A number converted to DOUBLE for a CASE or COALESCE counts as
            // written (`COALESCE(f, 1)`: the 1 is one character).
            Expr::Literal(ScalarValue::Float64(v), _) => v.to_string().len() as u32,
            Expr::Case {
                branches,
                else_expr,
                ..
            } => longest(&mut branches.iter().map(|(_, v)| v).chain(else_expr.as_deref())),
            Expr::Function {
                func: ScalarFunc::Coalesce,
                args,
                ..
            } => longest(&mut args.iter()),
            Expr::Function {
                func: ScalarFunc::NullIf,
                args,
                ..
            } => longest(&mut args.iter().take(1)),
            // An implicit conversion to DOUBLE keeps its operand's length.
            Expr::Cast { expr, .. } => operand(expr).unwrap_or(COMPUTED),
            _ => COMPUTED,
        }
    }

    /// The fixed decimals MariaDB gives DOUBLE expression `e` (its
    /// `decimals` below 31), None when they are not fixed. Only a function
    /// that declares them starts them (PI() has 6, PERCENTILE_CONT 10);
    /// +, -, * and unary minus keep the most of their operands', `/` adds
    /// 4, where every operand's are fixed: an integer's are 0, a DECIMAL's
    /// its scale, a number folded to a DOUBLE literal its digits as written
    /// (`PI() * 2`). A DOUBLE column or literal alone has none.
    pub(crate) fn fixed_decimals(&self, e: &Expr) -> Option<u8> {
        match self.decimals_of(e)? {
            (d, true) => Some(d),
            (_, false) => None,
        }
    }

    /// `e`'s decimals if fixed, and whether a function declared them.
    fn decimals_of(&self, e: &Expr) -> Option<(u8, bool)> {
        let operand = |v: &Expr| -> Option<(u8, bool)> {
            match v.data_type() {
                DataType::Float64 => self.decimals_of(v),
                DataType::Decimal128(_, s) | DataType::Decimal256(_, s) => {
                    Some((s.max(0) as u8, false))
                }
                t if t.is_integer() || t == DataType::Boolean => Some((0, false)),
                _ => None,
            }
        };
        match e {
            Expr::Column(id, _) => self.double_decimals.get(id).map(|d| (*d, true)),
            // A DOUBLE literal here is a number the binder converted (`2` of
            // `PI() * 2`): its digits. (MariaDB gives one written as DOUBLE,
            // `2e0`, no fixed decimals; the two cannot be told apart here.)
            Expr::Literal(ScalarValue::Float64(v), _) if v.is_finite() => {
                let t = v.to_string();
                let frac = t.find('.').map_or(0, |p| t.len() - p - 1);
                (frac < 31 && !t.contains('e')).then_some((frac as u8, false))
            }
            Expr::Function {
                func: ScalarFunc::Registered(f),
                ..
            } => f.decimals().map(|d| (d, true)),
            Expr::Binary { op, left, right } => {
                let ((l, ls), (r, rs)) = (operand(left)?, operand(right)?);
                let source = ls || rs;
                match op.arith()? {
                    ArithOp::Add | ArithOp::Sub | ArithOp::Mul => Some((l.max(r), source)),
                    ArithOp::Div => Some(((l.max(r) + 4).min(30), source)),
                    _ => None,
                }
            }
            Expr::Unary {
                op: UnaryOp::Neg,
                expr,
            } => operand(expr),
            Expr::Cast { expr, .. } => operand(expr),
            _ => None,
        }
    }

    fn declared_string(&self, e: &Expr) -> Option<Declared> {
        let varchar = Declared::Varchar;
        if let Some(t) = e.member_type_text() {
            let m = quiver_common::types::MemberType::parse(t)?;
            return Some(varchar(m.max_chars() as u64));
        }
        match e {
            Expr::Column(id, _) => Declared::parse(self.declared.get(id)?),
            Expr::Collate { expr, .. } => self.declared_string(expr),
            Expr::Literal(ScalarValue::Utf8(s), _) => Some(varchar(s.chars().count() as u64)),
            // CAST(x AS CHAR): as many characters as x prints as.
            Expr::Cast { expr, .. } => Some(varchar(self.chars(expr)?)),
            Expr::Case {
                branches,
                else_expr,
                ..
            } => {
                let mut n = 0;
                for v in branches.iter().map(|(_, v)| v).chain(else_expr.as_deref()) {
                    n = n.max(self.string_operand(v)?);
                }
                Some(varchar(n))
            }
            Expr::Function { func, args, .. } => {
                use ScalarFunc as F;
                match func {
                    F::Concat => {
                        let mut n: u64 = 0;
                        for a in args {
                            n = n.checked_add(self.chars(a)?)?;
                        }
                        Some(varchar(n))
                    }
                    F::Upper | F::Lower | F::Trim | F::LTrim | F::RTrim => {
                        Some(varchar(self.declared_string(args.first()?)?.chars()))
                    }
                    F::Substring => self.declared_substring(args),
                    F::Registered(f) => {
                        let infos: Vec<_> = args.iter().map(Expr::arg_info).collect();
                        Some(varchar(self.registered_length(*f, &infos, args)?))
                    }
                    F::Left | F::Right => {
                        let whole = self.declared_string(args.first()?)?.chars();
                        match constant(args.get(1)?)? {
                            n if n <= 0 => Some(Declared::Char(0)),
                            n => Some(varchar(whole.min(n as u64))),
                        }
                    }
                    // Hex digits of the digest.
                    F::Md5 => Some(varchar(32)),
                    F::Sha1 => Some(varchar(40)),
                    F::Sha2 => match constant(args.get(1)?) {
                        Some(0) => Some(varchar(64)),
                        Some(bits @ (224 | 256 | 384 | 512)) => Some(varchar(bits as u64 / 4)),
                        Some(_) => Some(Declared::Char(0)),
                        None => Some(varchar(128)),
                    },
                    F::Coalesce | F::NullIf | F::Greatest | F::Least => {
                        let operands = if *func == F::NullIf {
                            &args[..1]
                        } else {
                            &args[..]
                        };
                        let mut n = 0;
                        for a in operands {
                            n = n.max(self.string_operand(a)?);
                        }
                        Some(varchar(n))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A registered function's result length, from its arguments' lengths
    /// (a binary argument's in bytes).
    fn registered_length(
        &self,
        f: quiver_plan::FunctionRef,
        infos: &[quiver_plan::function::ArgInfo],
        args: &[Expr],
    ) -> Option<u64> {
        let lengths: Vec<_> = args
            .iter()
            .map(|a| {
                if is_binary(&a.data_type()) {
                    self.bytes(a)
                } else {
                    self.chars(a)
                }
            })
            .collect();
        f.max_chars(infos, &lengths)
    }

    /// SUBSTRING(s, pos [, len]) as MariaDB derives it: from `s`'s length
    /// in bytes, less `pos - 1` for a constant positive `pos` (so that
    /// SUBSTRING(VARCHAR(20), 2) of utf8mb4 is VARCHAR(79)), at most `len`.
    fn declared_substring(&self, args: &[Expr]) -> Option<Declared> {
        let s = args.first()?;
        if matches!(s, Expr::Literal(..)) {
            // Literals are measured in the connection charset there.
            return None;
        }
        let width = super::collation::column_collation(s)
            .unwrap_or_else(quiver_plan::default_collation)
            .charset()
            .max_char_len() as u64;
        let bytes = self.declared_string(s)?.chars().checked_mul(width)?;
        let mut n = match args.get(1).and_then(constant) {
            Some(0) => return Some(Declared::Char(0)),
            Some(pos) if pos < 0 => bytes.min(pos.unsigned_abs()),
            Some(pos) => bytes - bytes.min(pos as u64 - 1),
            None => bytes,
        };
        if let Some(len) = args.get(2) {
            match constant(len) {
                Some(l) if l <= 0 => return Some(Declared::Char(0)),
                Some(l) => n = n.min(l as u64),
                None => {}
            }
        }
        Some(Declared::Varchar(n))
    }

    /// The length of a CASE / COALESCE operand: NULL adds nothing.
    fn string_operand(&self, e: &Expr) -> Option<u64> {
        match e {
            Expr::Literal(v, _) if v.is_null() => Some(0),
            e => self.chars(e),
        }
    }

    /// The most characters `e` prints as, if known: a string's declared
    /// length, a number's or date's display width (CONCAT(n, d)).
    fn chars(&self, e: &Expr) -> Option<u64> {
        let t = e.data_type();
        if is_string(&t) {
            return Some(self.declared_string(e)?.chars());
        }
        if matches!(e, Expr::Literal(v, _) if v.is_null()) {
            // A folded NULL no longer says how long it would have been.
            return None;
        }
        display_width(&t)
    }

    /// The MySQL integer type of integer expression `e` by MariaDB's rules,
    /// where they are modelled: the digits of a sum are its operands' most
    /// plus one, of a product their total, and the kind is INT while the
    /// width stays within 9 characters, else BIGINT.
    pub(crate) fn declared_int(&self, e: &Expr) -> Option<IntType> {
        self.int_of(e).map(|i| i.t)
    }

    fn int_of(&self, e: &Expr) -> Option<Int> {
        let unsigned = e.data_type().is_unsigned_integer();
        let operand = |x: &Expr| self.int_of(x);
        let fixed = |kind, width| Some(Int::fixed(kind, width, unsigned));
        match e {
            Expr::Column(id, t) => {
                let t = match self.declared.get(id) {
                    Some(text) => IntType::parse(text)?,
                    None => IntType::of_arrow(t)?,
                };
                // A column's digits are its type's, whatever its width.
                Some(Int {
                    t,
                    digits: t.kind.digits(t.unsigned),
                })
            }
            Expr::Literal(v, _) => literal_int(v),
            Expr::Unary {
                op: UnaryOp::Neg,
                expr,
            } => match expr.as_ref() {
                Expr::Literal(ScalarValue::Int64(v), _) => {
                    literal_int(&ScalarValue::Int64(v.checked_neg()?))
                }
                x => Some(Int::computed(operand(x)?.digits + 1, unsigned)),
            },
            Expr::Binary { op, left, right } => {
                let (l, r) = (operand(left)?.digits, operand(right)?.digits);
                Some(match op {
                    BinaryOp::Add | BinaryOp::Sub => Int::computed(l.max(r) + 1, unsigned),
                    BinaryOp::Mul => Int::computed(l + r, unsigned),
                    BinaryOp::Mod => Int::computed(l.max(r), unsigned),
                    // The quotient's digits, without room for a sign.
                    BinaryOp::IntDiv => Int::fixed(int_or_bigint(l), l, unsigned),
                    _ => return None,
                })
            }
            Expr::Cast { expr, .. } if expr.data_type().is_integer() => operand(expr),
            // A DATETIME as an integer (`b + 0`, CAST(b AS SIGNED)): its 14
            // digits YYYYMMDDhhmmss; the cast itself is BIGINT(21) in MariaDB.
            Expr::Cast { expr, .. } if quiver_common::types::is_datetime(&expr.data_type()) => {
                Some(Int {
                    t: IntType {
                        kind: IntKind::LongLong,
                        width: 21,
                        unsigned,
                    },
                    digits: 14,
                })
            }
            Expr::Case {
                branches,
                else_expr,
                ..
            } => self.common_int(
                branches.iter().map(|(_, v)| v).chain(else_expr.as_deref()),
                unsigned,
            ),
            Expr::Function { func, args, .. } => {
                use ScalarFunc as F;
                match func {
                    F::Coalesce | F::Greatest | F::Least => self.common_int(args.iter(), unsigned),
                    F::Field => fixed(IntKind::Long, 3),
                    F::NullIf | F::DeclaredScale => operand(args.first()?),
                    F::Registered(f) => {
                        let infos: Vec<_> = args.iter().map(Expr::arg_info).collect();
                        match f.int_width(&infos)? {
                            IntWidth::Operand => operand(args.first()?),
                            IntWidth::OperandPlus(n) => {
                                let w = operand(args.first()?)?.t.width + n;
                                fixed(int_or_bigint(w), w)
                            }
                            IntWidth::Fixed(kind, w) => fixed(kind, w),
                        }
                    }
                    F::Length | F::CharLength => fixed(IntKind::Long, 10),
                    F::Locate => fixed(IntKind::Long, 11),
                    F::Extract(part) => fixed(IntKind::Long, extract_width(*part)?),
                    F::TimestampDiff(_) => fixed(IntKind::LongLong, 21),
                    F::SqlCast if unsigned => fixed(IntKind::LongLong, 20),
                    F::SqlCast => {
                        let a = args.first()?;
                        let width = match operand(a) {
                            Some(i) => i.t.width,
                            None => display_width(&a.data_type())? as u32,
                        }
                        .clamp(2, 20);
                        fixed(int_or_bigint(width), width)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The type of a CASE / COALESCE over `values` (NULLs left out): the
    /// widest kind, and the most digits with a sign.
    fn common_int<'e>(
        &self,
        values: impl Iterator<Item = &'e Expr>,
        unsigned: bool,
    ) -> Option<Int> {
        let mut out: Option<(IntKind, u32)> = None;
        for v in values {
            if matches!(v, Expr::Literal(x, _) if x.is_null()) {
                continue;
            }
            let i = self.int_of(v)?;
            if i.t.unsigned != unsigned {
                return None;
            }
            let (kind, d) = out.unwrap_or((IntKind::Tiny, 0));
            out = Some((kind.max(i.t.kind), d.max(i.digits)));
        }
        let (kind, digits) = out?;
        Some(Int {
            t: IntType {
                kind,
                width: digits + u32::from(!unsigned),
                unsigned,
            },
            digits,
        })
    }
}

/// An integer expression's type and the digits its values may have (a
/// literal's as written, a column's its type's whatever its width).
#[derive(Debug, Clone, Copy)]
struct Int {
    t: IntType,
    digits: u32,
}

impl Int {
    /// Arithmetic's result: its digits, and a sign if signed.
    fn computed(digits: u32, unsigned: bool) -> Int {
        let width = digits + u32::from(!unsigned);
        Int::fixed(int_or_bigint(width), width, unsigned)
    }

    fn fixed(kind: IntKind, width: u32, unsigned: bool) -> Int {
        Int {
            t: IntType {
                kind,
                width,
                unsigned,
            },
            digits: width - u32::from(!unsigned && width > 1),
        }
    }
}

/// COUNT(*), ROW_NUMBER(), RANK(): BIGINT(21).
const COUNT: IntType = IntType {
    kind: IntKind::LongLong,
    width: 21,
    unsigned: false,
};

/// MariaDB types an integer result INT while its width fits 9 characters.
fn int_or_bigint(width: u32) -> IntKind {
    if width <= 9 {
        IntKind::Long
    } else {
        IntKind::LongLong
    }
}

/// An integer literal: as wide as it is written.
fn literal_int(v: &ScalarValue) -> Option<Int> {
    let (text, unsigned) = match v {
        ScalarValue::Int64(n) => (n.to_string(), false),
        ScalarValue::UInt64(n) => (n.to_string(), true),
        _ => return None,
    };
    let width = text.len() as u32;
    Some(Int {
        t: IntType {
            kind: int_or_bigint(width),
            width,
            unsigned,
        },
        digits: text.trim_start_matches('-').len() as u32,
    })
}

/// The width of YEAR(d), MONTH(d), ...: the function forms' (EXTRACT's
/// DAY, HOUR, MINUTE and SECOND are one wider in MariaDB).
fn extract_width(part: DatePart) -> Option<u32> {
    Some(match part {
        DatePart::Year => 4,
        DatePart::Quarter => 1,
        DatePart::Month | DatePart::Week | DatePart::Day => 2,
        DatePart::Hour | DatePart::Minute | DatePart::Second => 2,
        DatePart::Microsecond => 7,
        DatePart::YearMonth => 6,
        DatePart::DaySecond => 9,
        _ => return None,
    })
}

/// How many characters MySQL counts for a number or date in string context:
/// INT is 11, DECIMAL(5,2) is 7.
fn display_width(t: &DataType) -> Option<u64> {
    Some(match t {
        DataType::Int8 => 4,
        DataType::UInt8 => 3,
        DataType::Int16 => 6,
        DataType::UInt16 => 5,
        DataType::Int32 => 11,
        DataType::UInt32 => 10,
        DataType::Int64 | DataType::UInt64 => 20,
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            *p as u64 + 1 + u64::from(*s > 0)
        }
        DataType::Date32 => 10,
        // DATETIME(fsp): a point and fsp digits after the 19.
        t @ DataType::Timestamp(..) => {
            let fsp = quiver_common::types::datetime_fsp(t).unwrap_or(0) as u64;
            19 + fsp + u64::from(fsp > 0)
        }
        _ => return None,
    })
}

/// A UNION column's declared type, known only if every input's is: for
/// strings the longest of the inputs' (a VARCHAR), for integers the widest
/// kind at the widest width (`ti UNION 1` is INT(4)).
pub(crate) fn declared_union<'a>(
    inputs: impl Iterator<Item = Option<&'a str>>,
) -> Option<Arc<str>> {
    let inputs: Vec<&str> = inputs.collect::<Option<_>>()?;
    if let Some(ints) = inputs
        .iter()
        .map(|t| IntType::parse(t))
        .collect::<Option<Vec<_>>>()
    {
        let first = *ints.first()?;
        if ints.iter().any(|i| i.unsigned != first.unsigned) {
            return None;
        }
        let kind = ints.iter().map(|i| i.kind).max()?;
        let width = ints.iter().map(|i| i.width).max()?;
        return Some(
            IntType {
                kind,
                width,
                unsigned: first.unsigned,
            }
            .text()
            .into(),
        );
    }
    // Bytes meeting text: as many bytes as the longest input holds (text
    // counted at utf8mb4's four bytes a character).
    if inputs
        .iter()
        .any(|t| t.starts_with("varbinary(") || t.starts_with("binary("))
    {
        let mut n: u64 = 0;
        for t in &inputs {
            let (kind, rest) = t.split_once('(')?;
            let len: u64 = rest.strip_suffix(')')?.parse().ok()?;
            n = n.max(match kind {
                "binary" | "varbinary" => len,
                "char" | "varchar" => len.checked_mul(4)?,
                _ => return None,
            });
        }
        return (n <= MAX_VARBINARY).then(|| format!("varbinary({n})").into());
    }
    let mut n = 0;
    for t in inputs {
        n = n.max(Declared::parse(t)?.chars());
    }
    Declared::Varchar(n).text()
}
