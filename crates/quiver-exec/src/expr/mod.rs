//! Physical expressions: a logical [`Expr`] compiled against one input schema
//! (column ids resolved to positions) and evaluated a batch at a time.
//!
//! Dispatch on types happens once per batch; the loops inside are typed.

mod arith;
pub(crate) mod binary_fns;
pub(crate) mod cast;
mod compare;
mod for_rows;
mod functions;
mod like;
mod logic;
pub mod members;
mod string_build;
pub mod time_cast;
mod value;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{cast::AsArray, Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_buffer::BooleanBuffer;
use arrow_schema::DataType;
use quiver_collation::{Collation, LikePattern};
use quiver_common::scalar::scalar_to_array;
use quiver_common::types::MAX_DECIMAL128_PRECISION;
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::{
    default_collation, mysql_text, BinaryOp, ColumnId, ColumnInfo, Expr, ScalarFunc, UnaryOp,
};

use crate::hash::KeyColumn;
use crate::join_key_filter::JoinKeyFilter;

pub(crate) use arith::scaled_div;
pub use cast::{cast_array, numeric_text_problem, NumericText};
pub use compare::compare_arrays;
pub(crate) use compare::operand_type;
pub(crate) use for_rows::evaluate_for;
pub(crate) use functions::extract as extract_part;
pub(crate) use like::compile as like_compile;
pub use value::ColumnarValue;

/// A compiled expression.
#[derive(Debug, Clone)]
pub enum PhysicalExpr {
    Column(usize),
    Literal(ScalarValue, DataType),
    Binary {
        op: BinaryOp,
        left: Box<PhysicalExpr>,
        right: Box<PhysicalExpr>,
        data_type: DataType,
        /// How strings compare (the binder made both operands agree).
        collation: Collation,
    },
    Unary {
        op: UnaryOp,
        expr: Box<PhysicalExpr>,
    },
    Like {
        negated: bool,
        expr: Box<PhysicalExpr>,
        /// A constant pattern, compiled once.
        matcher: Option<Arc<LikePattern>>,
        pattern: Box<PhysicalExpr>,
        escape: Option<char>,
        collation: Collation,
    },
    InList {
        negated: bool,
        expr: Box<PhysicalExpr>,
        list: Vec<PhysicalExpr>,
        set: Option<Arc<compare::ScalarSet>>,
        collation: Collation,
    },
    Case {
        branches: Vec<(PhysicalExpr, PhysicalExpr)>,
        else_expr: Option<Box<PhysicalExpr>>,
        data_type: DataType,
    },
    Cast {
        expr: Box<PhysicalExpr>,
        to: DataType,
    },
    Function {
        func: ScalarFunc,
        args: Vec<PhysicalExpr>,
        data_type: DataType,
        /// What the call keeps between batches, for a registered function
        /// that asks for it (`ScalarFunction::keeps_state`: RAND(seed)).
        state: Option<Arc<quiver_plan::function::CallState>>,
    },
    /// An operation that can overflow (arithmetic, `-x`, ABS), with its text
    /// as MySQL prints it: the name error 1690 gives.
    Checked {
        expr: Box<PhysicalExpr>,
        text: Arc<str>,
    },
    /// A string under a non-default collation: evaluates to `expr`; the
    /// operators that hash, group, sort or take MIN/MAX of it read the
    /// collation through [`PhysicalExpr::collation`].
    Collate(Box<PhysicalExpr>, Collation),
    /// Whether a probe row's join key (`key`) may find a match in a hash
    /// join's build side: a scan's filter given by the planner, answered by
    /// the join once it is built (see [`JoinKeyFilter`]).
    JoinKeys {
        key: Box<PhysicalExpr>,
        filter: Arc<JoinKeyFilter>,
    },
}

/// The arguments of COALESCE / IFNULL and NULLIF, each computed for the
/// whole batch but raising warnings only on the rows MySQL evaluates it
/// for: a COALESCE argument where all before it are NULL, NULLIF's second
/// where its first is not.
/// Which arguments are JSON (calls of functions that return JSON), as a
/// bit set for [`quiver_plan::function::Call::json_args`].
fn json_arguments(args: &[PhysicalExpr]) -> u64 {
    let mut bits = 0;
    for (i, a) in args.iter().enumerate().take(64) {
        let mut e = a;
        while let PhysicalExpr::Checked { expr, .. } | PhysicalExpr::Collate(expr, _) = e {
            e = expr;
        }
        if let PhysicalExpr::Function {
            func: ScalarFunc::Registered(f),
            ..
        } = e
        {
            if f.returns_json() {
                bits |= 1 << i;
            }
        }
    }
    bits
}

fn lazy_arguments(
    func: ScalarFunc,
    args: &[PhysicalExpr],
    batch: &RecordBatch,
) -> Result<Vec<ColumnarValue>> {
    let rows = batch.num_rows();
    let mut vals: Vec<ColumnarValue> = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        if i == 0 {
            vals.push(a.evaluate(batch)?);
            continue;
        }
        let before = &vals[..];
        let reach = || -> Result<Option<BooleanArray>> {
            // Rows where every earlier argument is NULL (COALESCE), or
            // where the first is not (NULLIF).
            let mut all_null = arrow_buffer::BooleanBuffer::new_set(rows);
            for v in before {
                let nulls = match v {
                    ColumnarValue::Scalar(s, _) if s.is_null() => continue,
                    ColumnarValue::Scalar(..) => arrow_buffer::BooleanBuffer::new_unset(rows),
                    ColumnarValue::Array(a) => match a.logical_nulls() {
                        Some(n) => !n.inner(),
                        None => arrow_buffer::BooleanBuffer::new_unset(rows),
                    },
                };
                all_null = &all_null & &nulls;
                if func == ScalarFunc::NullIf {
                    break;
                }
            }
            Ok(Some(BooleanArray::new(
                match func {
                    ScalarFunc::NullIf => !&all_null,
                    _ => all_null,
                },
                None,
            )))
        };
        vals.push(evaluate_for(batch, reach, |b| a.evaluate(b))?);
    }
    Ok(vals)
}

