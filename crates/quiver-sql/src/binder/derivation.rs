//! A string expression's derivation (its collation and coercibility), as
//! MySQL reads it from the expression, and what several operands combine
//! to (MariaDB's `DTCollation::aggregate`). Reads expressions, builds
//! none but a folded CASE's `Collate` node, so the conversions (coerce.rs)
//! and the collation rules (collation.rs) can both use it.

use quiver_collation::{Charset, Collation};
use quiver_common::types::{is_binary, is_string};
use quiver_common::ScalarValue;
use quiver_plan::function::StringResult;
use quiver_plan::{default_collation, Coercibility, Expr, ScalarFunc};

/// A string expression's collation and coercibility.
pub(crate) type Derivation = (Collation, Coercibility);

/// The derivation of `e`, from its own structure.
pub(crate) fn derivation(e: &Expr) -> Derivation {
    // A binary string's collation is `binary` unless a node says otherwise
    // (the type is looked at only where no node says).
    let d = || {
        if is_binary(&e.data_type()) {
            Collation::binary()
        } else {
            default_collation()
        }
    };
    match e {
        Expr::Collate {
            collation,
            coercibility,
            ..
        } => (*collation, *coercibility),
        Expr::Column(..) => (d(), Coercibility::Implicit),
        Expr::Literal(ScalarValue::Null, _) => (d(), Coercibility::Ignorable),
        Expr::Literal(ScalarValue::Utf8(_) | ScalarValue::Binary(_), _) => {
            (d(), Coercibility::Coercible)
        }
        Expr::Literal(..) => (d(), Coercibility::Numeric),
        Expr::Cast { expr, to } if is_string(to) => {
            if is_string(&expr.data_type()) {
                derivation(expr)
            } else {
                (d(), Coercibility::Implicit)
            }
        }
        Expr::Function {
            func,
            args,
            data_type,
        } if is_string(data_type) && combines_operands(*func) => {
            aggregate(args.iter().filter(|a| is_string(&a.data_type())))
                .unwrap_or((d(), Coercibility::None))
        }
        // HEX's and the digests' digits and SPACE's spaces: literal-like
        // strings (MariaDB: COERCIBLE).
        Expr::Function { func, .. } if makes_ascii_digits(*func) => (d(), Coercibility::Coercible),
        Expr::Function {
            func: ScalarFunc::Registered(f),
            data_type,
            ..
        } if is_string(data_type) && f.string_result() == StringResult::Coercible => {
            (d(), Coercibility::Coercible)
        }
        Expr::Case {
            branches,
            else_expr,
            data_type,
        } if is_string(data_type) => aggregate(
            branches
                .iter()
                .map(|(_, v)| v)
                .chain(else_expr.as_deref())
                .filter(|a| is_string(&a.data_type())),
        )
        .unwrap_or((d(), Coercibility::None)),
        _ if is_string(&e.data_type()) => (d(), Coercibility::Implicit),
        _ => (d(), Coercibility::Numeric),
    }
}

/// Functions whose strings are ASCII digits or spaces made from their
/// arguments (HEX, SPACE, MD5, SHA1, SHA2), not a copy of them.
fn makes_ascii_digits(func: ScalarFunc) -> bool {
    match func {
        ScalarFunc::Registered(f) => f.string_result() == StringResult::AsciiDigits,
        func => matches!(
            func,
            ScalarFunc::Hex
                | ScalarFunc::Space
                | ScalarFunc::Md5
                | ScalarFunc::Sha1
                | ScalarFunc::Sha2
        ),
    }
}

/// String functions whose result's collation (and repertoire) is their
/// string arguments' combined, as MySQL aggregates them.
pub(super) fn combines_operands(func: ScalarFunc) -> bool {
    if let ScalarFunc::Registered(f) = func {
        return f.string_result() == StringResult::Operands;
    }
    matches!(
        func,
        ScalarFunc::Concat
            | ScalarFunc::Coalesce
            | ScalarFunc::NullIf
            | ScalarFunc::Substring
            | ScalarFunc::Upper
            | ScalarFunc::Lower
            | ScalarFunc::Trim
            | ScalarFunc::LTrim
            | ScalarFunc::RTrim
            | ScalarFunc::Left
            | ScalarFunc::Right
            | ScalarFunc::Replace
            | ScalarFunc::Reverse
            | ScalarFunc::Repeat
            | ScalarFunc::Lpad
            | ScalarFunc::Rpad
            | ScalarFunc::ConcatWs
            | ScalarFunc::SubstringIndex
            | ScalarFunc::Insert
            | ScalarFunc::Greatest
            | ScalarFunc::Least
    )
}

