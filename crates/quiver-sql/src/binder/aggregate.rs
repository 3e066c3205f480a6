//! Aggregate and window function calls, and the rewrite of a block's
//! expressions over the Aggregate node's output.
//!
//! Calls are bound where they appear (select list, HAVING, ORDER BY) and
//! replaced by a reference to the column the Aggregate or Window node will
//! produce; equal calls share one column.

use std::collections::{HashMap, HashSet};

use arrow_schema::DataType;
use quiver_common::types::{avg_internal_type, avg_type, is_string, sum_type};
use quiver_common::{QuiverError, Result, ScalarValue};
use quiver_plan::window::FrameUse;
use quiver_plan::{
    AggExpr, AggFunc, AggregateRef, ColumnId, ColumnInfo, Expr, ScalarFunc, SortExpr, WindowExpr,
    WindowFrame, WindowFunc,
};
use sqlparser::ast;

use super::coerce::{self, cast, is_null, null_lit, or};
use super::functions::Arg;
use super::order::order_asc;
use super::{replace_exprs, Binder, Ctx, PendingJoin, Scope, SelectItem};

impl Binder<'_> {
    pub(crate) fn aggregate(
        &mut self,
        name: &str,
        distinct: bool,
        args: &[Arg],
        display: String,
        ctx: &Ctx,
    ) -> Result<Expr> {
        let inner = ctx.aggregate_arguments()?;
        let (agg, declared) = self.agg_call(name, distinct, args, &inner)?;
        Ok(self.register_agg(agg, declared, display))
    }

    /// The AggExpr of COUNT / SUM / AVG / MIN / MAX, and the declared type its
    /// result is rounded to when it is computed with more decimal digits.
    fn agg_call(
        &mut self,
        name: &str,
        distinct: bool,
        args: &[Arg],
        ctx: &Ctx,
    ) -> Result<(AggExpr, Option<DataType>)> {
        if let Some(r) = self.catalog.functions().aggregate(name) {
            return self.registered_call(r, name, distinct, args, ctx);
        }
        let wrong = || QuiverError::wrong_arguments(&name.to_uppercase());
        let mut exprs = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Arg::Expr(e) => exprs.push(self.expr(e, ctx)?),
                Arg::Star if name == "count" && args.len() == 1 && !distinct => {
                    return Ok((
                        AggExpr {
                            func: AggFunc::CountStar,
                            arg: None,
                            distinct: false,
                            data_type: DataType::Int64,
                            concat: None,
                        },
                        None,
                    ));
                }
                Arg::Star => return Err(wrong()),
            }
        }
        if name == "count" {
            let arg = match exprs.len() {
                0 => return Err(wrong()),
                1 => exprs.pop().expect("one"),
                // COUNT(DISTINCT a, b) counts distinct rows of non-NULL values.
                _ if distinct => tuple_key(exprs),
                _ => return Err(wrong()),
            };
            // COUNT of a non-NULL constant counts rows.
            if !distinct && matches!(&arg, Expr::Literal(v, _) if !v.is_null()) {
                return Ok((
                    AggExpr {
                        func: AggFunc::CountStar,
                        arg: None,
                        distinct: false,
                        data_type: DataType::Int64,
                        concat: None,
                    },
                    None,
                ));
            }
            let arg = if distinct {
                super::collation::collated(arg)
            } else {
                arg
            };
            return Ok((
                AggExpr {
                    func: AggFunc::Count,
                    arg: Some(arg),
                    distinct,
                    data_type: DataType::Int64,
                    concat: None,
                },
                None,
            ));
        }
        if exprs.len() != 1 {
            return Err(wrong());
        }
        // A value with internal digits is aggregated as is; the result is
        // declared from the operand's declared type.
        let (arg, arg_declared) = super::coerce::declared_parts(exprs.pop().expect("one"));
        Ok(match name {
            "sum" | "avg" => {
                // SUM / AVG read strings as doubles and booleans and dates
                // as numbers; an ENUM / SET its codes.
                let arg = super::members::code_key(arg);
                let arg = match arg.data_type() {
                    t if is_string(&t) => cast(arg, &DataType::Float64),
                    DataType::Boolean | DataType::Date32 | DataType::Null => {
                        cast(arg, &DataType::Int64)
                    }
                    DataType::Timestamp(..) => super::coerce::datetime_number(arg, true),
                    // A TIME is summed as its number HHMMSS.ffffff.
                    t if quiver_common::types::is_time(&t) => {
                        let fsp = quiver_common::types::time_fsp(&t).unwrap_or(0);
                        cast(arg, &DataType::Decimal128(7 + fsp, fsp as i8))
                    }
                    _ => arg,
                };
                let t = arg.data_type();
                // An integer literal or integer arithmetic counts MySQL's digits
                // (SUM(2) is DECIMAL(23,0), SUM(int_col * 2) DECIMAL(33,0)); the
                // values are summed as they are.
                let shape = super::coerce::integer_decimal_type(&arg);
                let (func, data_type, declared) = if name == "sum" {
                    (
                        AggFunc::Sum,
                        sum_type(shape.as_ref().unwrap_or(&t)),
                        arg_declared.map(|d| sum_type(&d)),
                    )
                } else {
                    // AVG keeps a quotient's internal digits; what is shown is rounded.
                    (
                        AggFunc::Avg,
                        avg_internal_type(&t),
                        Some(avg_type(
                            arg_declared.as_ref().or(shape.as_ref()).unwrap_or(&t),
                        )),
                    )
                };
                (
                    AggExpr {
                        func,
                        arg: Some(arg),
                        distinct,
                        data_type,
                        concat: None,
                    },
                    declared,
                )
            }
            _ => {
                let func = if name == "min" {
                    AggFunc::Min
                } else {
                    AggFunc::Max
                };
                // DISTINCT does not change MIN / MAX.
                let arg = super::collation::collated(arg);
                (
                    AggExpr {
                        func,
                        data_type: arg.data_type(),
                        arg: Some(arg),
                        distinct: false,
                        concat: None,
                    },
                    arg_declared,
                )
            }
        })
    }

    /// A call of a registered aggregate (`quiver_plan::aggregate`): its
    /// argument count and DISTINCT checked (MariaDB's grammar refuses
    /// others: 1064), the argument converted as the object asks (strings
    /// read as MySQL reads them there, with its warnings), its result type,
    /// and the type it is shown at when that is narrower.
    fn registered_call(
        &mut self,
        r: AggregateRef,
        name: &str,
        distinct: bool,
        args: &[Arg],
        ctx: &Ctx,
    ) -> Result<(AggExpr, Option<DataType>)> {
        let syntax = || r.syntax_error(&format!("{}(", name.to_uppercase()));
        if (distinct && !r.accepts_distinct()) || !r.arity().contains(&args.len()) {
            return Err(syntax());
        }
        let mut exprs = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Arg::Expr(e) => exprs.push(self.expr(e, ctx)?),
                Arg::Star => return Err(syntax()),
            }
        }
        let arg = exprs.pop().ok_or_else(syntax)?;
        // A value with internal digits (a quotient, AVG) is aggregated as
        // it is; its declared type says the decimals the result shows.
        let (arg, declared) = super::coerce::declared_parts(arg);
        let shape = declared.unwrap_or_else(|| arg.data_type());
        let to = r.coerce_type(&arg.data_type());
        let arg = super::coerce::sql_cast(arg, &to);
        Ok((
            AggExpr {
                func: AggFunc::Registered(r),
                arg: Some(arg),
                distinct,
                data_type: r.return_type(&shape),
                concat: None,
            },
            r.shown_type(&shape),
        ))
    }

    /// MariaDB's default sql_mode has no ONLY_FULL_GROUP_BY: a column of an
    /// aggregated block that is neither grouped nor aggregated reads the value
    /// of some row of its group (MySQL's ANY_VALUE). MIN gives such a value
    /// (the value, where the column depends on the group keys). Adds each such
    /// column, and the aggregate standing in for it, to the group rewrite.
    pub(crate) fn any_values(
        &mut self,
        input: &[ColumnInfo],
        input_ids: &HashSet<ColumnId>,
        (from, to): (&mut Vec<Expr>, &mut Vec<Expr>),
        (items, having, order): (&[SelectItem], &Option<Expr>, &[SortExpr]),
        (windows, pending): (&[(ColumnInfo, WindowExpr)], &[PendingJoin]),
    ) -> Result<()> {
        let mut exprs: Vec<&Expr> = items.iter().map(|i| &i.expr).collect();
        exprs.extend(order.iter().map(|k| &k.expr));
        for (_, w) in windows {
            exprs.extend(w.args.iter());
            exprs.extend(w.partition_by.iter());
            exprs.extend(w.order_by.iter().map(|k| &k.expr));
        }
        for j in pending {
            exprs.extend(j.on.iter().map(|(l, _)| l));
            exprs.extend(j.filter.iter());
        }
        let loose_in = |e: &Expr| -> Vec<ColumnId> {
            let mut ids: Vec<ColumnId> = replace_grouped(e, from, to)
                .columns()
                .into_iter()
                .filter(|id| input_ids.contains(id))
                .collect();
            ids.sort_by_key(|id| id.0);
            ids
        };
        let mut loose: Vec<ColumnId> = exprs.iter().flat_map(|e| loose_in(e)).collect();
        loose.sort_by_key(|id| id.0);
        loose.dedup();
        // HAVING sees grouped columns, aggregates and the select list only.
        if let Some(h) = having {
            if let Some(id) = loose_in(h).into_iter().find(|id| !loose.contains(id)) {
                let name = input.iter().find(|c| c.id == id).map_or("?", |c| &c.name);
                return Err(QuiverError::new(
                    1054,
                    "42S22",
                    format!("Unknown column '{name}' in 'HAVING'"),
                ));
            }
        }
        for id in loose {
            let Some(c) = input.iter().find(|c| c.id == id) else {
                continue;
            };
            let agg = AggExpr {
                func: AggFunc::Min,
                arg: Some(c.expr()),
                distinct: false,
                data_type: c.data_type.clone(),
                concat: None,
            };
            let value = self.register_agg(agg, None, c.name.clone());
            // The rewrite also finds the column bare or under another collation.
            from.push(c.expr());
            to.push(value);
        }
        Ok(())
    }

    pub(super) fn register_agg(
        &mut self,
        agg: AggExpr,
        declared: Option<DataType>,
        name: String,
    ) -> Expr {
        let shown = |e: Expr| match &declared {
            Some(t) => super::coerce::with_declared_scale(e, t),
            None => e,
        };
        if let Some((c, _)) = self.block.aggs.iter().find(|(_, a)| *a == agg) {
            return shown(c.expr());
        }
        let nullable = match agg.func {
            AggFunc::Count | AggFunc::CountStar => false,
            AggFunc::Registered(r) => r.nullable(),
            _ => true,
        };
        let mut c = self.new_column(name, agg.data_type.clone(), nullable);
        // MIN / MAX of strings keep their argument's collation.
        c.collation = agg
            .arg
            .as_ref()
            .filter(|_| matches!(agg.func, AggFunc::Min | AggFunc::Max))
            .and_then(super::collation::column_collation);
        let declared = match &agg.concat {
            // GROUP_CONCAT: its arguments' collation, a length from group_concat_max_len.
            Some(g) => {
                c.collation = Some(g.collation).filter(|c| *c != quiver_plan::default_collation());
                if let Some(n) = super::group_concat::item_bytes(g) {
                    self.fixed_strings.insert(c.id, n);
                    c.display_length = Some(n);
                }
                Some(super::group_concat::declared_type(g).into())
            }
            None => self.declared_aggregate(agg.func, agg.arg.as_ref()),
        };
        self.set_declared(&mut c, declared);
        self.block.aggs.push((c.clone(), agg));
        shown(c.expr())
    }

    pub(crate) fn window_function(
        &mut self,
        name: &str,
        distinct: bool,
        args: &[Arg],
        over: &ast::WindowType,
        display: String,
        ctx: &Ctx,
    ) -> Result<Expr> {
        if !ctx.windows {
            return Err(QuiverError::new(
                4015,
                "HY000",
                "Window function is allowed only in SELECT list and ORDER BY clause",
            ));
        }
        if distinct {
            return Err(QuiverError::not_supported(format!(
                "<window function>(DISTINCT ..)' in '{display}"
            )));
        }
        let spec = match over {
            ast::WindowType::NamedWindow(n) => self.named_window(&n.value)?,
            ast::WindowType::WindowSpec(s) => self.resolve_window_spec(s)?,
        };
        // Window arguments may use aggregates of the block (ranking by SUM(x)), not other windows.
        let inner = Ctx {
            windows: false,
            subqueries: false,
            ..*ctx
        };
        let registered = self.catalog.functions().window(name);
        let mut window_declared = None;
        let (func, args, data_type) = match registered {
            Some(f) => {
                let (args, data_type) = self.window_args(f, args, &display, &inner)?;
                (WindowFunc::Registered(f), args, data_type)
            }
            None if super::functions::is_aggregate(name)
                || self.catalog.functions().aggregate(name).is_some() =>
            {
                let (agg, declared) = self.agg_call(
                    name,
                    false,
                    args,
                    &Ctx {
                        aggregates: ctx.aggregates,
                        ..inner
                    },
                )?;
                window_declared = declared;
                let arg = agg.arg.map(super::collation::collated);
                (
                    WindowFunc::Agg(agg.func),
                    arg.into_iter().collect(),
                    agg.data_type,
                )
            }
            None => {
                return Err(QuiverError::not_supported(format!(
                    "the window function {}",
                    name.to_uppercase()
                )))
            }
        };
        if let Some(f) = registered {
            if f.requires_order() && spec.order_by.is_empty() {
                return Err(QuiverError::new(
                    4018,
                    "HY000",
                    format!("No order list in window specification for '{name}'"),
                ));
            }
        }
        let frame = match &spec.window_frame {
            None if spec.order_by.is_empty() => WindowFrame::WHOLE,
            None => WindowFrame::DEFAULT,
            // MariaDB refuses a frame on a ranking function (MySQL ignores it).
            Some(_) if registered.is_some_and(|f| f.frame_use() == FrameUse::Refused) => {
                return Err(QuiverError::new(
                    4017,
                    "HY000",
                    format!("Window frame is not allowed with '{name}'"),
                ))
            }
            Some(frame) => {
                let key = match spec.order_by.as_slice() {
                    [one] => Some(self.expr(&one.expr, &inner)?.data_type()),
                    _ => None,
                };
                super::window_frame::window_frame(frame, key.as_ref())?
            }
        };
        let ignores_order = match func {
            // An aggregate over the whole partition does not depend on the order.
            WindowFunc::Agg(_) => frame == WindowFrame::WHOLE,
            WindowFunc::Registered(_) => false,
        };
        let partition_by = spec
            .partition_by
            .iter()
            .map(|e| Ok(super::collation::collated(self.expr(e, &inner)?)))
            .collect::<Result<Vec<_>>>()?;
        let mut order_by = Vec::with_capacity(spec.order_by.len());
        for o in &spec.order_by {
            let asc = order_asc(o)?;
            order_by.push(SortExpr {
                expr: super::collation::collated(self.expr(&o.expr, &inner)?),
                asc,
                nulls_first: asc,
            });
        }
        if ignores_order {
            order_by.clear();
        }
        let w = WindowExpr {
            func,
            args,
            partition_by,
            order_by,
            frame,
            data_type,
        };
        let shown = |e: Expr| match &window_declared {
            Some(t) => super::coerce::with_declared_scale(e, t),
            None => e,
        };
        if let Some((c, _)) = self.block.windows.iter().find(|(_, x)| *x == w) {
            return Ok(shown(c.expr()));
        }
        let nullable = match w.func {
            WindowFunc::Agg(AggFunc::Registered(r)) => r.nullable(),
            WindowFunc::Registered(f) => f.nullable(),
            WindowFunc::Agg(f) => !matches!(f, AggFunc::Count | AggFunc::CountStar),
        };
        let mut c = self.new_column(display, w.data_type.clone(), nullable);
        if let WindowFunc::Registered(f) = w.func {
            c.decimals = f.decimals();
            if let Some(d) = c.decimals {
                self.double_decimals.insert(c.id, d);
            }
        }
        if let WindowFunc::Registered(_) | WindowFunc::Agg(AggFunc::Min | AggFunc::Max) = w.func {
            // A value function's strings keep their argument's collation.
            c.collation = w.args.first().and_then(super::collation::column_collation);
        }
        let declared = self.declared_window(w.func, w.args.first());
        self.set_declared(&mut c, declared);
        self.block.windows.push((c.clone(), w));
        Ok(shown(c.expr()))
    }

    /// Records the `WINDOW w AS (...)` definitions of a block.
    pub(crate) fn define_windows(&mut self, defs: &[ast::NamedWindowDefinition]) -> Result<()> {
        let mut raw: HashMap<String, ast::NamedWindowExpr> = HashMap::new();
        for ast::NamedWindowDefinition(name, expr) in defs {
            if raw
                .insert(name.value.to_lowercase(), expr.clone())
                .is_some()
            {
                return Err(QuiverError::new(
                    3591,
                    "HY000",
                    format!("Window '{}' is defined twice.", name.value),
                ));
            }
        }
        // Definitions may refer to each other: resolve through the raw map.
        self.block.named_windows.clear();
        let names: Vec<String> = raw.keys().cloned().collect();
        let mut resolved = HashMap::new();
        for n in names {
            let spec = resolve_named(&raw, &n, 0)?;
            resolved.insert(n, spec);
        }
        self.block.named_windows = resolved;
        Ok(())
    }

    fn named_window(&self, name: &str) -> Result<ast::WindowSpec> {
        self.block
            .named_windows
            .get(&name.to_lowercase())
            .cloned()
            .ok_or_else(|| {
                QuiverError::new(
                    3579,
                    "HY000",
                    format!("Window name '{name}' is not defined."),
                )
            })
    }

    /// `OVER (w ORDER BY ...)`: a named window refined.
    fn resolve_window_spec(&self, spec: &ast::WindowSpec) -> Result<ast::WindowSpec> {
        match &spec.window_name {
            None => Ok(spec.clone()),
            Some(base) => inherit(&self.named_window(&base.value)?, spec, 0),
        }
    }
}