/// The values of `list` when every item is a literal (`.1`: one is NULL).
fn literal_values(list: &[PhysicalExpr]) -> Option<(Vec<ScalarValue>, bool)> {
    let mut values = Vec::new();
    let mut has_null = false;
    for e in list {
        let e = match e {
            PhysicalExpr::Collate(inner, _) => inner,
            e => e,
        };
        match e {
            PhysicalExpr::Literal(ScalarValue::Null, _) => has_null = true,
            PhysicalExpr::Literal(v, _) => values.push(v.clone()),
            _ => return None,
        }
    }
    Some((values, has_null))
}

/// CASE: each WHEN and THEN evaluated for the rows that reach it.
fn case_when(
    branches: &[(PhysicalExpr, PhysicalExpr)],
    else_expr: Option<&PhysicalExpr>,
    t: &DataType,
    batch: &RecordBatch,
) -> Result<ColumnarValue> {
    let rows = batch.num_rows();
    // The rows that reach each WHEN (no earlier one held), take each THEN,
    // and reach the ELSE: MySQL evaluates each only there, so only those
    // rows raise its warnings. None: every row.
    let mut open: Option<BooleanBuffer> = None;
    let mut taken = Vec::with_capacity(branches.len());
    for (when, _) in branches {
        if open.as_ref().is_some_and(|o| o.count_set_bits() == 0) {
            taken.push(BooleanBuffer::new_unset(rows));
            continue;
        }
        let reach = open.clone().map(|o| BooleanArray::new(o, None));
        let mask = evaluate_for(batch, || Ok(reach), |b| when.evaluate_mask(b))?;
        let holds = match mask.nulls() {
            Some(n) => mask.values() & n.inner(),
            None => mask.values().clone(),
        };
        let (take, rest) = match &open {
            None => (holds.clone(), !&holds),
            Some(o) => (o & &holds, o & &!&holds),
        };
        taken.push(take);
        open = Some(rest);
    }
    let mut acc: ArrayRef = match else_expr {
        Some(e) if open.as_ref().is_none_or(|o| o.count_set_bits() > 0) => {
            let reach = open.map(|o| BooleanArray::new(o, None));
            cast_array(
                &evaluate_for(batch, || Ok(reach), |b| e.evaluate_array(b))?,
                t,
            )?
        }
        _ => arrow_array::new_null_array(t, rows),
    };
    for ((_, then), take) in branches.iter().zip(taken).rev() {
        if take.count_set_bits() == 0 {
            continue;
        }
        let take = BooleanArray::new(take, None);
        let then = cast_array(
            &evaluate_for(batch, || Ok(Some(take.clone())), |b| then.evaluate_array(b))?,
            t,
        )?;
        acc = arrow_select::zip::zip(&take, &then, &acc)?;
    }
    Ok(ColumnarValue::Array(acc))
}

