//! Calls of registered functions (`quiver_plan::function`): the argument
//! count, the conversions the function asks for (each an explicit cast by
//! MySQL's rules) and the result type it gives. The type rules are the
//! functions' own; this file only applies them.

use quiver_common::Result;
use quiver_plan::function::Bound;
use quiver_plan::{Expr, FunctionRef, ScalarFunc};

use super::coerce::{cast, declared_parts};
use super::collation::collated;

/// `f(args)`, called by the name `name` as written (1582 names it).
pub(crate) fn call(f: FunctionRef, name: &str, args: Vec<Expr>) -> Result<Expr> {
    if !f.arity().contains(&args.len()) {
        return Err(f.arity_error(name));
    }
    let mut args = args;
    if f.collates_operands() {
        args = super::collation::collate_operands(args, name)?;
    }
    if f.reads_internal_digits() {
        if let Some(x) = args.first_mut() {
            let e = std::mem::replace(x, Expr::lit(quiver_common::ScalarValue::Null));
            *x = declared_parts(e).0;
        }
    }
    let types: Vec<_> = args.iter().map(Expr::data_type).collect();
    let to = f.coerce_types(&types)?;
    let args: Vec<Expr> = args
        .into_iter()
        .zip(&to)
        .map(|(a, t)| {
            let a = cast(a, t);
            // Strings read as bytes of their charset: under their collation.
            if f.charset_bytes() {
                collated(a)
            } else {
                a
            }
        })
        .collect();
    let infos: Vec<_> = args.iter().map(Expr::arg_info).collect();
    Ok(match f.return_type(&infos)? {
        Bound::Constant(v, t) => Expr::Literal(v, t),
        Bound::Call(data_type) => Expr::Function {
            func: ScalarFunc::Registered(f),
            args,
            data_type,
        },
    })
}
