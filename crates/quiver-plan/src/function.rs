//! The scalar function registry's contract: a function is one object.
//!
//! # Design
//!
//! A MySQL scalar function is one value implementing [`ScalarFunction`]: its
//! name and aliases, its argument count, MySQL's type rule (the result type
//! and the argument conversions, the integer display width, nullability)
//! and its vectorized kernel ([`ScalarFunction::invoke`]). The shape follows
//! DataFusion's `ScalarUDFImpl` (type rule and kernel on one trait object)
//! and DuckDB's `ScalarFunction` bind step (the function decides its
//! arguments' types and its result type from the bound arguments). The
//! type rule sees argument types and literal values ([`ArgInfo`]), never
//! expression trees, so this module does not depend on [`crate::expr`].
//!
//! Dependencies stay one-way:
//!
//! - this crate (`quiver-plan`) defines the trait, [`FunctionRef`] (the
//!   handle an [`crate::Expr::Function`] holds, as
//!   [`crate::ScalarFunc::Registered`]) and [`FunctionRegistry`] (lookup by
//!   name). It knows no function.
//! - `quiver-exec` holds the functions, one file per function or small
//!   family under `src/functions/`, and the one list that registers them
//!   (`quiver_exec::functions::REGISTRY`). Kernels there use the executor's
//!   casts and its warning sink.
//! - `quiver-sql`'s binder resolves a name through the registry its
//!   `Catalog` gives it (`Catalog::functions`, wired by `quiver-engine`):
//!   it checks the argument count (1582), asks the object for the argument
//!   types ([`ScalarFunction::coerce_types`]), makes each conversion an
//!   explicit cast with its own MySQL conversion rules, and asks for the
//!   result type ([`ScalarFunction::return_type`]). The binder's crate never depends on the
//!   executor's.
//! - the executor's `PhysicalExpr::Function` calls `invoke` on the object it
//!   finds in the plan; `mysql_text` and EXPLAIN print [`ScalarFunction::name`].
//!
//! Adding a function is one file in `quiver-exec/src/functions/` and one
//! line in its registry list. Functions not yet migrated still live in the
//! [`crate::ScalarFunc`] enum with their binder and executor arms.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::RangeInclusive;

use arrow_schema::DataType;
use quiver_collation::Collation;

use crate::aggregate::{AggregateFunction, AggregateRef};
use crate::window::{WindowFunction, WindowRef};
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, QuiverError, Result, ScalarValue};

/// Where a function is listed in docs/FUNCTIONS.md (MariaDB's categories).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Numeric,
    String,
    DateTime,
    Other,
}

impl Family {
    pub fn title(self) -> &'static str {
        match self {
            Family::Numeric => "Numeric",
            Family::String => "String",
            Family::DateTime => "Date and time",
            Family::Other => "Other",
        }
    }
}

/// An argument as the type rule sees it, after its conversion: its type,
/// and its value when it is a literal.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgInfo {
    pub data_type: DataType,
    pub literal: Option<ScalarValue>,
}

impl ArgInfo {
    /// The literal's value as an integer (ROUND's digits).
    pub fn int_literal(&self) -> Option<i64> {
        self.literal.as_ref().and_then(ScalarValue::as_i64)
    }

    pub fn is_null(&self) -> bool {
        self.data_type == DataType::Null || self.literal.as_ref().is_some_and(ScalarValue::is_null)
    }
}

/// What [`ScalarFunction::return_type`] decides for a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// Call the kernel; it returns this type.
    Call(DataType),
    /// The call is this constant whatever the rows (`ABS(NULL)`).
    Constant(ScalarValue, DataType),
}

/// MariaDB's integer type of an integer result, as clients see it in the
/// column definition (`int(2)`, `bigint(21)`) and CREATE TABLE ... AS
/// declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntWidth {
    /// The first argument's own type (and digits).
    Operand,
    /// INT or BIGINT (INT while at most 9 characters) as wide as the first
    /// argument plus this many characters.
    OperandPlus(u32),
    /// This kind and width (`int(10) unsigned` for CRC32: the sign comes
    /// from the result's Arrow type).
    Fixed(IntKind, u32),
}

/// How a string result takes its collation and coercibility (MariaDB's
/// derivation of the item), which the binder asks when the result meets
/// other strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringResult {
    /// The default collation, IMPLICIT, any character.
    Implicit,
    /// Its string arguments' collations combined, as CONCAT's.
    Operands,
    /// The default collation, COERCIBLE as a literal (CONV's digits: MariaDB
    /// does not mark them ASCII, so they do not convert to latin1).
    Coercible,
    /// ASCII characters made from the arguments (as HEX's): the default
    /// collation, COERCIBLE, ASCII repertoire.
    AsciiDigits,
}

/// MariaDB's declared type of a string result that is no VARCHAR (what
/// CREATE TABLE ... AS and the column definitions show); a VARCHAR's
/// length is [`ScalarFunction::max_chars`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredString {
    /// LONGTEXT, LONGBLOB for bytes (REGEXP_REPLACE: no bound).
    Long,
}

