//! Typed scalar expressions. Types are fixed by the binder (with MySQL's
//! coercions made explicit as casts), so the executor never guesses.

use std::collections::HashSet;
use std::fmt;

use arrow_schema::DataType;
use quiver_collation::Collation;
use quiver_common::types::{arithmetic_result_type, ArithOp};
use quiver_common::ScalarValue;

/// The collation of strings with no `Collate` node on top: the engine's
/// default, `utf8mb4_bin` (PAD SPACE, byte order).
pub fn default_collation() -> Collation {
    Collation::utf8mb4_bin()
}

/// MySQL's coercibility of a string's collation: when the operands of a
/// comparison disagree, the lower one wins; equal ones must agree (or one be
/// `_bin`), else error 1267.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Coercibility {
    /// `expr COLLATE name`.
    Explicit = 0,
    /// A mix of collations with nothing to decide between them.
    None = 1,
    /// A column.
    Implicit = 2,
    /// A system constant (`USER()`, `VERSION()`).
    SysConst = 3,
    /// A string literal.
    Coercible = 4,
    /// A number converted to a string.
    Numeric = 5,
    /// NULL.
    Ignorable = 6,
}

/// Identity of a column produced somewhere in a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColumnId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    And,
    Or,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
        )
    }

    pub fn arith(self) -> Option<ArithOp> {
        Some(match self {
            BinaryOp::Add => ArithOp::Add,
            BinaryOp::Sub => ArithOp::Sub,
            BinaryOp::Mul => ArithOp::Mul,
            BinaryOp::Div => ArithOp::Div,
            BinaryOp::IntDiv => ArithOp::IntDiv,
            BinaryOp::Mod => ArithOp::Mod,
            _ => return None,
        })
    }

    /// The comparison with its operands swapped (`a < b` is `b > a`).
    pub fn swap(self) -> BinaryOp {
        match self {
            BinaryOp::Lt => BinaryOp::Gt,
            BinaryOp::LtEq => BinaryOp::GtEq,
            BinaryOp::Gt => BinaryOp::Lt,
            BinaryOp::GtEq => BinaryOp::LtEq,
            other => other,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::IntDiv => "DIV",
            BinaryOp::Mod => "%",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::And => "AND",
            BinaryOp::Or => "OR",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    Neg,
    IsNull,
    IsNotNull,
}

/// Scalar functions with a fixed result type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarFunc {
    /// SUBSTRING(s, pos [, len]) in characters, 1-based, negative pos from the end.
    Substring,
    /// EXTRACT(unit FROM d): args are [d]; the unit is in the variant.
    Extract(DatePart),
    /// d + INTERVAL n unit; args [d, n]; the unit is a single one (a
    /// compound INTERVAL is counted in months or microseconds first).
    DateAdd(DatePart),
    /// The value of `INTERVAL s unit` read from the string s as MySQL does
    /// (`'1-2'` YEAR_MONTH, `'1 2:03:04.5'` DAY_MICROSECOND): an Int64 count
    /// of [`DatePart::interval_base`] units, NULL for a malformed string.
    Interval(DatePart),
    /// TIMESTAMPDIFF(part, a, b); args [a, b] as DATETIME: whole parts
    /// from a to b (months, quarters and years count whole calendar months).
    TimestampDiff(DatePart),
    Coalesce,
    /// IF(cond, a, b) is planned as CASE; NULLIF(a, b):
    NullIf,
    Concat,
    Length,
    CharLength,
    Upper,
    Lower,
    Trim,
    LTrim,
    RTrim,
    /// HEX of a string's bytes, or of a number as BIGINT UNSIGNED.
    Hex,
    /// GREATEST(a, b, ...) / LEAST: args cast to the result type (strings
    /// under their combined collation); NULL when any is NULL; of equal
    /// values the first.
    Greatest,
    Least,
    /// FIELD(x, a, ...): the position of the first argument equal to x (all
    /// cast to one compare type by the binder), 0 for none or a NULL x.
    Field,
    /// MD5(str) / SHA1(str): the digest of the string's bytes in its
    /// charset, as lower-case hex digits.
    Md5,
    Sha1,
    /// SHA2(str, bits): SHA-224/256/384/512 (0 is 256); NULL for other bits.
    Sha2,
    /// UNHEX(str): the binary string of pairs of hex digits (an odd count
    /// reads as if led by a 0); NULL when a character is no hex digit.
    Unhex,
    /// INSERT(str, pos, len, newstr): str with `len` characters from `pos`
    /// replaced by newstr (str itself when pos is outside it).
    Insert,
    /// ASCII(str): the first byte of the string in its charset.
    Ascii,
    /// ORD(str): the first character's bytes in its charset as one
    /// big-endian number (ASCII's for a one-byte character).
    Ord,
    /// LOCATE(substr, str [, pos]): 1-based character position under the
    /// collation of the operands, 0 if absent (INSTR and POSITION too).
    Locate,
    /// REPLACE(str, from, to): byte-exact, as MySQL's.
    Replace,
    /// LEFT(str, n) / RIGHT(str, n), in characters.
    Left,
    Right,
    /// WEIGHT_STRING(str): the collation's sort key, as bytes.
    WeightString,
    /// REVERSE(str): its characters in reverse order.
    Reverse,
    /// REPEAT(str, n): str n times (NULL beyond max_allowed_packet).
    Repeat,
    /// LPAD(str, n, pad) / RPAD: str cut or padded with pad to n characters.
    Lpad,
    Rpad,
    /// SPACE(n): n spaces.
    Space,
    /// CONCAT_WS(sep, a, ...): the non-NULL arguments joined by sep.
    ConcatWs,
    /// SUBSTRING_INDEX(str, delim, count): str before the count-th delim
    /// (after the -count-th from the end when negative); byte-exact.
    SubstringIndex,
    /// CONVERT(str USING cs) into a single-byte charset (latin1, ascii):
    /// each character cs cannot hold becomes '?'; the text stays UTF-8.
    ToCharset(quiver_collation::Charset),
    /// A decimal computed with MySQL's extra internal digits (a quotient,
    /// AVG), rounded half away from zero to its declared scale: the value
    /// clients see and tables store. Arithmetic looks through it.
    DeclaredScale,
    /// CAST(x AS type) / CONVERT(x, type) where SQL's CAST converts unlike a
    /// stored value: SIGNED / UNSIGNED wrap, strings read as integers,
    /// DECIMAL clamps to its range, numbers read as YYYYMMDD dates.
    SqlCast,
    /// `l / r`, `l DIV r`, `l % r` (args [l, r]) in a statement that writes a
    /// table: division by zero is error 1365 (MySQL's strict mode with
    /// ERROR_FOR_DIVISION_BY_ZERO) instead of NULL.
    StrictDivision(BinaryOp),
    /// The text of an ENUM / SET column's codes: args [codes, the column's
    /// declared type text (`enum('a','b')`) as a literal]. A column reference
    /// is bound as this; numeric contexts, ORDER BY and GROUP BY read the
    /// codes underneath ([`Expr::member_codes`]).
    MemberText,
    /// A function of the registry ([`crate::function`]): its type rule and
    /// kernel are the object's.
    Registered(crate::function::FunctionRef),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
/// MySQL's INTERVAL / EXTRACT units, the compound ones included.
pub enum DatePart {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Microsecond,
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

impl DatePart {
    /// Whether the part is of a time of day only (HOUR ... MICROSECOND and
    /// their compounds), which a TIME value has too.
    pub fn is_time_of_day(self) -> bool {
        use DatePart::*;
        matches!(
            self,
            Hour | Minute
                | Second
                | Microsecond
                | SecondMicrosecond
                | MinuteMicrosecond
                | MinuteSecond
                | HourMicrosecond
                | HourSecond
                | HourMinute
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Column(ColumnId, DataType),
    Literal(ScalarValue, DataType),
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Unary {
        op: UnaryOp,
        expr: Box<Expr>,
    },
    Like {
        negated: bool,
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<char>,
    },
    InList {
        negated: bool,
        expr: Box<Expr>,
        list: Vec<Expr>,
    },
    Case {
        branches: Vec<(Expr, Expr)>,
        else_expr: Option<Box<Expr>>,
        data_type: DataType,
    },
    Cast {
        expr: Box<Expr>,
        to: DataType,
    },
    Function {
        func: ScalarFunc,
        args: Vec<Expr>,
        data_type: DataType,
    },
    /// A string expression under a collation other than the default. Its
    /// value is `expr`'s; the node tells the operators that compare, hash,
    /// sort or search it which collation to use. The binder puts one on top
    /// of every non-default-collated operand it hands to such an operator.
    Collate {
        expr: Box<Expr>,
        collation: Collation,
        coercibility: Coercibility,
    },
}

impl Expr {
    /// The codes under an ENUM / SET column's text (`MemberText`, bare or
    /// under its collation), None for any other expression.
    pub fn member_codes(&self) -> Option<&Expr> {
        match self {
            Expr::Collate { expr, .. } => expr.member_codes(),
            Expr::Function {
                func: ScalarFunc::MemberText,
                args,
                ..
            } => args.first(),
            _ => None,
        }
    }

    /// The declared type text of an ENUM / SET column's text expression.
    pub fn member_type_text(&self) -> Option<&str> {
        match self {
            Expr::Collate { expr, .. } => expr.member_type_text(),
            Expr::Function {
                func: ScalarFunc::MemberText,
                args,
                ..
            } => match args.get(1) {
                Some(Expr::Literal(ScalarValue::Utf8(t), _)) => Some(t),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn col(id: ColumnId, t: DataType) -> Expr {
        Expr::Column(id, t)
    }

    pub fn lit(v: ScalarValue) -> Expr {
        let t = v.data_type();
        Expr::Literal(v, t)
    }

    /// The text of a string literal, bare or under a `Collate` node (a
    /// literal wears the connection's collation when that is not the
    /// default: `SET NAMES`, or a client's handshake). Whatever the binder
    /// decides from a literal's text must look through that node, or a
    /// statement would mean something else over the server than embedded.
    pub fn as_str_literal(&self) -> Option<&str> {
        match self {
            Expr::Literal(ScalarValue::Utf8(s), _) => Some(s),
            Expr::Collate { expr, .. } => expr.as_str_literal(),
            _ => None,
        }
    }

    pub fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        }
    }

    pub fn and(self, other: Expr) -> Expr {
        Expr::binary(BinaryOp::And, self, other)
    }

    // A builder beside `and`, not the `!` operator: plans are not negated
    // with operators anywhere else.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Expr {
        Expr::Unary {
            op: UnaryOp::Not,
            expr: Box::new(self),
        }
    }

    pub fn cast(self, to: &DataType) -> Expr {
        if &self.data_type() == to {
            self
        } else {
            Expr::Cast {
                expr: Box::new(self),
                to: to.clone(),
            }
        }
    }

    /// What a registered function's type rule sees of this argument.
    pub fn arg_info(&self) -> crate::function::ArgInfo {
        crate::function::ArgInfo {
            data_type: self.data_type(),
            literal: match self {
                Expr::Literal(v, _) => Some(v.clone()),
                _ => None,
            },
        }
    }

    pub fn data_type(&self) -> DataType {
        match self {
            Expr::Column(_, t) | Expr::Literal(_, t) => t.clone(),
            Expr::Binary { op, left, right } => {
                if let Some(a) = op.arith() {
                    arithmetic_result_type(a, &left.data_type(), &right.data_type())
                        .unwrap_or(DataType::Float64)
                } else {
                    DataType::Boolean
                }
            }
            Expr::Unary {
                op: UnaryOp::Neg,
                expr,
            } => match expr.data_type() {
                // -x of an integer is a BIGINT: -(-128) of a TINYINT is
                // 128, not the -128 its own width would wrap to.
                t if t.is_integer() => DataType::Int64,
                t => t,
            },
            Expr::Unary { .. } | Expr::Like { .. } | Expr::InList { .. } => DataType::Boolean,
            Expr::Case { data_type, .. } | Expr::Function { data_type, .. } => data_type.clone(),
            Expr::Cast { to, .. } => to.clone(),
            Expr::Collate { expr, .. } => expr.data_type(),
        }
    }

    /// The collation an operator applies to this string expression: its
    /// `Collate` node's, else the default.
    pub fn collation(&self) -> Collation {
        match self {
            Expr::Collate { collation, .. } => *collation,
            _ => default_collation(),
        }
    }

    /// This expression under `collation`: a `Collate` node on top unless it
    /// is the default and nothing says otherwise.
    pub fn with_collation(self, collation: Collation, coercibility: Coercibility) -> Expr {
        let inner = match self {
            Expr::Collate { expr, .. } => *expr,
            e => e,
        };
        if collation == default_collation() && coercibility != Coercibility::Explicit {
            inner
        } else {
            Expr::Collate {
                expr: Box::new(inner),
                collation,
                coercibility,
            }
        }
    }

    /// `self` under a `Collate` node even where [`Expr::with_collation`]
    /// leaves none (the default collation, not explicit): for a value whose
    /// coercibility is not what its own form says (a derived table's column
    /// of literals, a CASE folded to one of its values).
    pub fn with_derivation(self, collation: Collation, coercibility: Coercibility) -> Expr {
        let inner = match self {
            Expr::Collate { expr, .. } => *expr,
            e => e,
        };
        Expr::Collate {
            expr: Box::new(inner),
            collation,
            coercibility,
        }
    }

    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Column(..) | Expr::Literal(..) => vec![],
            Expr::Binary { left, right, .. } => vec![left, right],
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } | Expr::Collate { expr, .. } => {
                vec![expr]
            }
            Expr::Like { expr, pattern, .. } => vec![expr, pattern],
            Expr::InList { expr, list, .. } => {
                std::iter::once(&**expr).chain(list.iter()).collect()
            }
            Expr::Case {
                branches,
                else_expr,
                ..
            } => {
                let mut v: Vec<&Expr> = branches.iter().flat_map(|(w, t)| [w, t]).collect();
                if let Some(e) = else_expr {
                    v.push(e);
                }
                v
            }
            Expr::Function { args, .. } => args.iter().collect(),
        }
    }

    /// Rebuilds the expression bottom-up through `f`.
    pub fn transform(self, f: &mut impl FnMut(Expr) -> Expr) -> Expr {
        let e = match self {
            Expr::Binary { op, left, right } => Expr::Binary {
                op,
                left: Box::new(left.transform(f)),
                right: Box::new(right.transform(f)),
            },
            Expr::Unary { op, expr } => Expr::Unary {
                op,
                expr: Box::new(expr.transform(f)),
            },
            Expr::Cast { expr, to } => Expr::Cast {
                expr: Box::new(expr.transform(f)),
                to,
            },
            Expr::Collate {
                expr,
                collation,
                coercibility,
            } => Expr::Collate {
                expr: Box::new(expr.transform(f)),
                collation,
                coercibility,
            },
            Expr::Like {
                negated,
                expr,
                pattern,
                escape,
            } => Expr::Like {
                negated,
                expr: Box::new(expr.transform(f)),
                pattern: Box::new(pattern.transform(f)),
                escape,
            },
            Expr::InList {
                negated,
                expr,
                list,
            } => Expr::InList {
                negated,
                expr: Box::new(expr.transform(f)),
                list: list.into_iter().map(|e| e.transform(f)).collect(),
            },
            Expr::Case {
                branches,
                else_expr,
                data_type,
            } => Expr::Case {
                branches: branches
                    .into_iter()
                    .map(|(w, t)| (w.transform(f), t.transform(f)))
                    .collect(),
                else_expr: else_expr.map(|e| Box::new(e.transform(f))),
                data_type,
            },
            Expr::Function {
                func,
                args,
                data_type,
            } => Expr::Function {
                func,
                args: args.into_iter().map(|a| a.transform(f)).collect(),
                data_type,
            },
            leaf => leaf,
        };
        f(e)
    }

    pub fn columns(&self) -> HashSet<ColumnId> {
        let mut out = HashSet::new();
        self.collect_columns(&mut out);
        out
    }

    pub fn collect_columns(&self, out: &mut HashSet<ColumnId>) {
        if let Expr::Column(id, _) = self {
            out.insert(*id);
        }
        for c in self.children() {
            c.collect_columns(out);
        }
    }

    /// Splits a conjunction into its terms.
    pub fn split_conjunction(self) -> Vec<Expr> {
        match self {
            Expr::Binary {
                op: BinaryOp::And,
                left,
                right,
            } => {
                let mut v = left.split_conjunction();
                v.extend(right.split_conjunction());
                v
            }
            other => vec![other],
        }
    }

    /// Splits a disjunction into its branches.
    pub fn split_disjunction(self) -> Vec<Expr> {
        match self {
            Expr::Binary {
                op: BinaryOp::Or,
                left,
                right,
            } => {
                let mut v = left.split_disjunction();
                v.extend(right.split_disjunction());
                v
            }
            other => vec![other],
        }
    }

    pub fn conjunction(terms: Vec<Expr>) -> Option<Expr> {
        terms.into_iter().reduce(|a, b| a.and(b))
    }

    pub fn replace_columns(self, map: &std::collections::HashMap<ColumnId, Expr>) -> Expr {
        self.transform(&mut |e| match &e {
            Expr::Column(id, _) => map.get(id).cloned().unwrap_or(e),
            _ => e,
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Column(id, _) => write!(f, "#{}", id.0),
            Expr::Literal(ScalarValue::Utf8(s), _) => write!(f, "'{s}'"),
            // Bytes as the hex literal that writes them: they need not be
            // text, let alone printable.
            Expr::Literal(ScalarValue::Binary(b), _) => {
                write!(f, "X'")?;
                b.iter().try_for_each(|x| write!(f, "{x:02X}"))?;
                write!(f, "'")
            }
            Expr::Literal(v, _) => write!(f, "{v}"),
            Expr::Binary { op, left, right } => write!(f, "({left} {} {right})", op.symbol()),
            Expr::Unary {
                op: UnaryOp::Not,
                expr,
            } => write!(f, "NOT {expr}"),
            Expr::Unary {
                op: UnaryOp::Neg,
                expr,
            } => write!(f, "-{expr}"),
            Expr::Unary {
                op: UnaryOp::IsNull,
                expr,
            } => write!(f, "{expr} IS NULL"),
            Expr::Unary {
                op: UnaryOp::IsNotNull,
                expr,
            } => write!(f, "{expr} IS NOT NULL"),
            Expr::Like {
                negated,
                expr,
                pattern,
                ..
            } => {
                write!(
                    f,
                    "{expr} {}LIKE {pattern}",
                    if *negated { "NOT " } else { "" }
                )
            }
            Expr::InList {
                negated,
                expr,
                list,
            } => {
                write!(f, "{expr} {}IN (", if *negated { "NOT " } else { "" })?;
                for (i, e) in list.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{e}")?;
                }
                write!(f, ")")
            }
            Expr::Case {
                branches,
                else_expr,
                ..
            } => {
                write!(f, "CASE")?;
                for (w, t) in branches {
                    write!(f, " WHEN {w} THEN {t}")?;
                }
                if let Some(e) = else_expr {
                    write!(f, " ELSE {e}")?;
                }
                write!(f, " END")
            }
            Expr::Collate {
                expr, collation, ..
            } => write!(f, "{expr} COLLATE {collation}"),
            Expr::Cast { expr, to } => write!(
                f,
                "CAST({expr} AS {})",
                quiver_common::types::mysql_type_name(to)
            ),
            Expr::Function { func, args, .. } => {
                match func {
                    // By its name: `SQRT(#0)`.
                    ScalarFunc::Registered(r) => write!(f, "{r:?}(")?,
                    func => write!(f, "{func:?}(")?,
                }
                for (i, e) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{e}")?;
                }
                write!(f, ")")
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggFunc {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    /// MySQL's GROUP_CONCAT: its arguments and clauses are in
    /// [`AggExpr::concat`].
    GroupConcat,
    /// An aggregate of the registry ([`crate::aggregate`]): its type rule
    /// and accumulator are the object's.
    Registered(crate::aggregate::AggregateRef),
}

impl fmt::Debug for AggFunc {
    // EXPLAIN prints a registered aggregate by its name (`STDDEV_POP`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AggFunc::CountStar => write!(f, "CountStar"),
            AggFunc::Count => write!(f, "Count"),
            AggFunc::Sum => write!(f, "Sum"),
            AggFunc::Avg => write!(f, "Avg"),
            AggFunc::Min => write!(f, "Min"),
            AggFunc::Max => write!(f, "Max"),
            AggFunc::GroupConcat => write!(f, "GroupConcat"),
            AggFunc::Registered(r) => write!(f, "{r:?}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct AggExpr {
    pub func: AggFunc,
    pub arg: Option<Expr>,
    pub distinct: bool,
    pub data_type: DataType,
    /// GROUP_CONCAT's arguments, ORDER BY and separator (its `arg` is
    /// None); None for every other aggregate.
    pub concat: Option<Box<GroupConcat>>,
}

/// `GROUP_CONCAT([DISTINCT] args [ORDER BY ..] [SEPARATOR s] [LIMIT ..])`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupConcat {
    /// The values of a row, written one after the other with nothing
    /// between them; each a string of the result's charset. A row where
    /// any is NULL is skipped.
    pub args: Vec<Expr>,
    /// With DISTINCT, what rows are told apart by: the arguments as they
    /// are (strings under their collations, numbers as numbers). Without
    /// ORDER BY the distinct rows come in this order (MariaDB's tree).
    pub distinct_keys: Vec<Expr>,
    /// The order of the rows; ties in reverse input order, as MariaDB's.
    pub order_by: Vec<SortExpr>,
    /// Written between rows (bytes of the result's charset).
    pub separator: Vec<u8>,
    /// `group_concat_max_len`: the result is cut to this many bytes of its
    /// charset, at a character's end.
    pub max_len: u64,
    /// The result's collation (its charset says how `max_len` counts:
    /// latin1 and ascii take one byte per character of the UTF-8 text).
    pub collation: Collation,
    /// LIMIT: (offset, count) of the rows in their order.
    pub limit: Option<(u64, u64)>,
    /// Written before and after a result that is not NULL, after the cut
    /// to `max_len` (JSON_ARRAYAGG's `[` `]`, JSON_OBJECTAGG's `{` `}`).
    pub wrap: Option<(Vec<u8>, Vec<u8>)>,
}

impl AggExpr {
    /// Every expression the aggregate reads (below the Aggregate).
    pub fn exprs(&self) -> Vec<&Expr> {
        let mut out: Vec<&Expr> = self.arg.iter().collect();
        if let Some(c) = &self.concat {
            out.extend(&c.args);
            out.extend(&c.distinct_keys);
            out.extend(c.order_by.iter().map(|k| &k.expr));
        }
        out
    }

    /// [`AggExpr::exprs`], to change in place.
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        let mut out: Vec<&mut Expr> = self.arg.iter_mut().collect();
        if let Some(c) = &mut self.concat {
            out.extend(&mut c.args);
            out.extend(&mut c.distinct_keys);
            out.extend(c.order_by.iter_mut().map(|k| &mut k.expr));
        }
        out
    }
}

impl fmt::Display for GroupConcat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{e}")?;
        }
        if !self.order_by.is_empty() {
            write!(f, " ORDER BY ")?;
            for (i, k) in self.order_by.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "{}{}", k.expr, if k.asc { "" } else { " DESC" })?;
            }
        }
        write!(
            f,
            " SEPARATOR {:?}",
            String::from_utf8_lossy(&self.separator)
        )?;
        if let Some((offset, count)) = self.limit {
            write!(f, " LIMIT {offset}, {count}")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SortExpr {
    pub expr: Expr,
    pub asc: bool,
    /// MySQL puts NULLs first in ascending order and last in descending order.
    pub nulls_first: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowFunc {
    /// A window function of the registry ([`crate::window`]).
    Registered(crate::window::WindowRef),
    /// An aggregate over the window's frame.
    Agg(AggFunc),
}

#[derive(Debug, Clone, PartialEq)]
pub struct WindowExpr {
    pub func: WindowFunc,
    /// The arguments, converted (an aggregate has at most one).
    pub args: Vec<Expr>,
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<SortExpr>,
    /// The frame as given or MySQL's default; the whole partition without
    /// ORDER BY (where MySQL's default frame means it).
    pub frame: crate::window::WindowFrame,
    pub data_type: DataType,
}
