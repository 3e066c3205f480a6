//! Miscellaneous functions of the registry (MariaDB's "Miscellaneous
//! Functions": network addresses, unique ids).

pub mod inet;
pub mod uuid;
