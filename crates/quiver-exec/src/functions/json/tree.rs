//! An editable JSON tree for the functions that build and change
//! documents. Scalars and keys stay the source's text (borrowed, not
//! re-encoded): MariaDB prints them as written. Writers compute the output
//! length first, then fill.

use std::borrow::Cow;

use super::value::{unescape, Kind, Value};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node<'a> {
    /// A number, string (with its quotes, escaped), true, false or null.
    Scalar(Cow<'a, [u8]>),
    Array(Vec<Node<'a>>),
    /// Members: the key as written (quotes included) and the value.
    Object(Vec<(Cow<'a, [u8]>, Node<'a>)>),
}

impl<'a> Node<'a> {
    pub(crate) fn from_value(src: &'a [u8], v: &Value) -> Node<'a> {
        match &v.kind {
            Kind::Array(items) => {
                Node::Array(items.iter().map(|i| Node::from_value(src, i)).collect())
            }
            Kind::Object(members) => Node::Object(
                members
                    .iter()
                    .map(|(k, m)| (Cow::Borrowed(&src[k.clone()]), Node::from_value(src, m)))
                    .collect(),
            ),
            _ => Node::Scalar(Cow::Borrowed(&src[v.range.clone()])),
        }
    }

    /// The member named `name` (unescaped text), the first of that name.
    pub(crate) fn member_index(
        members: &[(Cow<'a, [u8]>, Node<'a>)],
        name: &[u8],
    ) -> Option<usize> {
        members
            .iter()
            .position(|(k, _)| key_text(k).as_ref() == name)
    }

    /// The length [`Node::write_spaced`] writes.
    pub(crate) fn spaced_len(&self) -> usize {
        match self {
            Node::Scalar(s) => s.len(),
            Node::Array(items) => {
                2 + items.iter().map(Node::spaced_len).sum::<usize>()
                    + 2 * items.len().saturating_sub(1)
            }
            Node::Object(members) => {
                2 + members
                    .iter()
                    .map(|(k, v)| k.len() + 2 + v.spaced_len())
                    .sum::<usize>()
                    + 2 * members.len().saturating_sub(1)
            }
        }
    }

    /// MariaDB's spacing: `[a, b]`, `{"k": v}`.
    pub(crate) fn write_spaced(&self, out: &mut Vec<u8>) {
        match self {
            Node::Scalar(s) => out.extend_from_slice(s),
            Node::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    item.write_spaced(out);
                }
                out.push(b']');
            }
            Node::Object(members) => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    out.extend_from_slice(k);
                    out.extend_from_slice(b": ");
                    v.write_spaced(out);
                }
                out.push(b'}');
            }
        }
    }

    /// The spaced text, sized first.
    pub(crate) fn spaced(&self, out: &mut Vec<u8>) {
        out.reserve(self.spaced_len());
        self.write_spaced(out);
    }

    /// JSON_DETAILED's layout: objects and arrays of more than one value
    /// (or of a container) one value a line, indented by `tab` spaces per
    /// level; a member's container on the line after its key.
    pub(crate) fn write_detailed(&self, tab: usize, level: usize, out: &mut Vec<u8>) {
        let indent =
            |out: &mut Vec<u8>, level: usize| out.extend(std::iter::repeat_n(b' ', tab * level));
        match self {
            Node::Scalar(s) => out.extend_from_slice(s),
            Node::Array(items)
                if items.len() <= 1 && items.iter().all(|i| matches!(i, Node::Scalar(_))) =>
            {
                out.push(b'[');
                if let Some(i) = items.first() {
                    i.write_detailed(tab, level, out);
                }
                out.push(b']');
            }
            Node::Array(items) => {
                out.extend_from_slice(b"[\n");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b",\n");
                    }
                    indent(out, level + 1);
                    item.write_detailed(tab, level + 1, out);
                }
                out.push(b'\n');
                indent(out, level);
                out.push(b']');
            }
            Node::Object(members) => {
                out.extend_from_slice(b"{\n");
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b",\n");
                    }
                    indent(out, level + 1);
                    out.extend_from_slice(k);
                    out.extend_from_slice(b": ");
                    if !matches!(v, Node::Scalar(_)) {
                        out.push(b'\n');
                        indent(out, level + 1);
                    }
                    v.write_detailed(tab, level + 1, out);
                }
                if !members.is_empty() {
                    out.push(b'\n');
                }
                indent(out, level);
                out.push(b'}');
            }
        }
    }

    /// JSON_NORMALIZE: keys sorted (stably, by their text), numbers as
    /// doubles in `d.dddEn` form, no white space.
    pub(crate) fn write_normalized(&self, out: &mut Vec<u8>) {
        match self {
            Node::Scalar(s) => match s.first() {
                Some(b'-' | b'0'..=b'9') => normal_number(s, out),
                _ => out.extend_from_slice(s),
            },
            Node::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write_normalized(out);
                }
                out.push(b']');
            }
            Node::Object(members) => {
                let mut order: Vec<(Cow<[u8]>, &Node)> =
                    members.iter().map(|(k, v)| (key_text(k), v)).collect();
                order.sort_by(|a, b| a.0.cmp(&b.0));
                out.push(b'{');
                for (i, (k, v)) in order.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    super::value::quote(k, out);
                    out.push(b':');
                    v.write_normalized(out);
                }
                out.push(b'}');
            }
        }
    }
}