/// What a kernel is told of its call besides the argument values.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The result type the binder fixed.
    pub data_type: &'a DataType,
    /// The batch's rows (every argument a scalar: the result is one too).
    pub rows: usize,
    /// The collation string arguments resolved to.
    pub collation: Collation,
    /// Bit i: argument i is JSON (a call of a function that
    /// [`ScalarFunction::returns_json`]), which JSON builders insert as a
    /// value rather than quote as a string, as MariaDB does.
    pub json_args: u64,
    /// State the call keeps from one batch to the next within a query (RAND
    /// with a constant seed continues its sequence), None where the caller
    /// keeps none.
    pub state: Option<&'a CallState>,
}

/// What a call of a function keeps between batches of one query: a
/// generator's position (see [`Call::state`]).
pub type CallState = std::sync::Mutex<Option<u64>>;

/// A MySQL scalar function: name, signature, type rule and kernel.
pub trait ScalarFunction: Send + Sync + 'static {
    /// The name MySQL prints the call by, in lower case (`ceiling`): in
    /// messages (`mysql_text`), EXPLAIN and docs/FUNCTIONS.md.
    fn name(&self) -> &'static str;

    /// Other names calling it (`ceil` for `ceiling`), lower case.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    fn family(&self) -> Family;

    /// How many arguments a call may have; else error 1582.
    fn arity(&self) -> RangeInclusive<usize>;

    /// The type each argument is converted to before the call (the binder
    /// makes each conversion a cast, by MySQL's conversion rules); an error
    /// for arguments the function does not take.
    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>>;

    /// MySQL's result type over the converted arguments.
    fn return_type(&self, args: &[ArgInfo]) -> Result<Bound>;

    /// The error for a call with a number of arguments outside
    /// [`ScalarFunction::arity`], called by `name` as written.
    fn arity_error(&self, name: &str) -> QuiverError {
        QuiverError::wrong_arguments(&name.to_uppercase())
    }

    /// ROUND and TRUNCATE read a quotient's (or AVG's) internal digits, not
    /// its value rounded to the declared scale, as MySQL does.
    fn reads_internal_digits(&self) -> bool {
        false
    }

    /// Whether the result may be NULL, given whether any argument may be.
    /// MariaDB declares most functions nullable whatever their arguments.
    fn nullable(&self, _any_arg_nullable: bool) -> bool {
        true
    }

    /// The integer type of an integer result, where MariaDB's rule is known.
    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        None
    }

    /// An integer result has as many digits as the first argument (ABS):
    /// a DECIMAL holding it needs no more.
    fn keeps_integer_digits(&self) -> bool {
        false
    }

    /// The most characters a string result holds (MariaDB's `max_length`
    /// over the charset's widest character), which CREATE TABLE ... AS
    /// declares as `varchar(n)`; `chars` has each argument's most
    /// characters as it prints, where known. None when unknown.
    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        None
    }

    /// For a function MySQL writes as an operator (its name is the symbol:
    /// `|`, `<<`, `~`), how tightly it binds, on the scale of
    /// `mysql_text`'s precedences (OR 10 .. `*` 70, unary minus 80): the
    /// call prints as `a | b`. None for a function written as a call.
    fn operator_precedence(&self) -> Option<u8> {
        None
    }

    /// The derivation of a string result.
    fn string_result(&self) -> StringResult {
        StringResult::Implicit
    }

    /// The declared type of a string result, where MariaDB's rule is known.
    fn declared_string(&self) -> Option<DeclaredString> {
        None
    }

    /// String arguments are read as bytes of their own charset (CRC32):
    /// the binder passes them under their collation, which tells the
    /// kernel the charset.
    fn charset_bytes(&self) -> bool {
        false
    }

    /// The string arguments are compared under one collation (REGEXP and
    /// the REGEXP_* functions match under its case sensitivity): the binder
    /// resolves it as for `=` (1267 when it cannot) and puts each under it.
    fn collates_operands(&self) -> bool {
        false
    }

    /// The kernel may fail with 1690 (out of range): the error then names
    /// the expression as MySQL prints it.
    fn can_overflow(&self) -> bool {
        false
    }

    /// The result is JSON text (MariaDB's `is_json_type`): JSON_ARRAY and
    /// the other builders insert it as a value, not as a string.
    fn returns_json(&self) -> bool {
        false
    }

    /// A DOUBLE result's fixed decimals (MariaDB's `decimals` below 31),
    /// which clients are shown it with: PI() is 6 (3.141593).
    fn decimals(&self) -> Option<u8> {
        None
    }

    /// Equal arguments give equal results. RAND() and UUID() do not: a
    /// fuzzer comparing two runs, or a CHECK, must not call them.
    fn deterministic(&self) -> bool {
        true
    }

    /// The call keeps state between the batches of a query
    /// ([`Call::state`]): RAND with a constant seed continues its sequence.
    fn keeps_state(&self) -> bool {
        false
    }

    /// The kernel over the arguments, converted as
    /// [`ScalarFunction::coerce_types`] said. All scalars give a scalar; warnings go to the executor's sink.
    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue>;
}

