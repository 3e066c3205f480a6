//! An expression written back as MySQL prints it in messages: error 1690
//! names the expression that overflowed (`BIGINT value is out of range in
//! '`db`.`t`.`a` + 1'`), so clients see the same text from Quiver as from
//! MariaDB. Operators get spaces and only the parentheses precedence needs,
//! functions are lower case with `,` between arguments, and nodes the binder
//! adds (implicit casts, collations, scale rounding) print as their operand.

use std::fmt::Write;

use quiver_common::ScalarValue;

use crate::expr::{BinaryOp, ColumnId, Expr, ScalarFunc, UnaryOp};

/// Precedence as MySQL's printer ranks operators: a higher one binds tighter.
fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::Binary { op, .. } => binary_precedence(*op),
        Expr::Function {
            func: ScalarFunc::StrictDivision(op),
            ..
        } => binary_precedence(*op),
        Expr::Unary {
            op: UnaryOp::Not, ..
        } => 30,
        Expr::Unary {
            op: UnaryOp::IsNull | UnaryOp::IsNotNull,
            ..
        }
        | Expr::Like { .. }
        | Expr::InList { .. } => 40,
        Expr::Unary {
            op: UnaryOp::Neg, ..
        } => 80,
        Expr::Cast { expr, .. } | Expr::Collate { expr, .. } => precedence(expr),
        Expr::Function {
            func: ScalarFunc::Registered(f),
            ..
        } if f.operator_precedence().is_some() => f.operator_precedence().unwrap_or(90),
        Expr::Function {
            func: ScalarFunc::DeclaredScale,
            args,
            ..
        } if args.len() == 1 => precedence(&args[0]),
        Expr::Function {
            func: ScalarFunc::MemberText,
            ..
        } => 90,
        _ => 90,
    }
}

fn binary_precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Or => 10,
        BinaryOp::And => 20,
        BinaryOp::Eq
        | BinaryOp::NotEq
        | BinaryOp::Lt
        | BinaryOp::LtEq
        | BinaryOp::Gt
        | BinaryOp::GtEq => 40,
        BinaryOp::Add | BinaryOp::Sub => 60,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::IntDiv | BinaryOp::Mod => 70,
    }
}

fn function_name(f: ScalarFunc) -> &'static str {
    match f {
        ScalarFunc::Substring => "substr",
        ScalarFunc::Coalesce => "coalesce",
        ScalarFunc::NullIf => "nullif",
        ScalarFunc::Concat => "concat",
        ScalarFunc::Length => "octet_length",
        ScalarFunc::CharLength => "char_length",
        ScalarFunc::Upper => "ucase",
        ScalarFunc::Lower => "lcase",
        ScalarFunc::Trim => "trim",
        ScalarFunc::LTrim => "ltrim",
        ScalarFunc::RTrim => "rtrim",
        ScalarFunc::Hex => "hex",
        ScalarFunc::Greatest => "greatest",
        ScalarFunc::Least => "least",
        ScalarFunc::Field => "field",
        ScalarFunc::Md5 => "md5",
        ScalarFunc::Sha1 => "sha1",
        ScalarFunc::Sha2 => "sha2",
        ScalarFunc::Unhex => "unhex",
        ScalarFunc::Insert => "insert",
        ScalarFunc::Ascii => "ascii",
        ScalarFunc::Ord => "ord",
        ScalarFunc::Locate => "locate",
        ScalarFunc::Replace => "replace",
        ScalarFunc::Left => "left",
        ScalarFunc::Right => "right",
        ScalarFunc::WeightString => "weight_string",
        ScalarFunc::Reverse => "reverse",
        ScalarFunc::Repeat => "repeat",
        ScalarFunc::Lpad => "lpad",
        ScalarFunc::Rpad => "rpad",
        ScalarFunc::Space => "space",
        ScalarFunc::ConcatWs => "concat_ws",
        ScalarFunc::SubstringIndex => "substring_index",
        ScalarFunc::Extract(_) => "extract",
        ScalarFunc::DateAdd(_) => "date_add",
        ScalarFunc::Interval(_) => "interval",
        ScalarFunc::TimestampDiff(_) => "timestampdiff",
        ScalarFunc::ToCharset(_) => "convert",
        ScalarFunc::Registered(f) => f.get().name(),
        ScalarFunc::DeclaredScale
        | ScalarFunc::SqlCast
        | ScalarFunc::StrictDivision(_)
        | ScalarFunc::MemberText => "",
    }
}

