//! Numeric functions (MariaDB's "Numeric Functions" and BIT_COUNT).

pub mod bit_count;
pub mod bit_ops;
pub mod conv;
pub mod crc;
pub mod rand;
pub mod real;
pub mod rounding;
pub mod sign;
