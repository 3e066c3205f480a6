//! The words titles and search phrases are made of: Cyrillic, CJK and
//! ASCII, built from syllables by the same stateless hash as the rows.
//!
//! The letters are chosen so that MySQL's `utf8mb4_general_ci` and a
//! lowercase, right-trimmed binary comparison agree on which strings are
//! equal and on their order: no Latin accents (general_ci folds `é` into
//! `e`), no `ё` or `й`, no punctuation between letters. That is what lets
//! DuckDB, which compares bytes, give the answers of the collation-aware
//! queries when it is asked for `lower(rtrim(x))`.

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::random::{hash, zipf};

const CYRILLIC_CONSONANTS: [&str; 18] = [
    "б", "в", "г", "д", "ж", "з", "к", "л", "м", "н", "п", "р", "с", "т", "ф", "х", "ч", "ш",
];
const CYRILLIC_VOWELS: [&str; 7] = ["а", "е", "и", "о", "у", "ы", "я"];
const ASCII_CONSONANTS: [&str; 16] = [
    "b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "x", "z",
];
const ASCII_VOWELS: [&str; 5] = ["a", "e", "i", "o", "u"];

/// Number of distinct words.
pub const WORDS: u64 = 6000;
/// Number of distinct search phrases.
pub const PHRASES: u64 = 300_000;

const WORD_SALT: u64 = 0x5701;
const PHRASE_SALT: u64 = 0x5702;
const TITLE_SALT: u64 = 0x5703;

/// The vocabulary, in popularity order (word 0 is the most used).
pub fn words() -> &'static [String] {
    static WORDS_CELL: OnceLock<Vec<String>> = OnceLock::new();
    WORDS_CELL.get_or_init(build_words)
}

fn build_words() -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(WORDS as usize);
    let mut i = 0u64;
    while (out.len() as u64) < WORDS {
        let x = hash(i, WORD_SALT);
        i += 1;
        let syllables = 2 + (x % 3) as usize;
        let mut w = String::new();
        match (x >> 8) % 5 {
            // Two in five Cyrillic, as on a Russian-language site.
            0 | 1 => {
                for s in 0..syllables {
                    let y = hash(i, WORD_SALT + 1 + s as u64);
                    w.push_str(CYRILLIC_CONSONANTS[(y % 18) as usize]);
                    w.push_str(CYRILLIC_VOWELS[((y >> 8) % 7) as usize]);
                }
            }
            // One in five CJK: two or three ideographs of the common block.
            2 => {
                for s in 0..syllables.min(3) {
                    let y = hash(i, WORD_SALT + 1 + s as u64);
                    let c = char::from_u32(0x4E00 + (y % 2000) as u32).expect("CJK ideograph");
                    w.push(c);
                }
            }
            _ => {
                for s in 0..syllables {
                    let y = hash(i, WORD_SALT + 1 + s as u64);
                    w.push_str(ASCII_CONSONANTS[(y % 16) as usize]);
                    w.push_str(ASCII_VOWELS[((y >> 8) % 5) as usize]);
                }
                // Some words carry digits, as model names and queries do.
                if (x >> 16).is_multiple_of(7) {
                    w.push_str(&((x >> 24) % 100).to_string());
                }
            }
        }
        if seen.insert(w.clone()) {
            out.push(w);
        }
    }
    out
}

/// Appends search phrase `id` (1 to 4 words) to `out`.
pub fn phrase(id: u64, out: &mut String) {
    words_of(id, PHRASE_SALT, 1 + hash(id, PHRASE_SALT) % 4, out)
}

/// Appends the title of page `page_key` (2 to 6 words) to `out`.
pub fn title(page_key: u64, out: &mut String) {
    words_of(
        page_key,
        TITLE_SALT,
        2 + hash(page_key, TITLE_SALT) % 5,
        out,
    )
}

fn words_of(id: u64, salt: u64, n: u64, out: &mut String) {
    let w = words();
    for j in 0..n {
        if j > 0 {
            out.push(' ');
        }
        out.push_str(&w[zipf(hash(id, salt + 1 + j), WORDS) as usize]);
    }
}

/// An ASCII word for a domain or path: the same syllables, no digits.
pub fn ascii_word(id: u64, out: &mut String) {
    let x = hash(id, WORD_SALT + 100);
    for s in 0..2 + x % 3 {
        let y = hash(id, WORD_SALT + 101 + s);
        out.push_str(ASCII_CONSONANTS[(y % 16) as usize]);
        out.push_str(ASCII_VOWELS[((y >> 8) % 5) as usize]);
    }
}

/// How a user typed a string: 4 % capitalised, 2 % in capitals, 3 % with
/// one or two trailing spaces, else as is. Under `utf8mb4_general_ci` all
/// of these are equal to the plain spelling.
pub fn spelling_variant(text: &mut String, x: u64) {
    match x % 100 {
        0..=3 => {
            let mut chars = text.chars();
            if let Some(first) = chars.next() {
                let rest: String = chars.collect();
                *text = first.to_uppercase().chain(rest.chars()).collect();
            }
        }
        4..=5 => *text = text.to_uppercase(),
        6..=8 => text.push_str(if x.is_multiple_of(2) { " " } else { "  " }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_distinct_even_folded() {
        let w = words();
        assert_eq!(w.len() as u64, WORDS);
        let folded: HashSet<String> = w.iter().map(|s| s.to_lowercase()).collect();
        assert_eq!(folded.len(), w.len());
        assert!(w.iter().any(|s| !s.is_ascii()));
    }

    #[test]
    fn variants_fold_to_the_plain_spelling() {
        for x in 0..100 {
            let mut s = String::from("привет world");
            spelling_variant(&mut s, x);
            assert_eq!(s.trim_end_matches(' ').to_lowercase(), "привет world");
        }
    }
}
