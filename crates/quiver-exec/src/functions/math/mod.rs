//! Numeric functions (MariaDB's "Numeric Functions").

pub mod rounding;