/// `spec` refining the named window `base`: it may add ORDER BY and a frame, not a partition.
fn inherit(
    base: &ast::WindowSpec,
    spec: &ast::WindowSpec,
    depth: usize,
) -> Result<ast::WindowSpec> {
    if depth > 32 {
        return Err(QuiverError::new(
            3580,
            "HY000",
            "There is a circularity in the window dependency graph.",
        ));
    }
    Ok(ast::WindowSpec {
        window_name: None,
        partition_by: if spec.partition_by.is_empty() {
            base.partition_by.clone()
        } else {
            spec.partition_by.clone()
        },
        order_by: if spec.order_by.is_empty() {
            base.order_by.clone()
        } else {
            spec.order_by.clone()
        },
        window_frame: spec
            .window_frame
            .clone()
            .or_else(|| base.window_frame.clone()),
    })
}

fn resolve_named(
    raw: &HashMap<String, ast::NamedWindowExpr>,
    name: &str,
    depth: usize,
) -> Result<ast::WindowSpec> {
    if depth > raw.len() {
        return Err(QuiverError::new(
            3580,
            "HY000",
            "There is a circularity in the window dependency graph.",
        ));
    }
    match raw.get(name) {
        None => Err(QuiverError::new(
            3579,
            "HY000",
            format!("Window name '{name}' is not defined."),
        )),
        Some(ast::NamedWindowExpr::NamedWindow(other)) => {
            resolve_named(raw, &other.value.to_lowercase(), depth + 1)
        }
        Some(ast::NamedWindowExpr::WindowSpec(spec)) => match &spec.window_name {
            None => Ok(spec.clone()),
            Some(base) => {
                let base = resolve_named(raw, &base.value.to_lowercase(), depth + 1)?;
                inherit(&base, spec, depth)
            }
        },
    }
}