/// IN with non-constant items: OR of equalities, with SQL's NULL rules.
fn in_list_dynamic(
    v: &ArrayRef,
    list: &[PhysicalExpr],
    batch: &RecordBatch,
    collation: Collation,
) -> Result<BooleanArray> {
    let mut acc: Option<ColumnarValue> = None;
    for item in list {
        let eq = compare::compare(
            BinaryOp::Eq,
            ColumnarValue::Array(v.clone()),
            item.evaluate(batch)?,
            v.len(),
            collation,
        )?;
        acc = Some(match acc {
            None => eq,
            Some(prev) => logic::and_or(BinaryOp::Or, prev, eq, v.len())?,
        });
    }
    let out = match acc {
        Some(c) => c.into_array(v.len())?,
        None => Arc::new(BooleanArray::from(vec![false; v.len()])),
    };
    Ok(out.as_boolean().clone())
}

/// Whether `e` is an operation whose kernel raises 1690 on overflow.
fn can_overflow(e: &Expr) -> bool {
    match e {
        Expr::Binary { op, .. } => op.arith().is_some(),
        Expr::Unary { op, .. } => *op == UnaryOp::Neg,
        Expr::Function { func, .. } => {
            matches!(func, ScalarFunc::StrictDivision(_))
                || matches!(func, ScalarFunc::Registered(f) if f.can_overflow())
        }
        _ => false,
    }
}

/// `e` without `Collate` nodes on top.
fn strip_collate(e: &Expr) -> &Expr {
    match e {
        Expr::Collate { expr, .. } => strip_collate(expr),
        other => other,
    }
}

/// The collation an operator applies to operand `e`: a binary string is
/// compared as bytes (`binary`) whatever node is on top of it.
fn operand_collation(e: &Expr) -> Collation {
    if crate::bytes::is_binary(&e.data_type()) {
        Collation::binary()
    } else {
        e.collation()
    }
}

/// The columns of an input: where each is, by id, and what MySQL calls it
/// in messages.
#[derive(Debug, Default)]
pub struct Layout {
    positions: HashMap<ColumnId, usize>,
    columns: Vec<ColumnInfo>,
}

impl Layout {
    pub fn of(columns: &[ColumnInfo]) -> Layout {
        Layout {
            positions: columns.iter().enumerate().map(|(i, c)| (c.id, i)).collect(),
            columns: columns.to_vec(),
        }
    }

    /// Puts column `id` at `position`, nameless (for operators' tests).
    pub fn insert(&mut self, id: ColumnId, position: usize) {
        self.positions.insert(id, position);
    }

    fn position(&self, id: ColumnId) -> Result<usize> {
        self.positions
            .get(&id)
            .copied()
            .ok_or_else(|| QuiverError::internal(format!("column #{} not in input", id.0)))
    }

