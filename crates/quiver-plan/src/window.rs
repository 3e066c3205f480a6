//! The window function registry's contract: a window function is one object.
//!
//! # Design
//!
//! A MySQL window function (ROW_NUMBER, LAG, NTILE, FIRST_VALUE, ...) is one
//! value implementing [`WindowFunction`]: its name, its argument count, the
//! conversion of its arguments, MySQL's result type, how it uses the
//! window's ORDER BY and frame, the check of its constant arguments, and an
//! evaluator. The shape follows [`crate::function`] and
//! [`crate::aggregate`]: the plan holds the object ([`WindowRef`], as
//! [`crate::WindowFunc::Registered`]), the executor asks it for values.
//!
//! The evaluator is vectorized over many partitions at once: the executor
//! sorts the input by (PARTITION BY, ORDER BY), cuts that order into runs of
//! whole partitions (one per thread) and calls
//! [`WindowFunction::evaluate`] once per run with the arguments already in
//! window order, the partition and peer boundaries ([`WindowRows::breaks`])
//! and, for a function that reads its frame, each row's frame as a range of
//! positions ([`WindowRows::frames`]). Small partitions (one per customer)
//! cost no call each.
//!
//! Aggregates over a window (SUM, COUNT, ... OVER) stay
//! [`crate::WindowFunc::Agg`]: the executor runs them with running or
//! sliding kernels; they are not objects of this registry.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Range, RangeInclusive};

use arrow_array::ArrayRef;
use arrow_schema::DataType;
use quiver_common::{QuiverError, Result, ScalarValue};

/// `breaks[i]` when row i is a peer of row i-1 (same ORDER BY values).
pub const SAME: u8 = 0;
/// `breaks[i]` when row i starts a peer group of the same partition.
pub const NEW_PEERS: u8 = 1;
/// `breaks[i]` when row i starts a partition (always at 0).
pub const NEW_PARTITION: u8 = 2;

/// How a window function uses the window's frame clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameUse {
    /// A frame clause is an error (4017): ranks, NTILE, CUME_DIST.
    Refused,
    /// A frame clause is accepted and has no effect: LAG, LEAD.
    Ignored,
    /// The function reads each row's frame: FIRST_VALUE, NTH_VALUE.
    Read,
}

/// A MySQL window function: name, signature, type rule, evaluator.
pub trait WindowFunction: Send + Sync + 'static {
    /// The name MySQL prints it by, lower case (`row_number`).
    fn name(&self) -> &'static str;

    /// How many arguments a call may have (outside it: 1064, as MariaDB's
    /// grammar spells each window function).
    fn arity(&self) -> RangeInclusive<usize> {
        0..=0
    }

    /// Whether the window must have an ORDER BY (4018 otherwise).
    fn requires_order(&self) -> bool {
        false
    }

    /// How the frame clause is used.
    fn frame_use(&self) -> FrameUse {
        FrameUse::Refused
    }

    /// The types the arguments are converted to before the evaluator sees
    /// them (the binder makes each conversion an explicit cast).
    fn coerce_types(&self, args: &[DataType]) -> Vec<DataType> {
        args.to_vec()
    }

    /// Checks the arguments before the query runs: `constants[i]` is
    /// argument i's value after conversion when it is a constant, None
    /// when it varies by row.
    fn check_args(&self, _constants: &[Option<ScalarValue>]) -> Result<()> {
        Ok(())
    }

    /// MySQL's result type, from the arguments' types before conversion.
    fn return_type(&self, args: &[DataType]) -> DataType;

    /// The declared type clients see, where the Arrow type does not say it
    /// (`bigint(21)`); None keeps the first argument's declared type.
    fn declared_type(&self) -> Option<&'static str> {
        None
    }

    /// A DOUBLE result's fixed decimals, which clients are shown it with
    /// (PERCENTILE_CONT: 10).
    fn decimals(&self) -> Option<u8> {
        None
    }

    /// Whether the result may be NULL.
    fn nullable(&self) -> bool {
        true
    }

    /// The values of a run of whole partitions, one per row, of
    /// [`WindowFunction::return_type`] (or a type the executor casts to it).
    fn evaluate(&self, rows: &WindowRows) -> Result<ArrayRef>;
}