/// COUNT(DISTINCT a, b): one string per row that is NULL when any part is,
/// with length prefixes so different tuples never give the same string.
fn tuple_key(parts: Vec<Expr>) -> Expr {
    let any_null = parts
        .iter()
        .map(|p| is_null(p.clone(), false))
        .reduce(or)
        .unwrap_or_else(|| coerce::bool_lit(false));
    let n = parts.len();
    let mut args = Vec::with_capacity(parts.len() * 3);
    for (i, p) in parts.into_iter().enumerate() {
        let s = cast(p, &DataType::Utf8);
        if i + 1 < n {
            let len = Expr::Function {
                func: ScalarFunc::CharLength,
                args: vec![s.clone()],
                data_type: DataType::Int64,
            };
            args.push(cast(len, &DataType::Utf8));
            args.push(Expr::lit(ScalarValue::Utf8(":".into())));
        }
        args.push(s);
    }
    let key = Expr::Function {
        func: ScalarFunc::Concat,
        args,
        data_type: DataType::Utf8,
    };
    coerce::case(vec![(any_null, null_lit(DataType::Utf8))], Some(key))
}

/// Rewrites expressions of a block over its Aggregate's output: group
/// expressions become the group columns, and whatever still reads a column
/// from below the Aggregate is an error (MySQL's ONLY_FULL_GROUP_BY).
pub(crate) struct GroupRewrite<'s> {
    pub from: Vec<Expr>,
    pub to: Vec<Expr>,
    /// Columns below the Aggregate.
    pub input: HashSet<ColumnId>,
    pub scope: &'s Scope,
    pub has_group_by: bool,
}