    /// Column `id` as MySQL writes it in a message: `` `db`.`t`.`c` `` for a
    /// table's column, else its name.
    fn column_text(&self, id: ColumnId) -> String {
        match self.columns.iter().find(|c| c.id == id) {
            Some(ColumnInfo {
                origin: Some(o), ..
            }) => format!("`{}`.`{}`.`{}`", o.schema, o.table, o.org_name),
            Some(c) => c.name.clone(),
            None => format!("#{}", id.0),
        }
    }
}

/// How decimals are laid out in a physical plan.
///
/// MySQL types a product or a sum by its operands' declared digits:
/// `price * (1 - discount) * (1 + tax)` over DECIMAL(15,2) columns is
/// DECIMAL(47,6) and its SUM DECIMAL(65,6), far beyond what the values hold.
/// `narrow()` computes every such decimal in i128 (38 digits) with overflow
/// checks instead of in Decimal256: a value that does not fit is error 1690,
/// and the caller runs the query again with `declared()` types
/// ([`DecimalWidth::narrowed_any`] says whether that could differ).
#[derive(Debug, Default)]
pub struct DecimalWidth {
    narrow: bool,
    /// Whether some type was narrowed.
    narrowed: std::cell::Cell<bool>,
}

impl DecimalWidth {
    /// Every type as declared (Decimal256 beyond 38 digits).
    pub fn declared() -> DecimalWidth {
        DecimalWidth::default()
    }

    /// Decimals of more than 38 digits computed in i128.
    pub fn narrow() -> DecimalWidth {
        DecimalWidth {
            narrow: true,
            narrowed: Default::default(),
        }
    }

    pub fn is_narrow(&self) -> bool {
        self.narrow
    }

    /// Whether a type was narrowed: else the plan equals the declared one.
    pub fn narrowed_any(&self) -> bool {
        self.narrowed.get()
    }

    /// The type a value declared `t` is computed in.
    pub fn physical(&self, t: &DataType) -> DataType {
        match t {
            DataType::Decimal256(_, s) if self.narrow && *s <= MAX_DECIMAL128_PRECISION as i8 => {
                self.narrowed.set(true);
                DataType::Decimal128(MAX_DECIMAL128_PRECISION, *s)
            }
            other => other.clone(),
        }
    }

    /// The type of literal `v` declared `t`: error 1690 when narrowing it
    /// would not hold `v` (the declared plan holds it).
    fn literal_type(&self, v: &ScalarValue, t: &DataType) -> Result<DataType> {
        let physical = self.physical(t);
        if let (ScalarValue::Decimal(x, ..), DataType::Decimal128(..)) = (v, &physical) {
            if x.to_i128().is_none() {
                return Err(QuiverError::out_of_range("DECIMAL", &v.to_string()));
            }
        }
        Ok(physical)
    }
}

impl PhysicalExpr {
    /// `expr` with every type as declared.
    pub fn compile(expr: &Expr, layout: &Layout) -> Result<PhysicalExpr> {
        PhysicalExpr::compile_with(expr, layout, &DecimalWidth::declared())
    }

