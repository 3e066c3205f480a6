//! A streaming path scan: finds the value a path without wildcards names
//! while checking the whole text is JSON, building no tree (subtrees off
//! the path are only validated). JSON_EXTRACT, JSON_VALUE and JSON_QUERY
//! take it for one plain path; its errors are the parser's, at the same
//! positions, since both read the text in order with the same grammar.

use std::ops::Range;

use super::path::Step;
use super::value::{JsonError, Parser, DEPTH_LIMIT};

/// The range of the value `steps` name in `s` (None: nothing there), or
/// why `s` is not JSON.
pub(crate) fn locate(s: &[u8], steps: &[Step]) -> Result<Option<Range<usize>>, JsonError> {
    let mut p = Parser { s, pos: 0 };
    let found = find(&mut p, 0, Some(steps))?;
    p.space();
    if p.pos < s.len() {
        return Err(JsonError::Syntax(p.pos + 1));
    }
    Ok(found)
}

/// Reads one value; with `steps`, returns where they lead inside it.
fn find(
    p: &mut Parser,
    depth: usize,
    steps: Option<&[Step]>,
) -> Result<Option<Range<usize>>, JsonError> {
    p.space();
    let start = p.pos;
    let c = p.peek()?;
    let Some(steps) = steps else {
        p.skip(depth)?;
        return Ok(None);
    };
    let Some((step, rest)) = steps.split_first() else {
        p.skip(depth)?;
        return Ok(Some(start..p.pos));
    };
    // Lax arrays: `[0]` (or `[last]`) of a value that is not an array is
    // the value itself.
    if let Step::At(i) = step {
        if c != b'[' {
            return match i.resolve(1) {
                Some(_) => find(p, depth, Some(rest)),
                None => find(p, depth, None),
            };
        }
    }
    if matches!(c, b'{' | b'[') && depth >= DEPTH_LIMIT {
        return Err(JsonError::Depth(p.pos + 1));
    }
    match (c, step) {
        (b'{', Step::Key(name)) => {
            p.pos += 1;
            let mut found = None;
            let mut matched = false;
            p.space();
            if p.peek()? == b'}' {
                p.pos += 1;
                return Ok(None);
            }
            loop {
                p.space();
                if p.peek()? != b'"' {
                    return Err(p.syntax());
                }
                let key = p.pos;
                p.string()?;
                let key = key..p.pos;
                p.space();
                if p.peek()? != b':' {
                    return Err(p.syntax());
                }
                p.pos += 1;
                if !matched && super::tree::key_text(&p.s[key]).as_ref() == name.as_slice() {
                    matched = true;
                    found = find(p, depth + 1, Some(rest))?;
                } else {
                    find(p, depth + 1, None)?;
                }
                p.space();
                match p.peek()? {
                    b',' => p.pos += 1,
                    b'}' => {
                        p.pos += 1;
                        return Ok(found);
                    }
                    _ => return Err(p.syntax()),
                }
            }
        }
        (b'[', Step::At(i)) => {
            // Element starts, to resolve an index from the end.
            p.pos += 1;
            let mut starts = Vec::new();
            p.space();
            if p.peek()? == b']' {
                p.pos += 1;
                return Ok(None);
            }
            loop {
                p.space();
                starts.push(p.pos);
                p.skip(depth + 1)?;
                p.space();
                match p.peek()? {
                    b',' => p.pos += 1,
                    b']' => {
                        p.pos += 1;
                        break;
                    }
                    _ => return Err(p.syntax()),
                }
            }
            let Some(k) = i.resolve(starts.len()) else {
                return Ok(None);
            };
            // The element was checked: read it again along the path.
            let end = p.pos;
            p.pos = starts[k];
            let found = find(p, depth + 1, Some(rest))?;
            p.pos = end;
            Ok(found)
        }
        _ => {
            p.skip(depth)?;
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::path::parse_path;
    use super::super::value::parse;
    use super::*;
    use proptest::prelude::*;

    /// The tree path's answer: the first match's range, or the parse error.
    fn by_tree(doc: &[u8], path: &str) -> Result<Option<Range<usize>>, JsonError> {
        let v = parse(doc)?;
        let p = parse_path(path.as_bytes()).unwrap();
        let mut out = Vec::new();
        p.matches(doc, &v, &mut out);
        Ok(out.first().map(|m| m.range.clone()))
    }

    fn doc() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("1".to_string()),
            Just("-2.5e3".to_string()),
            Just("\"a\"".to_string()),
            Just("\"b\\\"c\"".to_string()),
            Just("true".to_string()),
            Just("null".to_string()),
            Just("[01]".to_string()),
            Just("\"x".to_string()),
        ];
        leaf.prop_recursive(5, 40, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(" , "))),
                prop::collection::vec(
                    (prop_oneof![Just("a"), Just("b"), Just("c d")], inner),
                    0..4
                )
                .prop_map(|v| {
                    let m: Vec<String> = v.iter().map(|(k, x)| format!("\"{k}\": {x}")).collect();
                    format!("{{{}}}", m.join(","))
                }),
            ]
        })
    }

    fn path() -> impl Strategy<Value = String> {
        let step = prop_oneof![
            Just(".a"),
            Just(".b"),
            Just(".\"c d\""),
            Just("[0]"),
            Just("[1]"),
            Just("[last]"),
            Just("[last-1]"),
            Just("[-2]"),
            Just("[5]"),
        ];
        prop::collection::vec(step, 0..4).prop_map(|v| format!("${}", v.concat()))
    }

    proptest! {
        #[test]
        fn scan_finds_what_the_tree_finds(d in doc(), p in path(), tail in prop_oneof![Just(""), Just(" "), Just(" x")]) {
            let text = format!("{d}{tail}");
            let steps = parse_path(p.as_bytes()).unwrap();
            prop_assert_eq!(locate(text.as_bytes(), steps.steps()), by_tree(text.as_bytes(), &p));
        }
    }

    #[test]
    fn too_deep_and_cut_texts() {
        let deep = "[".repeat(40) + &"]".repeat(40);
        let p = parse_path(b"$[0]").unwrap();
        assert_eq!(
            locate(deep.as_bytes(), p.steps()),
            Err(JsonError::Depth(33))
        );
        assert_eq!(
            locate(b"{\"a\":[1,", parse_path(b"$.a").unwrap().steps()),
            Err(JsonError::End)
        );
    }
}
