//! The DOUBLE functions of DOUBLE arguments: SQRT, EXP, LN, LOG, LOG2,
//! LOG10, POW, the trigonometric functions, DEGREES and RADIANS. Each is
//! one [`RealFn`] value: its names, argument count and a kernel for one
//! row, written as MariaDB's `val_real` (item_func.cc) so that its
//! out-of-domain outcomes are the same: NULL silently (SQRT(-1),
//! ACOS(2)), NULL with warning 1365 "Division by 0" (LN(0), LOG(1, x)),
//! or error 1690 for a result that is not finite (EXP(710), POW(0, -1),
//! COT(0)). Arguments of any numeric or string type are read as DOUBLE
//! (a string by its numeric prefix, with warning 1292, as MariaDB).

use std::f64::consts::{LN_2, PI};
use std::ops::RangeInclusive;

use arrow_schema::DataType;
use quiver_common::types::is_string;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::super::kernel::{real_rows, Arrays, Real};

/// A DOUBLE function: see the module comment.
pub struct RealFn {
    name: &'static str,
    aliases: &'static [&'static str],
    arity: RangeInclusive<usize>,
    /// MariaDB's `Item_dec_func`s may be NULL whatever their arguments;
    /// DEGREES and RADIANS only when their argument may.
    always_nullable: bool,
    /// Whether the kernel may raise 1690.
    overflows: bool,
    /// One row: the arguments in order, None for NULL.
    kernel: fn(&[Option<f64>]) -> Result<Real>,
}

/// The argument of a one-argument function, or NULL.
fn one(a: &[Option<f64>], f: impl FnOnce(f64) -> Result<Real>) -> Result<Real> {
    match a {
        [Some(x)] => f(*x),
        _ => Ok(Real::Null),
    }
}

fn value(v: f64) -> Result<Real> {
    Ok(Real::Value(v))
}

/// LN and LOG of a non-positive number: NULL with a warning.
fn ln(x: f64) -> Result<Real> {
    if x <= 0.0 {
        Ok(Real::NullDivision)
    } else {
        value(x.ln())
    }
}

pub static SQRT: RealFn = RealFn {
    name: "sqrt",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| {
        one(a, |x| {
            Ok(if x < 0.0 {
                Real::Null
            } else {
                Real::Value(x.sqrt())
            })
        })
    },
};

pub static EXP: RealFn = RealFn {
    name: "exp",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: true,
    kernel: |a| one(a, |x| Real::finite(x.exp())),
};

pub static LN: RealFn = RealFn {
    name: "ln",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| one(a, ln),
};

/// LOG(x) is LN(x); LOG(b, x) is LN(x) / LN(b). MariaDB checks the base
/// before it reads x: LOG(0, NULL) warns.
pub static LOG: RealFn = RealFn {
    name: "log",
    aliases: &[],
    arity: 1..=2,
    always_nullable: true,
    overflows: false,
    kernel: |a| match a {
        [Some(x)] => ln(*x),
        [Some(b), x] => {
            if *b <= 0.0 {
                return Ok(Real::NullDivision);
            }
            match x {
                None => Ok(Real::Null),
                Some(x) if *x <= 0.0 || *b == 1.0 => Ok(Real::NullDivision),
                Some(x) => value(x.ln() / b.ln()),
            }
        }
        _ => Ok(Real::Null),
    },
};

pub static LOG2: RealFn = RealFn {
    name: "log2",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| {
        one(a, |x| {
            if x <= 0.0 {
                Ok(Real::NullDivision)
            } else {
                value(x.ln() / LN_2)
            }
        })
    },
};

pub static LOG10: RealFn = RealFn {
    name: "log10",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| {
        one(a, |x| {
            if x <= 0.0 {
                Ok(Real::NullDivision)
            } else {
                value(x.log10())
            }
        })
    },
};

pub static POW: RealFn = RealFn {
    name: "pow",
    aliases: &["power"],
    arity: 2..=2,
    always_nullable: true,
    overflows: true,
    kernel: |a| match a {
        [Some(x), Some(y)] => Real::finite(x.powf(*y)),
        _ => Ok(Real::Null),
    },
};

pub static SIN: RealFn = RealFn {
    name: "sin",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| one(a, |x| value(x.sin())),
};

pub static COS: RealFn = RealFn {
    name: "cos",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| one(a, |x| value(x.cos())),
};

pub static TAN: RealFn = RealFn {
    name: "tan",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: true,
    kernel: |a| one(a, |x| Real::finite(x.tan())),
};

pub static COT: RealFn = RealFn {
    name: "cot",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: true,
    kernel: |a| one(a, |x| Real::finite(1.0 / x.tan())),
};

pub static ASIN: RealFn = RealFn {
    name: "asin",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| {
        one(a, |x| {
            Ok(if (-1.0..=1.0).contains(&x) {
                Real::Value(x.asin())
            } else {
                Real::Null
            })
        })
    },
};

pub static ACOS: RealFn = RealFn {
    name: "acos",
    aliases: &[],
    arity: 1..=1,
    always_nullable: true,
    overflows: false,
    kernel: |a| {
        one(a, |x| {
            Ok(if (-1.0..=1.0).contains(&x) {
                Real::Value(x.acos())
            } else {
                Real::Null
            })
        })
    },
};

/// ATAN(x), or ATAN(y, x) = ATAN2(y, x): the angle of the point (x, y).
pub static ATAN: RealFn = RealFn {
    name: "atan",
    aliases: &["atan2"],
    arity: 1..=2,
    always_nullable: true,
    overflows: false,
    kernel: |a| match a {
        [Some(x)] => value(x.atan()),
        [Some(y), Some(x)] => value(y.atan2(*x)),
        _ => Ok(Real::Null),
    },
};

pub static DEGREES: RealFn = RealFn {
    name: "degrees",
    aliases: &[],
    arity: 1..=1,
    always_nullable: false,
    overflows: true,
    kernel: |a| one(a, |x| Real::finite(x * (180.0 / PI))),
};

pub static RADIANS: RealFn = RealFn {
    name: "radians",
    aliases: &[],
    arity: 1..=1,
    always_nullable: false,
    overflows: true,
    kernel: |a| one(a, |x| Real::finite(x * (PI / 180.0))),
};

impl ScalarFunction for RealFn {
    fn name(&self) -> &'static str {
        self.name
    }

    fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    fn family(&self) -> Family {
        Family::Numeric
    }

    fn arity(&self) -> RangeInclusive<usize> {
        self.arity.clone()
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        args.iter()
            .map(|t| match t {
                t if t.is_numeric() || is_string(t) => Ok(DataType::Float64),
                DataType::Boolean | DataType::Null => Ok(DataType::Float64),
                other => Err(QuiverError::not_supported(format!(
                    "{} of {other}",
                    self.name.to_uppercase()
                ))),
            })
            .collect()
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        // Even with a NULL argument the kernel runs: LOG(0, NULL) warns.
        Ok(Bound::Call(DataType::Float64))
    }

    fn nullable(&self, any_arg_nullable: bool) -> bool {
        self.always_nullable || any_arg_nullable
    }

    fn can_overflow(&self) -> bool {
        self.overflows
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let a = Arrays::new(args, call.rows)?;
        let out = real_rows(&a, self.kernel)?;
        a.finish(out, call.data_type)
    }
}