/// `e` as MySQL prints it; `column` gives a column's text.
pub fn mysql_text(e: &Expr, column: &dyn Fn(ColumnId) -> String) -> String {
    let mut out = String::new();
    Printer { column }.print(e, &mut out);
    out
}

struct Printer<'a> {
    column: &'a dyn Fn(ColumnId) -> String,
}

impl Printer<'_> {
    fn print(&self, e: &Expr, out: &mut String) {
        match e {
            Expr::Column(id, _) => out.push_str(&(self.column)(*id)),
            Expr::Literal(ScalarValue::Utf8(s), _) => {
                out.push('\'');
                for c in s.chars() {
                    match c {
                        '\'' => out.push_str("\\'"),
                        '\\' => out.push_str("\\\\"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
            }
            Expr::Literal(v, _) => {
                let _ = write!(out, "{v}");
            }
            Expr::Binary { op, left, right } => self.infix(e, left, op.symbol(), right, out),
            Expr::Function {
                func: ScalarFunc::StrictDivision(op),
                args,
                ..
            } if args.len() == 2 => self.infix(e, &args[0], op.symbol(), &args[1], out),
            // An ENUM / SET column prints as the column.
            Expr::Function {
                func: ScalarFunc::MemberText,
                args,
                ..
            } if !args.is_empty() => self.print(&args[0], out),
            // Operators of the registry (`|`, `~`): written as operators.
            Expr::Function {
                func: ScalarFunc::Registered(f),
                args,
                ..
            } if f.operator_precedence().is_some() && args.len() == 2 => {
                self.infix(e, &args[0], f.name(), &args[1], out)
            }
            Expr::Function {
                func: ScalarFunc::Registered(f),
                args,
                ..
            } if f.operator_precedence().is_some() && args.len() == 1 => {
                out.push_str(f.name());
                self.operand(&args[0], precedence(e), out);
            }
            Expr::Unary { op, expr } => match op {
                UnaryOp::Neg => {
                    out.push('-');
                    self.operand(expr, precedence(e), out);
                }
                UnaryOp::Not => {
                    out.push_str("!(");
                    self.print(expr, out);
                    out.push(')');
                }
                UnaryOp::IsNull | UnaryOp::IsNotNull => {
                    self.operand(expr, precedence(e), out);
                    out.push_str(if *op == UnaryOp::IsNull {
                        " is null"
                    } else {
                        " is not null"
                    });
                }
            },
            Expr::Like {
                negated,
                expr,
                pattern,
                ..
            } => {
                self.operand(expr, 41, out);
                out.push_str(if *negated { " not like " } else { " like " });
                self.operand(pattern, 41, out);
            }
            Expr::InList {
                negated,
                expr,
                list,
            } => {
                self.operand(expr, 41, out);
                out.push_str(if *negated { " not in (" } else { " in (" });
                self.list(list, out);
                out.push(')');
            }
            Expr::Case {
                branches,
                else_expr,
                ..
            } => {
                out.push_str("case");
                for (w, t) in branches {
                    out.push_str(" when ");
                    self.print(w, out);
                    out.push_str(" then ");
                    self.print(t, out);
                }
                if let Some(x) = else_expr {
                    out.push_str(" else ");
                    self.print(x, out);
                }
                out.push_str(" end");
            }
            Expr::Cast { expr, .. } | Expr::Collate { expr, .. } => self.print(expr, out),
            Expr::Function { func, args, .. } => {
                let name = function_name(*func);
                if name.is_empty() && args.len() == 1 {
                    return self.print(&args[0], out);
                }
                out.push_str(name);
                out.push('(');
                self.list(args, out);
                out.push(')');
            }
        }
    }

    fn list(&self, items: &[Expr], out: &mut String) {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            self.print(x, out);
        }
    }

    /// `left op right`, left-associative: a right operand of the same rank
    /// keeps its parentheses (`a - (b - c)`).
    fn infix(&self, e: &Expr, left: &Expr, op: &str, right: &Expr, out: &mut String) {
        let p = precedence(e);
        self.operand(left, p, out);
        out.push(' ');
        out.push_str(op);
        out.push(' ');
        self.operand(right, p + 1, out);
    }

    /// `e` in parentheses when it binds looser than `min`.
    fn operand(&self, e: &Expr, min: u8, out: &mut String) {
        if precedence(e) < min {
            out.push('(');
            self.print(e, out);
            out.push(')');
        } else {
            self.print(e, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::DataType;

    fn col(i: u32) -> Expr {
        Expr::Column(ColumnId(i), DataType::Int64)
    }

    fn int(v: i64) -> Expr {
        Expr::lit(ScalarValue::Int64(v))
    }

    fn text(e: &Expr) -> String {
        mysql_text(e, &|id| format!("`t`.`c{}`", id.0))
    }

    #[test]
    fn parentheses_only_where_precedence_needs_them() {
        use BinaryOp::*;
        let b = Expr::binary;
        assert_eq!(text(&b(Add, col(1), int(1))), "`t`.`c1` + 1");
        assert_eq!(
            text(&b(Mul, b(Add, col(1), int(1)), int(2))),
            "(`t`.`c1` + 1) * 2"
        );
        assert_eq!(
            text(&b(Add, b(Mul, col(1), int(2)), int(3))),
            "`t`.`c1` * 2 + 3"
        );
        assert_eq!(
            text(&b(Sub, col(1), b(Sub, col(2), int(3)))),
            "`t`.`c1` - (`t`.`c2` - 3)"
        );
        assert_eq!(
            text(&b(Sub, col(1), int(-1))),
            "`t`.`c1` - -1",
            "a negative literal prints as written"
        );
        let neg = Expr::Unary {
            op: UnaryOp::Neg,
            expr: Box::new(b(Add, col(1), int(1))),
        };
        assert_eq!(text(&neg), "-(`t`.`c1` + 1)");
    }

    /// A registered function: printed by its object's name.
    struct Abs;

    impl crate::ScalarFunction for Abs {
        fn name(&self) -> &'static str {
            "abs"
        }
        fn family(&self) -> crate::function::Family {
            crate::function::Family::Numeric
        }
        fn arity(&self) -> std::ops::RangeInclusive<usize> {
            1..=1
        }
        fn coerce_types(&self, args: &[DataType]) -> quiver_common::Result<Vec<DataType>> {
            Ok(args.to_vec())
        }
        fn return_type(
            &self,
            args: &[crate::function::ArgInfo],
        ) -> quiver_common::Result<crate::function::Bound> {
            Ok(crate::function::Bound::Call(args[0].data_type.clone()))
        }
        fn invoke(
            &self,
            args: &[quiver_common::ColumnarValue],
            _: &crate::function::Call,
        ) -> quiver_common::Result<quiver_common::ColumnarValue> {
            Ok(args[0].clone())
        }
    }

    #[test]
    fn functions_are_lower_case_and_binder_nodes_are_transparent() {
        let abs = Expr::Function {
            func: ScalarFunc::Registered(crate::FunctionRef(&Abs)),
            args: vec![Expr::Cast {
                expr: Box::new(col(1)),
                to: DataType::Decimal128(20, 0),
            }],
            data_type: DataType::Decimal128(20, 0),
        };
        assert_eq!(text(&abs), "abs(`t`.`c1`)");
        let coalesce = Expr::Function {
            func: ScalarFunc::Coalesce,
            args: vec![col(1), int(0)],
            data_type: DataType::Int64,
        };
        assert_eq!(
            text(&Expr::binary(BinaryOp::Add, coalesce, int(1))),
            "coalesce(`t`.`c1`,0) + 1"
        );
        assert_eq!(
            text(&Expr::lit(ScalarValue::Utf8("it's".into()))),
            "'it\\'s'"
        );
    }
}
