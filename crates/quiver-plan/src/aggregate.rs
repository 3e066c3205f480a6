//! The aggregate function registry's contract: an aggregate is one object.
//!
//! # Design
//!
//! A MySQL aggregate is one value implementing [`AggregateFunction`]: its
//! name and aliases, its argument count, the conversion of its argument,
//! MySQL's result type, its value over no rows, and a factory for its
//! grouped accumulator ([`GroupsAccumulator`]). The split follows
//! DataFusion's `AggregateUDFImpl` / `GroupsAccumulator` and DuckDB's
//! `AggregateFunction` (state per group, update, combine, finalize): the
//! plan holds the object, the executor asks it for an accumulator.
//!
//! The accumulator keeps the state of every group of one partial table in
//! flat vectors indexed by group id. It is vectorized: one call per batch
//! with the group id of each row (no dynamic dispatch per row), one call to
//! merge another partition's table, one call to produce the result column.
//!
//! Dependencies stay as for scalar functions ([`crate::function`]): this
//! crate defines the traits and [`AggregateRef`] (held as
//! [`crate::AggFunc::Registered`]); `quiver-exec` holds the aggregates (one
//! file each under `src/functions/aggregate/`) and registers them in
//! `quiver_exec::functions::AGGREGATES`; the binder finds them through
//! [`crate::FunctionRegistry::aggregate`].
//!
//! COUNT, SUM, AVG, MIN, MAX and GROUP_CONCAT keep their own variants of
//! [`crate::AggFunc`] and their hand-tuned accumulators (TPC-H runs on
//! them); everything else comes through here.

use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::RangeInclusive;

use arrow_array::ArrayRef;
use arrow_schema::DataType;
use quiver_common::{QuiverError, Result, ScalarValue};

/// A MySQL aggregate function: name, signature, type rule, accumulator.
pub trait AggregateFunction: Send + Sync + 'static {
    /// The name MySQL prints it by, lower case (`stddev_pop`).
    fn name(&self) -> &'static str;

    /// Other names calling it (`std`, `stddev` for `stddev_pop`).
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// How many arguments a call may have.
    fn arity(&self) -> RangeInclusive<usize> {
        1..=1
    }

    /// The error for a call outside [`AggregateFunction::arity`] (or with
    /// DISTINCT or `*` where not accepted): MariaDB's grammar spells each
    /// aggregate, so it is a syntax error (1064) near the call.
    fn syntax_error(&self, call: &str) -> QuiverError {
        QuiverError::syntax_msg(format!(
            "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{call}'"
        ))
    }

    /// Whether `f(DISTINCT x)` is accepted.
    fn accepts_distinct(&self) -> bool {
        false
    }

    /// The type the argument is converted to before the accumulator sees
    /// it (the binder makes the conversion an explicit cast, strings read
    /// as MySQL reads them in that context, with its warnings).
    fn coerce_type(&self, arg: &DataType) -> DataType;

    /// MySQL's result type, from the argument's type before conversion
    /// (its decimals decide how many the result shows).
    fn return_type(&self, arg: &DataType) -> DataType;

    /// The type the result is shown at when [`AggregateFunction::return_type`]
    /// keeps more digits (a DOUBLE MariaDB shows with fixed decimals): the
    /// binder rounds it there where it is shown, as AVG's internal digits.
    fn shown_type(&self, _arg: &DataType) -> Option<DataType> {
        None
    }

    /// The declared type clients see, where the result's Arrow type does
    /// not say it (`bigint(21) unsigned`).
    fn declared_type(&self) -> Option<&'static str> {
        None
    }

    /// Whether the result may be NULL.
    fn nullable(&self) -> bool {
        true
    }

    /// The value over no rows (an aggregate subquery with no inner row).
    fn empty_value(&self) -> ScalarValue {
        ScalarValue::Null
    }

    /// The state of every group of one partial table, producing `output`.
    fn accumulator(&self, output: &DataType) -> Box<dyn GroupsAccumulator>;
}

/// The state of one aggregate over every group of a partial table.
pub trait GroupsAccumulator: Send + fmt::Debug + Any {
    /// Adds the rows of a batch: row `i` to group `ids[i]`. `args` are the
    /// converted arguments; `groups` is the table's group count (every id
    /// is below it; state grows to it). NULL arguments are skipped.
    fn update(&mut self, args: &[ArrayRef], ids: &[u32], groups: usize) -> Result<()>;

    /// Folds in the state of another partial table of the same aggregate:
    /// its group `k` into group `ids[k]`.
    fn merge(
        &mut self,
        other: Box<dyn GroupsAccumulator>,
        ids: &[u32],
        groups: usize,
    ) -> Result<()>;

    /// Folds group `from` into group `into`, pair after pair in order: the
    /// running frames of a window (each peer group folds its predecessor).
    fn merge_groups(&mut self, pairs: &[(u32, u32)]) -> Result<()>;

    /// The result of groups `0..groups`, of the type the accumulator was
    /// made for.
    fn evaluate(self: Box<Self>, groups: usize) -> Result<ArrayRef>;

    /// Bytes held.
    fn memory_size(&self) -> usize;

    /// For [`GroupsAccumulator::merge`] to take the other state back as its own type.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

/// The other partial state of a merge as the accumulator's own type.
pub fn downcast_state<T: GroupsAccumulator>(other: Box<dyn GroupsAccumulator>) -> Result<Box<T>> {
    other
        .into_any()
        .downcast::<T>()
        .map_err(|_| QuiverError::internal("merging partial states of different aggregates"))
}

/// A registered aggregate, as a plan holds it: compared and hashed by name.
#[derive(Clone, Copy)]
pub struct AggregateRef(pub &'static dyn AggregateFunction);

impl AggregateRef {
    pub fn get(self) -> &'static dyn AggregateFunction {
        self.0
    }
}

impl std::ops::Deref for AggregateRef {
    type Target = dyn AggregateFunction;
    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl fmt::Debug for AggregateRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.name().to_uppercase())
    }
}

impl PartialEq for AggregateRef {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl Eq for AggregateRef {}

impl Hash for AggregateRef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name().hash(state)
    }
}
