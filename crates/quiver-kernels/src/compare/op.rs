//! The comparison operator, and its codes for const generic parameters:
//! what the dispatching kernels (compare.rs) and both code paths
//! (portable.rs, avx2.rs) share, below all three.

/// A binary comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl CmpOp {
    /// All operators, in declaration order.
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::NotEq,
        CmpOp::Lt,
        CmpOp::LtEq,
        CmpOp::Gt,
        CmpOp::GtEq,
    ];

    /// Evaluates `lhs <op> rhs` on one pair of values (the scalar reference
    /// the kernels agree with; also handy for constant folding).
    #[inline]
    pub fn eval<T: PartialOrd>(self, lhs: T, rhs: T) -> bool {
        match self {
            CmpOp::Eq => lhs == rhs,
            CmpOp::NotEq => lhs != rhs,
            CmpOp::Lt => lhs < rhs,
            CmpOp::LtEq => lhs <= rhs,
            CmpOp::Gt => lhs > rhs,
            CmpOp::GtEq => lhs >= rhs,
        }
    }

    /// The operator with operands swapped: `a op b` == `b op.swapped() a`.
    /// Lets the planner turn `5 < col` into `col > 5`.
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Eq | CmpOp::NotEq => self,
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
        }
    }

    /// SQL spelling of the operator.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::NotEq => "<>",
            CmpOp::Lt => "<",
            CmpOp::LtEq => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtEq => ">=",
        }
    }
}

/// Operator codes for const generic parameters: enums cannot be const
/// parameters on stable Rust, and a const operator lets each kernel
/// instantiation compile to a single compare instruction.
pub(crate) mod op_code {
    pub const EQ: u8 = 0;
    pub const NE: u8 = 1;
    pub const LT: u8 = 2;
    pub const LE: u8 = 3;
    pub const GT: u8 = 4;
    pub const GE: u8 = 5;
}
