//! The JSON functions that compare documents, as MariaDB 10.11 answers
//! them: JSON_CONTAINS, JSON_OVERLAPS, JSON_EQUALS and JSON_SEARCH.
//! Scalars compare as JSON values (numbers as doubles, `1` = `1.0`;
//! strings by their text), arrays in order, objects as sets of members.

use std::ops::RangeInclusive;

use arrow_schema::DataType;
use quiver_common::types::IntKind;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family, IntWidth};
use quiver_plan::ScalarFunction;

use super::path::{Index, Step};
use super::tree::{atom, equal, key_text, Node};
use super::{coerce_values, constant_paths, path_at, warn_wild, JsonArgs};
use crate::warnings::{raise_with, Level};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Contains,
    Overlaps,
    Equals,
    Search,
}

pub struct JsonCompare(Op);

pub static JSON_CONTAINS: JsonCompare = JsonCompare(Op::Contains);
pub static JSON_OVERLAPS: JsonCompare = JsonCompare(Op::Overlaps);
pub static JSON_EQUALS: JsonCompare = JsonCompare(Op::Equals);
pub static JSON_SEARCH: JsonCompare = JsonCompare(Op::Search);

impl ScalarFunction for JsonCompare {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Contains => "json_contains",
            Op::Overlaps => "json_overlaps",
            Op::Equals => "json_equals",
            Op::Search => "json_search",
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        match self.0 {
            Op::Contains => 2..=3,
            Op::Overlaps | Op::Equals => 2..=2,
            Op::Search => 3..=usize::MAX,
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        coerce_values(args)
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(match self.0 {
            Op::Search => DataType::Utf8,
            _ => DataType::Int64,
        }))
    }

    fn int_width(&self, _args: &[ArgInfo]) -> Option<IntWidth> {
        Some(IntWidth::Fixed(IntKind::Long, 1))
    }

    fn returns_json(&self) -> bool {
        self.0 == Op::Search
    }

    fn max_chars(&self, _args: &[ArgInfo], _chars: &[Option<u64>]) -> Option<u64> {
        (self.0 == Op::Search).then_some(100)
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let name = self.name();
        let first_path = match self.0 {
            Op::Contains => 2,
            Op::Search => 4,
            _ => usize::MAX,
        };
        let constants = constant_paths(args, |i| i >= first_path);
        let a = JsonArgs::new(args, call)?;
        let n = a.cols.len();
        if self.0 == Op::Search {
            return search(&a, &constants, call, name);
        }
        a.finish_int(call, |row| {
            if (0..n).any(|i| a.is_null(i, row)) {
                return None;
            }
            let doc = a.doc(0, row, name)?;
            let other = a.doc(1, row, name)?;
            Some(match self.0 {
                Op::Contains => {
                    let target = if n == 3 {
                        let path = path_at(&constants, &a, 2, row, name)?;
                        if path.is_wild() {
                            warn_wild(3, name);
                            return None;
                        }
                        // A path that names nothing: 0, not NULL.
                        match find(&doc, path.steps()) {
                            Some(t) => t,
                            None => return Some(0),
                        }
                    } else {
                        &doc
                    };
                    contains(target, &other)
                }
                Op::Overlaps => overlaps(&doc, &other),
                Op::Equals => {
                    let (mut x, mut y) = (Vec::new(), Vec::new());
                    doc.write_normalized(&mut x);
                    other.write_normalized(&mut y);
                    x == y
                }
                Op::Search => unreachable!("above"),
            } as i64)
        })
    }
}

/// The value non-wild `steps` name (an array step on a non-array is the
/// value itself at `[0]`).
fn find<'n, 'a>(mut node: &'n Node<'a>, steps: &[Step]) -> Option<&'n Node<'a>> {
    for step in steps {
        node = match (step, node) {
            (Step::Key(name), Node::Object(members)) => {
                &members[Node::member_index(members, name)?].1
            }
            (Step::At(i), Node::Array(items)) => &items[i.resolve(items.len())?],
            (Step::At(i), other) => {
                i.resolve(1)?;
                other
            }
            _ => return None,
        };
    }
    Some(node)
}

/// MariaDB's containment: an object contains an object whose every member
/// it contains; an array contains each value of an array candidate, or a
/// candidate one of its values contains; scalars are equal.
fn contains(t: &Node, c: &Node) -> bool {
    match (t, c) {
        (Node::Object(tm), Node::Object(cm)) => cm.iter().all(|(k, v)| {
            Node::member_index(tm, &key_text(k)).is_some_and(|j| contains(&tm[j].1, v))
        }),
        (Node::Object(_), _) => false,
        (Node::Array(_), Node::Array(ci)) => ci.iter().all(|v| contains(t, v)),
        (Node::Array(ti), _) => ti.iter().any(|v| contains(v, c)),
        (Node::Scalar(x), Node::Scalar(y)) => atom(x) == atom(y),
        (Node::Scalar(_), _) => false,
    }
}

fn overlaps(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Array(x), Node::Array(y)) => x.iter().any(|p| y.iter().any(|q| equal(p, q))),
        (Node::Array(x), other) | (other, Node::Array(x)) => x.iter().any(|p| equal(p, other)),
        (Node::Object(x), Node::Object(y)) => x
            .iter()
            .any(|(k, v)| Node::member_index(y, &key_text(k)).is_some_and(|j| equal(v, &y[j].1))),
        (Node::Scalar(x), Node::Scalar(y)) => atom(x) == atom(y),
        _ => false,
    }
}