    /// `expr` with its types laid out by `width`.
    pub fn compile_with(
        expr: &Expr,
        layout: &Layout,
        width: &DecimalWidth,
    ) -> Result<PhysicalExpr> {
        let compile = |e: &Expr| PhysicalExpr::compile_with(e, layout, width);
        let c = |e: &Expr| compile(e).map(Box::new);
        let compiled = match expr {
            Expr::Column(id, _) => PhysicalExpr::Column(layout.position(*id)?),
            Expr::Literal(v, t) => PhysicalExpr::Literal(v.clone(), width.literal_type(v, t)?),
            Expr::Binary { op, left, right } => PhysicalExpr::Binary {
                op: *op,
                left: c(left)?,
                right: c(right)?,
                data_type: width.physical(&expr.data_type()),
                collation: match operand_collation(right) {
                    c if c == Collation::binary() => c,
                    _ => operand_collation(left),
                },
            },
            Expr::Unary { op, expr } => PhysicalExpr::Unary {
                op: *op,
                expr: c(expr)?,
            },
            Expr::Like {
                negated,
                expr,
                pattern,
                escape,
            } => {
                // A constant pattern is compiled once, not per row.
                let collation = operand_collation(expr);
                let matcher = match strip_collate(pattern) {
                    Expr::Literal(ScalarValue::Utf8(p), _) => {
                        Some(Arc::new(like::compile(collation, p.as_bytes(), *escape)?))
                    }
                    Expr::Literal(ScalarValue::Binary(p), _) => {
                        Some(Arc::new(like::compile(collation, p, *escape)?))
                    }
                    _ => None,
                };
                PhysicalExpr::Like {
                    negated: *negated,
                    expr: c(expr)?,
                    matcher,
                    pattern: c(pattern)?,
                    escape: *escape,
                    collation,
                }
            }
            Expr::InList {
                negated,
                expr,
                list,
            } => {
                let list: Vec<PhysicalExpr> = list.iter().map(compile).collect::<Result<_>>()?;
                let collation = operand_collation(expr);
                let set = literal_values(&list)
                    .and_then(|(values, has_null)| {
                        compare::ScalarSet::from_values(
                            values,
                            has_null,
                            &width.physical(&expr.data_type()),
                            collation,
                        )
                    })
                    .map(Arc::new);
                PhysicalExpr::InList {
                    negated: *negated,
                    expr: c(expr)?,
                    list,
                    set,
                    collation,
                }
            }
            Expr::Case {
                branches,
                else_expr,
                data_type,
            } => PhysicalExpr::Case {
                branches: branches
                    .iter()
                    .map(|(w, t)| Ok((compile(w)?, compile(t)?)))
                    .collect::<Result<_>>()?,
                else_expr: else_expr.as_ref().map(|e| c(e)).transpose()?,
                data_type: width.physical(data_type),
            },
            Expr::Cast { expr, to } => PhysicalExpr::Cast {
                expr: c(expr)?,
                to: width.physical(to),
            },
            Expr::Function {
                func,
                args,
                data_type,
            } => PhysicalExpr::Function {
                func: *func,
                args: args.iter().map(compile).collect::<Result<_>>()?,
                data_type: width.physical(data_type),
                state: match func {
                    ScalarFunc::Registered(f) if f.keeps_state() => Some(Arc::default()),
                    _ => None,
                },
            },
            Expr::Collate {
                expr, collation, ..
            } => {
                let inner = compile(expr)?;
                if *collation == default_collation() {
                    inner
                } else {
                    PhysicalExpr::Collate(Box::new(inner), *collation)
                }
            }
        };
        Ok(if can_overflow(expr) {
            PhysicalExpr::Checked {
                expr: Box::new(compiled),
                text: mysql_text(expr, &|id| layout.column_text(id)).into(),
            }
        } else {
            compiled
        })
    }

    /// The collation operators apply to this (string) expression.
    pub fn collation(&self) -> Collation {
        match self {
            PhysicalExpr::Collate(_, c) => *c,
            _ => default_collation(),
        }
    }

