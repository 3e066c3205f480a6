//! Window frames and the arguments of registered window functions: what
//! MariaDB 10.11 accepts, with its error codes for what it refuses.

use arrow_schema::DataType;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::window::{FrameBound, FrameUnits};
use quiver_plan::{Expr, WindowFrame, WindowRef};
use sqlparser::ast;

use super::coerce::{cast, cast_literal};
use super::functions::Arg;
use super::{Binder, Ctx};

fn syntax_near(text: &str) -> QuiverError {
    QuiverError::syntax_msg(format!(
        "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{text}'"
    ))
}

impl Binder<'_> {
    /// The converted arguments of window function `f` and its result type.
    pub(crate) fn window_args(
        &mut self,
        f: WindowRef,
        args: &[Arg],
        display: &str,
        ctx: &Ctx,
    ) -> Result<(Vec<Expr>, DataType)> {
        if !f.arity().contains(&args.len()) {
            return Err(syntax_near(display));
        }
        let mut bound = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Arg::Expr(e) => bound.push(self.expr(e, ctx)?),
                Arg::Star => return Err(syntax_near(display)),
            }
        }
        let types: Vec<DataType> = bound.iter().map(Expr::data_type).collect();
        let to = f.coerce_types(&types);
        let mut constants = Vec::with_capacity(bound.len());
        let args: Vec<Expr> = bound
            .into_iter()
            .zip(&to)
            .map(|(a, t)| {
                constants.push(match &a {
                    Expr::Literal(v, _) if v.is_null() => Some(ScalarValue::Null),
                    Expr::Literal(v, _) => Some(cast_literal(v, t).unwrap_or(ScalarValue::Null)),
                    _ => None,
                });
                super::collation::collated(cast(a, t))
            })
            .collect();
        f.check_args(&constants)?;
        Ok((args, f.return_type(&types)))
    }
}

/// The frame of a window with `frame` clause; `key` is the type of the
/// ORDER BY key when there is exactly one (RANGE offsets need it).
pub(crate) fn window_frame(
    frame: &ast::WindowFrame,
    key: Option<&DataType>,
) -> Result<WindowFrame> {
    use ast::WindowFrameBound as B;
    let units = match frame.units {
        ast::WindowFrameUnits::Rows => FrameUnits::Rows,
        ast::WindowFrameUnits::Range => FrameUnits::Range,
        // MariaDB's grammar has no GROUPS frames.
        ast::WindowFrameUnits::Groups => {
            return Err(syntax_near(&format!("groups {}", frame.start_bound)))
        }
    };
    if frame.end_bound.is_none() && matches!(frame.start_bound, B::Following(_)) {
        // `ROWS n FOLLOWING` alone is not in MariaDB's grammar.
        return Err(syntax_near(&frame.start_bound.to_string()));
    }
    let offset = |e: &ast::Expr| -> Result<f64> {
        let number = match e {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Number(n, _) => Some(n.as_str()),
                ast::Value::SingleQuotedString(_) | ast::Value::DoubleQuotedString(_)
                    if units == FrameUnits::Range =>
                {
                    return Err(numeric_range());
                }
                _ => None,
            },
            _ => None,
        };
        let Some(n) = number else {
            return Err(syntax_near(&e.to_string()));
        };
        match units {
            FrameUnits::Rows => match n.parse::<i64>() {
                Ok(v) => Ok(v as f64),
                Err(_) => Err(QuiverError::new(
                    4020,
                    "HY000",
                    "Integer is required for ROWS-type frame",
                )),
            },
            FrameUnits::Range => n.parse::<f64>().map_err(|_| syntax_near(n)),
        }
    };
    let bound = |b: &B| -> Result<FrameBound> {
        Ok(match b {
            B::CurrentRow => FrameBound::CurrentRow,
            B::Preceding(None) => FrameBound::UnboundedPreceding,
            B::Following(None) => FrameBound::UnboundedFollowing,
            B::Preceding(Some(e)) => FrameBound::Preceding(offset(e)?),
            B::Following(Some(e)) => FrameBound::Following(offset(e)?),
        })
    };
    let start = bound(&frame.start_bound)?;
    let end = match &frame.end_bound {
        Some(b) => bound(b)?,
        None => FrameBound::CurrentRow,
    };
    let bad = matches!(start, FrameBound::UnboundedFollowing)
        || matches!(end, FrameBound::UnboundedPreceding)
        || (start == FrameBound::CurrentRow && matches!(end, FrameBound::Preceding(_)))
        || (end == FrameBound::CurrentRow && matches!(start, FrameBound::Following(_)));
    if bad {
        return Err(QuiverError::new(
            4014,
            "HY000",
            "Unacceptable combination of window frame bound specifications",
        ));
    }
    let offsets = [start, end]
        .iter()
        .any(|b| matches!(b, FrameBound::Preceding(_) | FrameBound::Following(_)));
    if units == FrameUnits::Range && offsets {
        let Some(key) = key else {
            return Err(QuiverError::new(
                4019,
                "HY000",
                "RANGE-type frame requires ORDER BY clause with single sort key",
            ));
        };
        if !(key.is_numeric() || key == &DataType::Null) {
            return Err(numeric_range());
        }
    }
    if start == FrameBound::UnboundedPreceding && end == FrameBound::UnboundedFollowing {
        return Ok(WindowFrame::WHOLE);
    }
    Ok(WindowFrame { units, start, end })
}

fn numeric_range() -> QuiverError {
    QuiverError::new(
        4021,
        "HY000",
        "Numeric datatype is required for RANGE-type frame",
    )
}