/// A step of a concrete place in a document.
#[derive(Clone)]
enum Place<'n> {
    Key(&'n [u8]),
    /// Index and the array's length.
    At(usize, usize),
}

fn search(
    a: &JsonArgs,
    constants: &[Option<std::result::Result<super::path::Path, super::path::PathError>>],
    call: &Call,
    name: &str,
) -> Result<ColumnarValue> {
    let n = a.cols.len();
    if n > 3 {
        for row in 0..a.rows() {
            let e = a.bytes(3, row);
            if !a.is_null(3, row) && std::str::from_utf8(e).map_or(true, |s| s.chars().count() > 1)
            {
                return Err(QuiverError::new(
                    1210,
                    "HY000",
                    "Incorrect arguments to ESCAPE",
                ));
            }
        }
    }
    a.finish_text(call, |row, out| {
        // NULL escape is the default `\`; NULL elsewhere is NULL.
        if (0..n).any(|i| i != 3 && a.is_null(i, row)) {
            return false;
        }
        let mode = a.bytes(1, row);
        let all = if mode.eq_ignore_ascii_case(b"all") {
            true
        } else if mode.eq_ignore_ascii_case(b"one") {
            false
        } else {
            raise_with(Level::Warning, 4046, || {
                format!("Argument 2 to function '{name}' must be \"one\" or \"all\".")
            });
            return false;
        };
        let escape = if n > 3 && !a.is_null(3, row) {
            std::str::from_utf8(a.bytes(3, row))
                .ok()
                .and_then(|s| s.chars().next())
        } else {
            None
        };
        let Ok(pattern) =
            crate::expr::like_compile(call.collation, a.bytes(2, row), escape.or(Some('\\')))
        else {
            return false;
        };
        let mut paths = Vec::new();
        for i in 4..n {
            match path_at(constants, a, i, row, name) {
                Some(p) => paths.push(p),
                None => return false,
            }
        }
        let Some(doc) = a.doc(0, row, name) else {
            return false;
        };
        let mut found: Vec<Vec<u8>> = Vec::new();
        let mut place = Vec::new();
        let mut text = Vec::new();
        walk(&doc, &mut place, &mut |p: &[Place], s: &[u8]| {
            if !all && !found.is_empty() {
                return;
            }
            if !paths.is_empty() && !paths.iter().any(|q| prefix_match(q.steps(), p)) {
                return;
            }
            text.clear();
            if s[0] == b'"' {
                super::value::unescape(&s[1..s.len() - 1], &mut text);
            } else {
                text.extend_from_slice(s);
            }
            if pattern.matches(&text) {
                found.push(print_place(p));
            }
        });
        match found.len() {
            0 => false,
            1 => {
                super::value::quote(&found[0], out);
                true
            }
            _ => {
                out.push(b'[');
                for (i, f) in found.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    super::value::quote(f, out);
                }
                out.push(b']');
                true
            }
        }
    })
}

/// Calls `f` with each string or number and its place, in document order
/// (MariaDB's JSON_SEARCH matches numbers by their text too).
fn walk<'n>(node: &'n Node, place: &mut Vec<Place<'n>>, f: &mut impl FnMut(&[Place], &[u8])) {
    match node {
        Node::Scalar(s) => {
            if matches!(s.first(), Some(b'"' | b'-' | b'0'..=b'9')) {
                f(place, s);
            }
        }
        Node::Array(items) => {
            for (k, item) in items.iter().enumerate() {
                place.push(Place::At(k, items.len()));
                walk(item, place, f);
                place.pop();
            }
        }
        Node::Object(members) => {
            for (key, v) in members {
                place.push(Place::Key(&key[1..key.len() - 1]));
                walk(v, place, f);
                place.pop();
            }
        }
    }
}

fn print_place(p: &[Place]) -> Vec<u8> {
    let mut out = vec![b'$'];
    for step in p {
        match step {
            Place::Key(k) => {
                out.push(b'.');
                out.extend_from_slice(k);
            }
            Place::At(i, _) => out.extend_from_slice(format!("[{i}]").as_bytes()),
        }
    }
    out
}

/// Whether `steps` match a beginning of the concrete place `p`.
fn prefix_match(steps: &[Step], p: &[Place]) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return true;
    };
    if let Step::Descend = step {
        return prefix_match(rest, p) || (!p.is_empty() && prefix_match(steps, &p[1..]));
    }
    let Some((here, after)) = p.split_first() else {
        return false;
    };
    let ok = match (step, here) {
        (Step::Key(name), Place::Key(k)) => key_text_raw(k) == name.as_slice(),
        (Step::AnyKey, Place::Key(_)) => true,
        (Step::At(i), Place::At(k, len)) => i.resolve(*len) == Some(*k),
        (Step::AnyIndex, Place::At(..)) => true,
        (Step::Range(from, to), Place::At(k, len)) => {
            let start = match from {
                Index::Start(i) => *i,
                Index::End(e) => len.saturating_sub(e + 1),
            };
            let end = match to {
                Index::Start(i) => *i,
                Index::End(e) => match len.checked_sub(e + 1) {
                    Some(x) => x,
                    None => return false,
                },
            };
            (start..=end).contains(k)
        }
        _ => false,
    };
    ok && prefix_match(rest, after)
}

fn key_text_raw(body: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !body.contains(&b'\\') {
        return body.into();
    }
    let mut t = Vec::new();
    super::value::unescape(body, &mut t);
    t.into()
}