/// The rows an evaluator sees: whole partitions, in window order.
pub struct WindowRows<'a> {
    /// Per row: [`NEW_PARTITION`], [`NEW_PEERS`] or [`SAME`].
    pub breaks: &'a [u8],
    /// The converted arguments, in window order.
    pub args: &'a [ArrayRef],
    /// Per row, the positions of its frame (empty when the frame is):
    /// given when the function reads its frame ([`FrameUse::Read`]).
    pub frames: Option<&'a [Range<u32>]>,
}

impl WindowRows<'_> {
    pub fn len(&self) -> usize {
        self.breaks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.breaks.is_empty()
    }

    /// The partitions, as ranges of positions.
    pub fn partitions(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let n = self.breaks.len();
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= n {
                return None;
            }
            let mut end = start + 1;
            while end < n && self.breaks[end] != NEW_PARTITION {
                end += 1;
            }
            let r = start..end;
            start = end;
            Some(r)
        })
    }

    /// The frame of row `i`; an error when the executor gave none.
    pub fn frame(&self, i: usize) -> Result<Range<usize>> {
        let f = self
            .frames
            .ok_or_else(|| QuiverError::internal("window function without frames"))?;
        Ok(f[i].start as usize..f[i].end as usize)
    }
}

/// The unit a frame counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameUnits {
    Rows,
    /// By the value of the one ORDER BY key (peers always together).
    Range,
}

/// One end of a frame. Offsets are rows (ROWS) or a distance from the
/// current row's key (RANGE, numeric keys).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(f64),
    CurrentRow,
    Following(f64),
    UnboundedFollowing,
}

/// A window's frame: `units BETWEEN start AND end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowFrame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
}

impl WindowFrame {
    /// MySQL's default with ORDER BY: RANGE UNBOUNDED PRECEDING .. CURRENT
    /// ROW (the row's peers included).
    pub const DEFAULT: WindowFrame = WindowFrame {
        units: FrameUnits::Range,
        start: FrameBound::UnboundedPreceding,
        end: FrameBound::CurrentRow,
    };

    /// The whole partition.
    pub const WHOLE: WindowFrame = WindowFrame {
        units: FrameUnits::Rows,
        start: FrameBound::UnboundedPreceding,
        end: FrameBound::UnboundedFollowing,
    };

    /// ROWS UNBOUNDED PRECEDING .. CURRENT ROW.
    pub const ROWS_TO_CURRENT: WindowFrame = WindowFrame {
        units: FrameUnits::Rows,
        start: FrameBound::UnboundedPreceding,
        end: FrameBound::CurrentRow,
    };

    /// Whether every row's frame starts at its partition's start and ends
    /// at itself or its last peer: a running aggregate computes it.
    pub fn is_running(&self) -> bool {
        self.start == FrameBound::UnboundedPreceding
            && matches!(
                self.end,
                FrameBound::CurrentRow | FrameBound::UnboundedFollowing
            )
    }
}

impl fmt::Display for FrameBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameBound::UnboundedPreceding => write!(f, "UNBOUNDED PRECEDING"),
            FrameBound::Preceding(n) => write!(f, "{n} PRECEDING"),
            FrameBound::CurrentRow => write!(f, "CURRENT ROW"),
            FrameBound::Following(n) => write!(f, "{n} FOLLOWING"),
            FrameBound::UnboundedFollowing => write!(f, "UNBOUNDED FOLLOWING"),
        }
    }
}

/// A registered window function, as a plan holds it: compared and hashed by name.
#[derive(Clone, Copy)]
pub struct WindowRef(pub &'static dyn WindowFunction);

impl WindowRef {
    pub fn get(self) -> &'static dyn WindowFunction {
        self.0
    }
}

impl std::ops::Deref for WindowRef {
    type Target = dyn WindowFunction;
    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl fmt::Debug for WindowRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.name().to_uppercase())
    }
}

impl PartialEq for WindowRef {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl Eq for WindowRef {}

impl Hash for WindowRef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name().hash(state)
    }
}