    pub fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let rows = batch.num_rows();
        match self {
            PhysicalExpr::Column(i) => Ok(ColumnarValue::Array(batch.column(*i).clone())),
            PhysicalExpr::Literal(v, t) => Ok(ColumnarValue::Scalar(v.clone(), t.clone())),
            PhysicalExpr::Binary {
                op,
                left,
                right,
                data_type,
                collation,
            } => {
                let l = left.evaluate(batch)?;
                if matches!(op, BinaryOp::And | BinaryOp::Or) {
                    // MySQL stops at a FALSE left of AND (TRUE of OR): only
                    // the other rows raise the right side's warnings.
                    let r = evaluate_for(
                        batch,
                        || logic::undecided(*op, &l, rows),
                        |b| right.evaluate(b),
                    )?;
                    return logic::and_or(*op, l, r, rows);
                }
                let r = right.evaluate(batch)?;
                match op {
                    op if op.is_comparison() => compare::compare(*op, l, r, rows, *collation),
                    op => arith::arithmetic(*op, l, r, data_type, rows),
                }
            }
            PhysicalExpr::Unary { op, expr } => {
                let v = expr.evaluate(batch)?;
                match op {
                    UnaryOp::Not => logic::not(v, rows),
                    UnaryOp::IsNull | UnaryOp::IsNotNull => {
                        let want_null = *op == UnaryOp::IsNull;
                        Ok(match v {
                            ColumnarValue::Scalar(s, _) => ColumnarValue::Scalar(
                                ScalarValue::Boolean(s.is_null() == want_null),
                                DataType::Boolean,
                            ),
                            ColumnarValue::Array(a) => {
                                let out = match a.logical_nulls() {
                                    None => BooleanArray::from(vec![!want_null; a.len()]),
                                    Some(n) => {
                                        let valid = n.inner().clone();
                                        BooleanArray::new(
                                            if want_null { !&valid } else { valid },
                                            None,
                                        )
                                    }
                                };
                                ColumnarValue::Array(Arc::new(out))
                            }
                        })
                    }
                    UnaryOp::Neg => arith::negate(v, rows),
                }
            }
            PhysicalExpr::Like {
                negated,
                expr,
                matcher,
                pattern,
                escape,
                collation,
            } => {
                let v = expr.evaluate(batch)?.into_array(rows)?;
                let out = match matcher {
                    Some(m) => like::like_array(&v, m)?,
                    None => {
                        let p = pattern.evaluate(batch)?.into_array(rows)?;
                        like::like_dynamic(&v, &p, *escape, *collation)?
                    }
                };
                let out = if *negated {
                    logic::not_array(&out)
                } else {
                    out
                };
                Ok(ColumnarValue::Array(Arc::new(out)))
            }
            PhysicalExpr::InList {
                negated,
                expr,
                list,
                set,
                collation,
            } => {
                let v = expr.evaluate(batch)?.into_array(rows)?;
                let out = match set {
                    Some(set) => set.contains_array(&v)?,
                    None => in_list_dynamic(&v, list, batch, *collation)?,
                };
                let out = if *negated {
                    logic::not_array(&out)
                } else {
                    out
                };
                Ok(ColumnarValue::Array(Arc::new(out)))
            }
            PhysicalExpr::Case {
                branches,
                else_expr,
                data_type,
            } => case_when(branches, else_expr.as_deref(), data_type, batch),
            PhysicalExpr::Cast { expr, to } => match expr.evaluate(batch)? {
                ColumnarValue::Scalar(v, from) => {
                    // Once for the batch; its warnings are each row's.
                    let mark = crate::warnings::mark();
                    let a = cast_array(&scalar_to_array(&v, &from, 1)?, to)?;
                    crate::warnings::repeat_since(mark, rows);
                    Ok(ColumnarValue::Scalar(
                        ScalarValue::from_array(&a, 0)?,
                        to.clone(),
                    ))
                }
                ColumnarValue::Array(a) => Ok(ColumnarValue::Array(cast_array(&a, to)?)),
            },
            PhysicalExpr::Function {
                func,
                args,
                data_type,
                state,
            } => {
                let state = state.as_deref();
                let vals = match func {
                    ScalarFunc::Coalesce | ScalarFunc::NullIf => {
                        lazy_arguments(*func, args, batch)?
                    }
                    _ => args
                        .iter()
                        .map(|a| a.evaluate(batch))
                        .collect::<Result<_>>()?,
                };
                // String functions follow their (resolved) operands' collation.
                let collation = args
                    .iter()
                    .map(|a| a.collation())
                    .find(|c| *c != default_collation())
                    .unwrap_or_else(default_collation);
                let json_args = json_arguments(args);
                if vals.iter().all(|v| matches!(v, ColumnarValue::Scalar(..))) {
                    // Once for the batch; its warnings are each row's.
                    let mark = crate::warnings::mark();
                    let out =
                        functions::call(*func, vals, data_type, rows, collation, json_args, state);
                    crate::warnings::repeat_since(mark, rows);
                    out
                } else {
                    functions::call(*func, vals, data_type, rows, collation, json_args, state)
                }
            }
            PhysicalExpr::Checked { expr, text } => {
                expr.evaluate(batch).map_err(|e| e.in_expression(text))
            }
            PhysicalExpr::Collate(expr, _) => expr.evaluate(batch),
            PhysicalExpr::JoinKeys { key, filter } => Ok(ColumnarValue::Array(Arc::new(
                filter.may_match(batch.num_rows(), || {
                    KeyColumn::collated(&key.evaluate_array(batch)?, key.collation())
                })?,
            ))),
        }
    }

    /// Evaluates to an array of exactly `batch.num_rows()` values.
    pub fn evaluate_array(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        self.evaluate(batch)?.into_array(batch.num_rows())
    }

    /// [`PhysicalExpr::evaluate_mask`] for a scan's filter, told what
    /// storage knows of the batch's text columns (`hints[i]` for column
    /// `i`): `col = 'const'` on such a column runs the equality kernel with
    /// the hints, which let it skip rows by length alone.
    pub fn evaluate_mask_shaped(
        &self,
        batch: &RecordBatch,
        hints: &[Option<quiver_collation::RowHints<'_>>],
    ) -> Result<BooleanArray> {
        if let PhysicalExpr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
            collation,
            ..
        } = self
        {
            let (column, constant) = match (left.column_index(), right.column_index()) {
                (Some(c), None) => (c, right.as_ref()),
                (None, Some(c)) => (c, left.as_ref()),
                _ => return self.evaluate_mask(batch),
            };
            if let (Some(Some(hints)), Some(ScalarValue::Utf8(v))) =
                (hints.get(column), constant.literal())
            {
                let a = batch.column(column);
                if a.data_type() == &DataType::Utf8 {
                    let eq = compare::eq_text_shaped(a, v.as_bytes(), *collation, *hints)?;
                    return Ok(match eq.nulls() {
                        Some(n) => BooleanArray::new(eq.values() & n.inner(), None),
                        None => eq,
                    });
                }
            }
        }
        self.evaluate_mask(batch)
    }

    /// The batch column this is (under any COLLATE).
    pub(crate) fn column_index(&self) -> Option<usize> {
        match self {
            PhysicalExpr::Column(i) => Some(*i),
            PhysicalExpr::Collate(inner, _) => inner.column_index(),
            _ => None,
        }
    }

    /// The constant this is (under any COLLATE).
    pub(crate) fn literal(&self) -> Option<&ScalarValue> {
        match self {
            PhysicalExpr::Literal(v, _) => Some(v),
            PhysicalExpr::Collate(inner, _) => inner.literal(),
            _ => None,
        }
    }

    /// Evaluates a predicate into a mask where NULL counts as false.
    pub fn evaluate_mask(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        let a = self.evaluate_array(batch)?;
        let a = if a.data_type() == &DataType::Boolean {
            a
        } else {
            cast_array(&a, &DataType::Boolean)?
        };
        let b = a
            .as_any()
            .downcast_ref::<BooleanArray>()
            .expect("boolean")
            .clone();
        Ok(match b.nulls() {
            Some(n) if n.null_count() > 0 => BooleanArray::new(b.values() & n.inner(), None),
            _ => BooleanArray::new(b.values().clone(), None),
        })
    }
}