/// A registered function, as an expression holds it: compared and hashed
/// by name (names are unique in a registry).
#[derive(Clone, Copy)]
pub struct FunctionRef(pub &'static dyn ScalarFunction);

impl FunctionRef {
    pub fn get(self) -> &'static dyn ScalarFunction {
        self.0
    }
}

impl std::ops::Deref for FunctionRef {
    type Target = dyn ScalarFunction;
    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl fmt::Debug for FunctionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.name().to_uppercase())
    }
}

impl PartialEq for FunctionRef {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl Eq for FunctionRef {}

impl Hash for FunctionRef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name().hash(state)
    }
}

/// Functions by name, as the binder asks for them.
pub trait FunctionRegistry: Sync {
    /// The function called `name` (lower case), by its name or an alias.
    fn scalar(&self, name: &str) -> Option<FunctionRef>;

    /// Every function, in the registry's order.
    fn scalars(&self) -> Vec<FunctionRef>;

    /// The aggregate called `name` (lower case), by its name or an alias.
    fn aggregate(&self, _name: &str) -> Option<AggregateRef> {
        None
    }

    /// Every aggregate, in the registry's order.
    fn aggregates(&self) -> Vec<AggregateRef> {
        vec![]
    }

    /// The window function called `name` (lower case).
    fn window(&self, _name: &str) -> Option<WindowRef> {
        None
    }

    /// Every window function, in the registry's order.
    fn windows(&self) -> Vec<WindowRef> {
        vec![]
    }
}

/// A registry over fixed lists, indexed by names and aliases.
pub struct StaticRegistry {
    list: &'static [&'static dyn ScalarFunction],
    index: std::sync::OnceLock<std::collections::HashMap<&'static str, FunctionRef>>,
    aggregates: &'static [&'static dyn AggregateFunction],
    aggregate_index: std::sync::OnceLock<std::collections::HashMap<&'static str, AggregateRef>>,
    windows: &'static [&'static dyn WindowFunction],
}

impl StaticRegistry {
    pub const fn new(list: &'static [&'static dyn ScalarFunction]) -> Self {
        // One constructor builds the fields; the shorter ones pass empty lists.
        Self::with_windows(list, &[], &[])
    }

    /// A registry of these scalar functions and aggregates.
    pub const fn with_aggregates(
        list: &'static [&'static dyn ScalarFunction],
        aggregates: &'static [&'static dyn AggregateFunction],
    ) -> Self {
        Self::with_windows(list, aggregates, &[])
    }

    /// A registry of these scalar functions, aggregates and window functions.
    pub const fn with_windows(
        list: &'static [&'static dyn ScalarFunction],
        aggregates: &'static [&'static dyn AggregateFunction],
        windows: &'static [&'static dyn WindowFunction],
    ) -> Self {
        StaticRegistry {
            list,
            index: std::sync::OnceLock::new(),
            aggregates,
            aggregate_index: std::sync::OnceLock::new(),
            windows,
        }
    }

    fn aggregate_index(&self) -> &std::collections::HashMap<&'static str, AggregateRef> {
        self.aggregate_index.get_or_init(|| {
            let mut m = std::collections::HashMap::new();
            for f in self.aggregates {
                for n in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
                    let old = m.insert(n, AggregateRef(*f));
                    assert!(old.is_none(), "aggregate name {n} registered twice");
                }
            }
            m
        })
    }

    fn index(&self) -> &std::collections::HashMap<&'static str, FunctionRef> {
        self.index.get_or_init(|| {
            let mut m = std::collections::HashMap::new();
            for f in self.list {
                for n in std::iter::once(f.name()).chain(f.aliases().iter().copied()) {
                    let old = m.insert(n, FunctionRef(*f));
                    assert!(old.is_none(), "function name {n} registered twice");
                }
            }
            m
        })
    }
}

impl FunctionRegistry for StaticRegistry {
    fn scalar(&self, name: &str) -> Option<FunctionRef> {
        self.index().get(name).copied()
    }

    fn scalars(&self) -> Vec<FunctionRef> {
        self.list.iter().map(|f| FunctionRef(*f)).collect()
    }

    fn aggregate(&self, name: &str) -> Option<AggregateRef> {
        self.aggregate_index().get(name).copied()
    }

    fn aggregates(&self) -> Vec<AggregateRef> {
        self.aggregates.iter().map(|f| AggregateRef(*f)).collect()
    }

    fn window(&self, name: &str) -> Option<WindowRef> {
        // A short list: a scan costs less than an index.
        self.windows
            .iter()
            .find(|f| f.name() == name)
            .map(|f| WindowRef(*f))
    }

    fn windows(&self) -> Vec<WindowRef> {
        self.windows.iter().map(|f| WindowRef(*f)).collect()
    }
}