impl GroupRewrite<'_> {
    pub fn rewrite(&self, e: &Expr) -> Expr {
        replace_grouped(e, &self.from, &self.to)
    }

    /// Rewrites and checks an expression; `what` names it for the error (e.g. "SELECT list").
    pub fn checked(&self, e: &Expr, position: usize, what: &str) -> Result<Expr> {
        let r = self.rewrite(e);
        if let Some(id) = r.columns().into_iter().find(|id| self.input.contains(id)) {
            let col = self
                .scope
                .by_id(id)
                .map(|c| format!("quiver.{}", c.display()))
                .unwrap_or_else(|| format!("#{}", id.0));
            return Err(if self.has_group_by {
                QuiverError::new(
                    1055,
                    "42000",
                    format!(
                        "Expression #{position} of {what} is not in GROUP BY clause and contains nonaggregated column '{col}' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by"
                    ),
                )
            } else {
                QuiverError::new(
                    1140,
                    "42000",
                    format!(
                        "In aggregated query without GROUP BY, expression #{position} of {what} contains nonaggregated column '{col}'; this is incompatible with sql_mode=only_full_group_by"
                    ),
                )
            });
        }
        Ok(r)
    }

    /// Rewrites everything a block evaluates above its Aggregate.
    pub fn apply(
        &self,
        items: &mut [SelectItem],
        having: &mut Option<Expr>,
        order: &mut [SortExpr],
        windows: &mut [(ColumnInfo, WindowExpr)],
        pending: &mut [PendingJoin],
    ) -> Result<()> {
        for (i, item) in items.iter_mut().enumerate() {
            item.expr = self.checked(&item.expr, i + 1, "SELECT list")?;
        }
        if let Some(h) = having.as_mut() {
            *h = self.checked(h, 1, "HAVING clause")?;
        }
        for (i, k) in order.iter_mut().enumerate() {
            k.expr = self.checked(&k.expr, i + 1, "ORDER BY clause")?;
        }
        for (_, w) in windows.iter_mut() {
            for a in w.args.iter_mut() {
                *a = self.checked(a, 1, "window function")?;
            }
            for p in w.partition_by.iter_mut() {
                *p = self.checked(p, 1, "window function")?;
            }
            for k in w.order_by.iter_mut() {
                k.expr = self.checked(&k.expr, 1, "window function")?;
            }
        }
        // Keys of subquery joins above the Aggregate read its columns too,
        // as do the magic sets (parameter relations) inside them.
        for j in pending.iter_mut() {
            for (l, _) in j.on.iter_mut() {
                *l = self.checked(l, 1, "subquery")?;
            }
            let right = std::mem::replace(
                &mut j.right,
                quiver_plan::LogicalPlan::Values {
                    columns: vec![],
                    rows: vec![],
                },
            );
            j.right = super::subquery::map_parameter_rows(right, &mut |e| {
                self.checked(e, 1, "subquery")
            })?;
            j.filter = j
                .filter
                .as_ref()
                .map(|f| self.checked(f, 1, "subquery"))
                .transpose()?;
        }
        Ok(())
    }
}

