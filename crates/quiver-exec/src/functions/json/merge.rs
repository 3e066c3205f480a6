//! JSON_MERGE (= JSON_MERGE_PRESERVE) and JSON_MERGE_PATCH, as MariaDB
//! 10.11 answers them. Preserve: two objects merge member by member (a
//! key in both merges its two values), anything else concatenates as
//! arrays (a scalar or object is an array of itself). Patch (RFC 7396): an
//! object patch merges into an object, `null` members delete, any other
//! patch replaces; a NULL argument makes the result NULL until a patch
//! that is not an object replaces it, as MariaDB does.

use std::ops::RangeInclusive;

use arrow_schema::DataType;
use quiver_common::{ColumnarValue, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::tree::{key_text, Node};
use super::{coerce_values, JsonArgs};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Merge,
    Preserve,
    Patch,
}

pub struct JsonMerge(Op);

pub static JSON_MERGE: JsonMerge = JsonMerge(Op::Merge);
pub static JSON_MERGE_PRESERVE: JsonMerge = JsonMerge(Op::Preserve);
pub static JSON_MERGE_PATCH: JsonMerge = JsonMerge(Op::Patch);

impl ScalarFunction for JsonMerge {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Merge => "json_merge",
            Op::Preserve => "json_merge_preserve",
            Op::Patch => "json_merge_patch",
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        2..=usize::MAX
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        coerce_values(args)
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    fn returns_json(&self) -> bool {
        true
    }

    fn max_chars(&self, _args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        let mut n = 0;
        for c in chars {
            n += (*c)?;
        }
        Some(n)
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        // MariaDB's JSON_MERGE is JSON_MERGE_PRESERVE, in messages too.
        let name = match self.0 {
            Op::Merge => "json_merge_preserve",
            _ => self.name(),
        };
        let a = JsonArgs::new(args, call)?;
        let n = a.cols.len();
        a.finish_text(call, |row, out| {
            let merged = (|| -> Option<Node> {
                if self.0 == Op::Patch {
                    let mut acc: Option<Node> = None;
                    for i in 0..n {
                        if a.is_null(i, row) {
                            acc = None;
                            continue;
                        }
                        let patch = a.doc(i, row, name)?;
                        acc = match (acc, patch) {
                            (_, p @ (Node::Scalar(_) | Node::Array(_))) => Some(p),
                            (None, _) if i > 0 => None,
                            (None, p) => Some(p),
                            (Some(t), p) => Some(patch_into(t, p)),
                        };
                    }
                    acc
                } else {
                    if (0..n).any(|i| a.is_null(i, row)) {
                        return None;
                    }
                    let mut acc = a.doc(0, row, name)?;
                    for i in 1..n {
                        acc = preserve(acc, a.doc(i, row, name)?);
                    }
                    Some(acc)
                }
            })();
            match merged {
                Some(m) => {
                    m.spaced(out);
                    true
                }
                None => false,
            }
        })
    }
}

fn preserve<'a>(a: Node<'a>, b: Node<'a>) -> Node<'a> {
    match (a, b) {
        (Node::Object(mut am), Node::Object(bm)) => {
            for (k, v) in bm {
                match Node::member_index(&am, &key_text(&k)) {
                    Some(j) => {
                        let old = std::mem::replace(&mut am[j].1, Node::Array(Vec::new()));
                        am[j].1 = preserve(old, v);
                    }
                    None => am.push((k, v)),
                }
            }
            Node::Object(am)
        }
        (a, b) => {
            let mut items = match a {
                Node::Array(items) => items,
                other => vec![other],
            };
            match b {
                Node::Array(more) => items.extend(more),
                other => items.push(other),
            }
            Node::Array(items)
        }
    }
}

/// RFC 7396 with an object patch: members merge, `null` deletes.
fn patch_into<'a>(target: Node<'a>, patch: Node<'a>) -> Node<'a> {
    let Node::Object(pm) = patch else {
        return patch;
    };
    let mut tm = match target {
        Node::Object(tm) => tm,
        _ => Vec::new(),
    };
    for (k, v) in pm {
        let j = Node::member_index(&tm, &key_text(&k));
        if matches!(&v, Node::Scalar(s) if s.as_ref() == b"null") {
            if let Some(j) = j {
                tm.remove(j);
            }
            continue;
        }
        match j {
            Some(j) => {
                let old = std::mem::replace(&mut tm[j].1, Node::Array(Vec::new()));
                tm[j].1 = patch_into(old, v);
            }
            None => tm.push((k, patch_into(Node::Object(Vec::new()), v))),
        }
    }
    Node::Object(tm)
}