/// A key's text: the source between its quotes, escapes resolved.
pub(crate) fn key_text<'k>(key: &'k [u8]) -> Cow<'k, [u8]> {
    let body = &key[1..key.len() - 1];
    if !body.contains(&b'\\') {
        return Cow::Borrowed(body);
    }
    let mut text = Vec::with_capacity(body.len());
    unescape(body, &mut text);
    Cow::Owned(text)
}

/// A JSON number as JSON_NORMALIZE prints it: its double in the shortest
/// digits, `1.0E0`, `1.23456E2`, `-5.0E0`, `1.0E-1`; zero as `0.0E0`.
pub(crate) fn normal_number(s: &[u8], out: &mut Vec<u8>) {
    let v: f64 = std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.trim_end_matches(['e', 'E', '+', '-', '.']).parse().ok())
        .unwrap_or(0.0);
    if v == 0.0 {
        out.extend_from_slice(b"0.0E0");
        return;
    }
    let text = format!("{v:e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    out.extend_from_slice(mantissa.as_bytes());
    if !mantissa.contains('.') {
        out.extend_from_slice(b".0");
    }
    out.push(b'E');
    out.extend_from_slice(exp.as_bytes());
}

/// A scalar's value for comparisons: numbers as doubles, strings as their
/// text, the rest as written.
#[derive(Debug, PartialEq)]
pub(crate) enum Atom<'s> {
    Number(f64),
    Text(Cow<'s, [u8]>),
    Word(&'s [u8]),
}

pub(crate) fn atom(s: &[u8]) -> Atom<'_> {
    match s.first() {
        Some(b'"') => Atom::Text(key_text(s)),
        Some(b'-' | b'0'..=b'9') => Atom::Number(
            std::str::from_utf8(s)
                .ok()
                .and_then(|t| t.trim_end_matches(['e', 'E', '+', '-', '.']).parse().ok())
                .unwrap_or(0.0),
        ),
        _ => Atom::Word(s),
    }
}

/// Whether two values are equal as JSON: scalars by [`atom`], arrays in
/// order, objects as sets of members.
pub(crate) fn equal(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Scalar(x), Node::Scalar(y)) => atom(x) == atom(y),
        (Node::Array(x), Node::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Node::Object(x), Node::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    let name = key_text(k);
                    Node::member_index(y, &name).is_some_and(|j| equal(v, &y[j].1))
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::value::parse;
    use super::*;

    #[test]
    fn normalized_numbers() {
        let n = |s: &str| {
            let mut out = Vec::new();
            normal_number(s.as_bytes(), &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(n("0.1"), "1.0E-1");
        assert_eq!(n("123.456"), "1.23456E2");
        assert_eq!(n("-5"), "-5.0E0");
        assert_eq!(n("-0.0"), "0.0E0");
        assert_eq!(n("1e300"), "1.0E300");
    }

    #[test]
    fn spaced_length_is_exact() {
        for doc in [
            r#"{"a":[1,2,{"b":[]}],"c":"x"}"#,
            "[]",
            "{}",
            "1",
            r#"[{"a":{}}, [ 1 ]]"#,
        ] {
            let v = parse(doc.as_bytes()).unwrap();
            let n = Node::from_value(doc.as_bytes(), &v);
            let mut out = Vec::new();
            n.write_spaced(&mut out);
            assert_eq!(out.len(), n.spaced_len(), "{doc}");
        }
    }
}