/// What a select-list expression of an aggregate subquery is for an outer row
/// with no inner rows: COUNT is 0, other aggregates and group columns NULL.
/// None when that depends on more than aggregates (a window, a subquery).
pub(crate) fn empty_group_value(
    e: &Expr,
    aggs: &[(ColumnInfo, AggExpr)],
    groups: &[Expr],
) -> Option<Expr> {
    let mut map = HashMap::new();
    for (c, a) in aggs {
        let v = match a.func {
            AggFunc::Count | AggFunc::CountStar => {
                Expr::Literal(ScalarValue::Int64(0), DataType::Int64)
            }
            AggFunc::Registered(r) => match r.empty_value() {
                ScalarValue::Null => null_lit(a.data_type.clone()),
                v => Expr::Literal(v, a.data_type.clone()),
            },
            _ => null_lit(a.data_type.clone()),
        };
        map.insert(c.id, v);
    }
    for g in groups {
        if let Expr::Column(id, t) = g {
            map.insert(*id, null_lit(t.clone()));
        }
    }
    let v = coerce::fold(e.clone().replace_columns(&map));
    v.columns().is_empty().then_some(v)
}

/// `e` with the grouped expressions `from` replaced by the group's columns `to`.
fn replace_grouped(e: &Expr, from_exprs: &[Expr], to_exprs: &[Expr]) -> Expr {
    let r = replace_exprs(e, from_exprs, to_exprs);
    // A grouped column under its own collation may also appear bare, or
    // under another collation an operation imposed on it (CONCAT of a
    // _bin and a _ci column): it still reads the group's value.
    let bare = |e: &Expr| match e {
        Expr::Collate { expr, .. } => match expr.as_ref() {
            c @ Expr::Column(..) => Some(c.clone()),
            _ => None,
        },
        _ => None,
    };
    let (from, to): (Vec<Expr>, Vec<Expr>) = from_exprs
        .iter()
        .zip(to_exprs)
        .filter_map(|(f, t)| Some((bare(f)?, bare(t).unwrap_or_else(|| t.clone()))))
        .unzip();
    if from.is_empty() {
        r
    } else {
        replace_exprs(&r, &from, &to)
    }
}
