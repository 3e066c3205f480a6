//! PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x) OVER (...), PERCENTILE_DISC
//! likewise and MEDIAN(x) OVER (...): MariaDB 10.11's grammar has them only
//! as window functions whose OVER clause has at most a PARTITION BY, and a
//! WITHIN GROUP of exactly one key; anything else is a syntax error (1064),
//! as there. Each becomes the registered window function of its name with
//! the arguments (x, p, descending): MEDIAN's p is 0.5.

use quiver_common::{QuiverError, Result};
use quiver_plan::Expr;
use sqlparser::ast;

use super::functions::Arg;
use super::{Binder, Ctx};

impl Binder<'_> {
    pub(crate) fn percentile(&mut self, f: &ast::Function, name: &str, ctx: &Ctx) -> Result<Expr> {
        let syntax = || self.syntax_error_at(&ast::Expr::Function(f.clone()));
        let args: Vec<&ast::Expr> = match &f.args {
            ast::FunctionArguments::List(l)
                if l.duplicate_treatment.is_none() && l.clauses.is_empty() =>
            {
                l.args
                    .iter()
                    .map(|a| match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e),
                        _ => None,
                    })
                    .collect::<Option<_>>()
                    .ok_or_else(syntax)?
            }
            _ => return Err(syntax()),
        };
        let median = name == "median";
        let window_ok = match &f.over {
            Some(ast::WindowType::WindowSpec(s)) => {
                s.window_name.is_none() && s.order_by.is_empty() && s.window_frame.is_none()
            }
            _ => false,
        };
        let shape_ok = if median {
            f.within_group.is_empty() && args.len() == 1
        } else {
            f.within_group.len() == 1 && args.len() == 1
        };
        if !window_ok
            || !shape_ok
            || f.filter.is_some()
            || f.null_treatment.is_some()
            || !matches!(f.parameters, ast::FunctionArguments::None)
        {
            return Err(syntax());
        }
        let number = |n: &str| ast::Expr::value(ast::Value::Number(n.into(), false));
        let half = number("0.5");
        let (key, p, descending) = if median {
            (args[0], &half, false)
        } else {
            let o = &f.within_group[0];
            (&o.expr, args[0], !super::order::order_asc(o)?)
        };
        let descending = number(if descending { "1" } else { "0" });
        let Some(over) = &f.over else {
            return Err(QuiverError::internal("percentile without OVER"));
        };
        self.window_function(
            name,
            false,
            &[Arg::Expr(key), Arg::Expr(p), Arg::Expr(&descending)],
            over,
            f.to_string(),
            ctx,
        )
    }
}
