//! MySQL/MariaDB collations over byte strings as stored.
//!
//! Every string operator of the engine (`=`, `<`, `IN`, `BETWEEN`, `LIKE`,
//! `ORDER BY`, `GROUP BY`, `DISTINCT`, joins and hash keys, `MIN`/`MAX`,
//! `UPPER`/`LOWER`, `LOCATE`, `WEIGHT_STRING`) asks this crate what the
//! column's collation says. The reference is MariaDB 10.11's answers; the
//! crate depends on nothing of the engine (only on the byte kernels of
//! `quiver-string-kernels`).
//!
//! # Design
//!
//! - [`Collation`] is the runtime handle: `Copy`, a reference to a static
//!   [`CollationInfo`] (MariaDB's id, name, charset, pad attribute, whether
//!   it is the charset default, and its [`CollationKind`]). Look one up with
//!   [`Collation::from_name`] (case-insensitive; `utf8_*` = `utf8mb3_*`),
//!   [`Collation::from_id`] or [`Collation::default_for_charset`].
//! - [`Collator`] is the trait of per-collation operations: `compare`, `eq`,
//!   `hash` (consistent with `eq`), `sort_key` (exactly `WEIGHT_STRING`),
//!   `normalized_key` (a `memcmp`-comparable key consistent with `compare`),
//!   `to_upper`/`to_lower` (size first, one allocation), `char_length`,
//!   `char_width`, `locate`, `like_key`, `min`/`max`, `eq_const`. Each kind
//!   is a zero-sized type in [`collators`], with const generics for the
//!   variations (NO PAD, utf8mb3 vs utf8mb4, latin1 vs ascii).
//! - Dispatch: [`with_collator!`] (or [`Collation::dispatch`]) matches the
//!   kind once and runs a generic body per concrete collator, so a batch
//!   loop is monomorphized per collation with no per-row dynamic dispatch.
//!   The per-value methods on [`Collation`] are for cold paths.
//! - Fast paths: the binary collations go straight to the SIMD byte
//!   kernels (equality, `memcmp`, PAD SPACE compare, substring search);
//!   `utf8mb4_bin` only decodes characters where the first difference
//!   touches a non-ASCII byte. The `_ci` collations skip common prefixes
//!   with the SIMD case-insensitive ASCII kernel and fall back to the weight
//!   tables at the first non-ASCII character; hashing feeds uppercased ASCII
//!   words. [`LikePattern`] compiles a pattern once into byte pieces
//!   (prefix, suffix, `%...%` runs found with the substring kernel) for the
//!   binary-comparable collations, and for `_ci` into pieces of weights that
//!   an ASCII value is matched against in place (a non-ASCII value can equal
//!   ASCII through weights, 'é' = 'E', so it is first folded to one weight
//!   byte per character). [`CollatedConstant`] prepares the constant side of
//!   `col = 'const'` for [`Collator::eq_const`].
//! - Invalid bytes (in utf8 strings) are one-byte characters weighing above
//!   every valid character, as MariaDB compares them; `WEIGHT_STRING` and
//!   `UPPER`/`LOWER` stop at the first one, as MariaDB's do; see
//!   [`charset`] for the decoding rules. Nothing panics on any input.
//!
//! # Where the tables come from
//!
//! `src/generated.rs` is written by `scripts/collation/gen_tables.py` from a
//! running MariaDB's answers: the registry from information_schema, the
//! general_ci weight of every BMP code point from `WEIGHT_STRING`, `UPPER`
//! and `LOWER` of every code point and of every latin1/ascii byte. Tables
//! are two-level (pages equal to the identity are left out). Nothing is
//! derived from MariaDB's (GPL) sources. The golden files under
//! `tests/collation/` come from `scripts/collation/golden.py` (thousands of
//! cases asked of the server) and `tests/golden.rs` checks every one.
//!
//! # Part 2: the UCA collations
//!
//! `utf8mb4_unicode_ci` (UCA 4.0.0), `utf8mb4_unicode_520_ci`,
//! `utf8mb4_uca1400_ai_ci`, `utf8mb4_0900_ai_ci` / `utf8mb4_0900_bin` plug in
//! the same way: a new [`CollationKind`] variant and registry row (add the
//! names to the generator), one new type implementing [`Collator`] (its
//! weights are sequences of collation elements, so it implements the trait
//! directly instead of using the one-weight-per-character helpers of part 1),
//! and one arm in [`with_collator!`]. `like_key` lets [`LikePattern`]'s
//! character matcher work unchanged for collations where a character has a
//! single primary key; others can override matching.

pub mod charset;
mod ci_find;
pub mod collator;
pub mod collators;
mod constant;
mod dispatch;
// Written by scripts/collation/gen_tables.py; kept as the script writes it.
#[allow(clippy::all)]
#[rustfmt::skip]
mod generated;
mod hash;
pub mod like;
#[doc(hidden)]
pub mod naive;
mod registry;
mod simple;
pub mod uca;

pub use charset::Charset;
pub use collator::{Collator, LIKE_POISON};
pub use constant::CollatedConstant;
pub use dispatch::CollatorFn;
pub use like::{LikeError, LikePattern, DEFAULT_ESCAPE};
pub use registry::{Collation, CollationInfo, CollationKind, Pad};

/// The MariaDB version the generated tables were taken from.
pub const TABLES_FROM: &str = generated::MARIADB_VERSION;