/// `v`, one of a CASE's `values` that the CASE was folded to (a constant
/// condition), still under the collation of the whole CASE: IF(1, g, u) is
/// utf8mb4_bin with coercibility NONE in MariaDB, not g's general_ci.
pub(crate) fn folded_case_value(v: Expr, values: &[Expr]) -> Expr {
    let strings: Vec<&Expr> = values
        .iter()
        .filter(|e| is_string(&e.data_type()))
        .collect();
    if strings.len() < 2 || !is_string(&v.data_type()) {
        return v;
    }
    let whole = aggregate(strings.into_iter()).unwrap_or((default_collation(), Coercibility::None));
    if derivation(&v) == whole {
        return v;
    }
    v.with_derivation(whole.0, whole.1)
}

/// The collation several string operands combine to (CONCAT, CASE), or
/// `None` for an illegal mix (coercibility NONE: usable, not comparable).
pub(super) fn aggregate<'a>(mut operands: impl Iterator<Item = &'a Expr>) -> Option<Derivation> {
    let first = side(operands.next()?);
    operands
        .try_fold(first, |acc, e| resolve_sides(acc, side(e)).ok())
        .map(|s| s.derivation)
}

/// One operand as MySQL's collation rules see it: its derivation and
/// whether its characters are all ASCII (its repertoire).
#[derive(Clone, Copy)]
pub(super) struct Side {
    pub(super) derivation: Derivation,
    pub(super) ascii: bool,
}

pub(super) fn side(e: &Expr) -> Side {
    Side {
        derivation: derivation(e),
        ascii: ascii_repertoire(e),
    }
}

/// Whether every character `e` can hold is ASCII, as MySQL's repertoire
/// says: ascii strings, ASCII literals, numbers, and functions of those.
fn ascii_repertoire(e: &Expr) -> bool {
    match e {
        Expr::Literal(ScalarValue::Utf8(s), _) => s.is_ascii(),
        Expr::Literal(ScalarValue::Binary(_), _) => false,
        Expr::Literal(..) => true,
        Expr::Collate {
            expr, collation, ..
        } => collation.charset() == Charset::Ascii || ascii_repertoire(expr),
        Expr::Column(..) => false,
        Expr::Cast { expr, to } if is_string(to) => {
            !is_string(&expr.data_type()) || ascii_repertoire(expr)
        }
        Expr::Function { func, args, .. } if combines_operands(*func) => {
            args.iter().all(ascii_repertoire)
        }
        Expr::Function { func, .. } if makes_ascii_digits(*func) => true,
        _ => !is_string(&e.data_type()),
    }
}

/// Whether `c` is a Unicode charset (holds every character).
fn is_unicode(c: Charset) -> bool {
    matches!(c, Charset::Utf8mb4 | Charset::Utf8mb3)
}

/// MariaDB's `left_is_superset`: a Unicode side takes the other's strings
/// when its coercibility is lower (or equal, over a non-Unicode side, or
/// utf8mb4 over utf8mb3); any side takes an ASCII side's strings when its
/// coercibility is lower (or equal and it is not ASCII itself).
fn is_superset(l: Side, r: Side) -> bool {
    let (cl, cr) = (l.derivation.0.charset(), r.derivation.0.charset());
    let (dl, dr) = (l.derivation.1, r.derivation.1);
    if is_unicode(cl)
        && (dl < dr
            || (dl == dr
                && (!is_unicode(cr) || (cl == Charset::Utf8mb4 && cr == Charset::Utf8mb3))))
    {
        return true;
    }
    r.ascii && (dl < dr || (dl == dr && !l.ascii))
}

/// MariaDB's `DTCollation::aggregate` for comparisons and CONCAT: across
/// charsets the superset side wins, else a column's charset over a
/// literal's (which must then convert without loss); within a charset the
/// lower coercibility wins, then a `_bin` collation.
pub(super) fn resolve_sides(a: Side, b: Side) -> std::result::Result<Side, ()> {
    let ascii = a.ascii && b.ascii;
    let pick = |s: Side| {
        Ok(Side {
            derivation: s.derivation,
            ascii,
        })
    };
    let ((ca, da), (cb, db)) = (a.derivation, b.derivation);
    if ca == cb {
        return pick(Side {
            derivation: (ca, da.min(db)),
            ascii,
        });
    }
    let (csa, csb) = (ca.charset(), cb.charset());
    if csa != csb {
        if csa == Charset::Binary {
            return pick(if da <= db { a } else { b });
        }
        if csb == Charset::Binary {
            return pick(if db <= da { b } else { a });
        }
        if is_superset(a, b) {
            return pick(a);
        }
        if is_superset(b, a) {
            return pick(b);
        }
        if da < Coercibility::SysConst && db == Coercibility::Coercible {
            return pick(a);
        }
        if db < Coercibility::SysConst && da == Coercibility::Coercible {
            return pick(b);
        }
        return Err(());
    }
    if da != db {
        return pick(if da < db { a } else { b });
    }
    if da == Coercibility::Explicit || da == Coercibility::None {
        return Err(());
    }
    // Same charset: a `_bin` collation wins over the others.
    match (ca.is_bin(), cb.is_bin()) {
        (true, false) => pick(a),
        (false, true) => pick(b),
        _ => Err(()),
    }
}
