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
//! - latin1 and ascii over UTF-8: the engine keeps every string as UTF-8,
//!   latin1 / ascii columns too. [`Collation::over_utf8`] gives the form
//!   of a latin1 / ascii collation that reads such text ([`over_utf8`]:
//!   each character mapped to its byte, then the byte collator; same id and
//!   name); [`text`] converts between the text and the charset's bytes
//!   (latin1 is Windows-1252 as in MariaDB; `?` for what a charset cannot
//!   hold).
//!
//! # Where the tables come from
//!
//! `src/generated.rs` is written by `scripts/collation/gen_tables.py` from a
//! running MariaDB's answers: the registry from information_schema (the
//! MySQL-only `utf8mb4_0900_*` rows with MySQL's ids), the
//! general_ci weight of every BMP code point from `WEIGHT_STRING`, `UPPER`
//! and `LOWER` of every code point and of every latin1/ascii byte. Tables
//! are two-level (pages equal to the identity are left out). Nothing is
//! derived from MariaDB's (GPL) sources. The golden files under
//! `tests/collation/` come from `scripts/collation/golden.py` (thousands of
//! cases asked of the server) and `tests/golden.rs` checks every one.
//!
//! # The UCA collations
//!
//! `utf8mb4_unicode_ci` / `utf8mb3_unicode_ci` (UCA 4.0.0),
//! `utf8mb4_unicode_520_ci` / `utf8mb3_unicode_520_ci` (5.2.0),
//! `utf8mb4_uca1400_ai_ci` / `utf8mb3_uca1400_ai_ci` (14.0.0, MariaDB
//! 10.10+), all PAD SPACE, their NO PAD forms (`utf8mb4_unicode_nopad_ci`,
//! `utf8mb4_unicode_520_nopad_ci`, `utf8mb4_uca1400_nopad_ai_ci` and the
//! `utf8mb3_` ones: trailing spaces weigh like any character, a proper
//! prefix sorts first, `WEIGHT_STRING` is the PAD SPACE form's), and MySQL
//! 8's `utf8mb4_0900_ai_ci` (9.0.0, NO PAD) are [`uca::Uca`]: strings compare
//! by the sequence of their characters' primary weights (expansions,
//! contractions, ignorables, implicit weights for Han and unassigned code
//! points), see [`uca`]. `utf8mb4_0900_bin` is [`uca::Utf8mb40900Bin`]:
//! `utf8mb4_nopad_bin` with the UTF-8 bytes as `WEIGHT_STRING`. Their tables
//! are `src/uca_tables.bin`, written by `scripts/collation/gen_uca.py` from
//! MariaDB's `WEIGHT_STRING`, `UPPER` and `LOWER` of every code point and of
//! every DUCET contraction of the versions at hand (`pyuca`'s 5.2.0 to
//! 10.0.0, and 13.0.0 from the `allkeys.txt` of Debian's perl-modules) and,
//! for 0900, from Unicode's `allkeys-9.0.0.txt`; they are parsed once on
//! first use.
//!
//! Fast paths: a byte map of the weights of ASCII characters (first-character
//! rejects, compare after the common prefix that the SIMD kernel skips,
//! hashing four weights per word), and `LIKE` values folded to one class
//! byte per character, ASCII values matched in place. The `%...%` pieces of
//! every `_ci` `LIKE` are found in ASCII values by the SIMD case-insensitive
//! substring kernel of `ci_find` (no uppercased copy).
//!
//! Known differences: the uca1400 collations have every contraction of DUCET
//! 13.0.0 and earlier that MariaDB applies (939, among them the Lao prevowel
//! with the consonants Unicode 12 added); DUCET 14.0.0 itself is not at hand,
//! so one it added is missing unless it shows in `gen_uca.py --probe`, which
//! asks MariaDB about 8.1 million pairs (every combining mark and vowel sign
//! with the characters of its block, every character new in 14.0 with its
//! block and with the characters of contractions) and found none on MariaDB
//! 10.11; a three-character contraction whose first two characters are not
//! one would escape it. `utf8mb4_0900_*` follow DUCET 9.0.0 and MySQL's
//! documented format, not a MySQL server (none here): their `UPPER`/`LOWER`
//! are `utf8mb4_uca1400_ai_ci`'s and their `LIKE` matches characters by
//! weights as MariaDB's UCA collations do.

pub mod charset;
mod ci_find;
pub mod collator;
pub mod collators;
mod constant;
mod dispatch;
mod eq_column;
// Written by scripts/collation/gen_tables.py; kept as the script writes it.
#[allow(clippy::all)]
#[rustfmt::skip]
mod generated;
mod hash;
mod info;
pub mod like;
#[doc(hidden)]
pub mod naive;
pub mod over_utf8;
mod registry;
mod simple;
pub mod text;
mod text_kinds;
pub mod uca;

pub use charset::Charset;
/// ASCII case-insensitive substring search (also REGEXP's prefilter under `_ci`).
pub use ci_find::CiFinder;
pub use collator::{Collator, LIKE_POISON};
pub use constant::CollatedConstant;
pub use dispatch::CollatorFn;
pub use info::{CollationInfo, CollationKind, Pad};
pub use like::{LikeError, LikePattern, DEFAULT_ESCAPE};
/// What storage statistics tell of a column's rows, for equality kernels.
pub use quiver_string_kernels::{RowHints, RowShape};
pub use registry::Collation;

/// The MariaDB version the generated tables were taken from.
pub const TABLES_FROM: &str = generated::MARIADB_VERSION;
