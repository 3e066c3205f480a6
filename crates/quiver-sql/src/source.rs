//! The text statements were parsed from, indexed by line.
//!
//! sqlparser locates tokens by line and column (in characters). Unaliased
//! select items are named by their text as written, so the binder turns
//! locations back into byte offsets. A script of many statements shares one
//! source, built once: turning a location into an offset costs one line's
//! length, not the text before it.

use std::sync::OnceLock;

use sqlparser::tokenizer::{Location, TokenWithSpan};

#[derive(Debug)]
pub struct SqlSource {
    text: String,
    /// Byte offset where each line starts; line 1 starts at 0.
    line_starts: Vec<usize>,
    /// The text's tokens as the parser saw them, made when first asked
    /// for (to name a select item); None if the text does not tokenize.
    tokens: OnceLock<Option<Vec<TokenWithSpan>>>,
    /// The text in ASCII lower case, made when first searched.
    lowercase: OnceLock<String>,
}

impl SqlSource {
    pub fn new(text: &str) -> SqlSource {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SqlSource {
            text: text.to_string(),
            line_starts,
            tokens: OnceLock::new(),
            lowercase: OnceLock::new(),
        }
    }

    /// Whether the text holds `word` (given in lower case), ignoring ASCII case.
    pub fn mentions(&self, word: &str) -> bool {
        self.lowercase
            .get_or_init(|| self.text.to_ascii_lowercase())
            .contains(word)
    }

    pub(crate) fn tokens(&self) -> Option<&[TokenWithSpan]> {
        self.tokens
            .get_or_init(|| crate::parser::tokenize(&self.text))
            .as_deref()
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The byte offset of `loc`, or None if it is not in the text (an
    /// unset location is line 0).
    pub fn offset(&self, loc: Location) -> Option<usize> {
        if loc.line == 0 || loc.column == 0 {
            return None;
        }
        let line_start = *self.line_starts.get(loc.line as usize - 1)?;
        let line = &self.text[line_start..];
        let col = loc.column as usize - 1;
        match line.char_indices().nth(col) {
            Some((i, _)) => Some(line_start + i),
            None if line.chars().count() == col => Some(self.text.len()),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_of_lines_and_multibyte_columns() {
        let src = SqlSource::new("SELECT 1;\nSELECT 'é', a*3\n");
        assert_eq!(src.offset(Location::new(1, 1)), Some(0));
        assert_eq!(src.offset(Location::new(2, 1)), Some(10));
        // Column 13 of line 2 is 'a', after the two-byte 'é' (columns count
        // characters).
        let a = src.offset(Location::new(2, 13)).unwrap();
        assert_eq!(&src.text()[a..a + 3], "a*3");
        assert_eq!(src.offset(Location::new(0, 0)), None);
        assert_eq!(src.offset(Location::new(9, 1)), None);
    }
}
