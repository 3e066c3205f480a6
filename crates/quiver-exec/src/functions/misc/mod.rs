//! Miscellaneous functions of the registry (MariaDB's "Miscellaneous
//! Functions": network addresses, unique ids) and MariaDB's encryption and compression
//! functions.

pub mod aes;
pub mod compress;
pub mod inet;
pub mod uuid;
