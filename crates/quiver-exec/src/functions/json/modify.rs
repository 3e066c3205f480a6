//! The JSON functions that change a document, as MariaDB 10.11 answers
//! them: JSON_SET, JSON_INSERT, JSON_REPLACE, JSON_ARRAY_APPEND,
//! JSON_ARRAY_INSERT and JSON_REMOVE. Each (path, value) pair is applied in
//! order to the document's tree, and the result printed with MariaDB's
//! spacing. A path must name one place (4044 for a wildcard); an array
//! step on a value that is not an array is the value itself at `[0]`, and
//! JSON_SET / JSON_INSERT past it wrap the value in an array (`$[1]` of
//! `1` gives `[1, v]`), as MariaDB's lax paths do.

use std::ops::RangeInclusive;

use arrow_schema::DataType;
use quiver_common::{ColumnarValue, QuiverError, Result};
use quiver_plan::function::{ArgInfo, Bound, Call, Family};
use quiver_plan::ScalarFunction;

use super::path::{Index, Step};
use super::tree::Node;
use super::{coerce_values, constant_paths, path_at, warn_wild, JsonArgs};
use crate::warnings::{raise_with, Level};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Set,
    Insert,
    Replace,
    ArrayAppend,
    ArrayInsert,
    Remove,
}

pub struct JsonModify(Op);

pub static JSON_SET: JsonModify = JsonModify(Op::Set);
pub static JSON_INSERT: JsonModify = JsonModify(Op::Insert);
pub static JSON_REPLACE: JsonModify = JsonModify(Op::Replace);
pub static JSON_ARRAY_APPEND: JsonModify = JsonModify(Op::ArrayAppend);
pub static JSON_ARRAY_INSERT: JsonModify = JsonModify(Op::ArrayInsert);
pub static JSON_REMOVE: JsonModify = JsonModify(Op::Remove);

impl ScalarFunction for JsonModify {
    fn name(&self) -> &'static str {
        match self.0 {
            Op::Set => "json_set",
            Op::Insert => "json_insert",
            Op::Replace => "json_replace",
            Op::ArrayAppend => "json_array_append",
            Op::ArrayInsert => "json_array_insert",
            Op::Remove => "json_remove",
        }
    }

    fn family(&self) -> Family {
        Family::Other
    }

    fn arity(&self) -> RangeInclusive<usize> {
        match self.0 {
            Op::Remove => 2..=usize::MAX,
            _ => 3..=usize::MAX,
        }
    }

    fn coerce_types(&self, args: &[DataType]) -> Result<Vec<DataType>> {
        if self.0 != Op::Remove && args.len().is_multiple_of(2) {
            return Err(QuiverError::wrong_arguments(&self.name().to_uppercase()));
        }
        coerce_values(args)
    }

    fn return_type(&self, _args: &[ArgInfo]) -> Result<Bound> {
        Ok(Bound::Call(DataType::Utf8))
    }

    fn returns_json(&self) -> bool {
        true
    }

    fn max_chars(&self, _args: &[ArgInfo], chars: &[Option<u64>]) -> Option<u64> {
        let mut n = chars.first().copied().flatten()?;
        if self.0 != Op::Remove {
            for pair in chars[1..].chunks(2) {
                n += pair.get(1).copied().flatten()? + 4;
            }
        }
        Some(n)
    }

    fn invoke(&self, args: &[ColumnarValue], call: &Call) -> Result<ColumnarValue> {
        let name = self.name();
        let remove = self.0 == Op::Remove;
        let is_path = |i: usize| i >= 1 && (remove || i % 2 == 1);
        let constants = constant_paths(args, is_path);
        let a = JsonArgs::new(args, call)?;
        let n = a.cols.len();
        a.finish_text(call, |row, out| {
            if (0..n).any(|i| (i == 0 || is_path(i)) && a.is_null(i, row)) {
                return false;
            }
            let Some(mut doc) = a.doc(0, row, name) else {
                return false;
            };
            let step = if remove { 1 } else { 2 };
            for i in (1..n).step_by(step) {
                let Some(path) = path_at(&constants, &a, i, row, name) else {
                    return false;
                };
                if path.is_wild() {
                    warn_wild(i + 1, name);
                    return false;
                }
                let steps = path.steps();
                let done = match self.0 {
                    Op::Remove => remove_at(&mut doc, steps, i, name),
                    // A place that is not there makes the result NULL.
                    Op::ArrayAppend => match navigate(&mut doc, steps) {
                        Some(Node::Array(items)) => {
                            items.push(a.node(i + 1, row));
                            true
                        }
                        Some(other) => {
                            let old = std::mem::replace(other, Node::Array(Vec::new()));
                            *other = Node::Array(vec![old, a.node(i + 1, row)]);
                            true
                        }
                        None => false,
                    },
                    // The path must end in an array position (else NULL);
                    // a parent that is not an array is left as it is.
                    Op::ArrayInsert => {
                        let Some((Step::At(at), parent)) = steps.split_last() else {
                            return false;
                        };
                        if let Some(Node::Array(items)) = navigate(&mut doc, parent) {
                            // `last` and `-1` insert after the last value.
                            let k = match *at {
                                Index::Start(k) => k.min(items.len()),
                                Index::End(k) => items.len().saturating_sub(k),
                            };
                            items.insert(k, a.node(i + 1, row));
                        }
                        true
                    }
                    Op::Set | Op::Insert | Op::Replace => {
                        put(&mut doc, steps, a.node(i + 1, row), self.0);
                        true
                    }
                };
                if !done {
                    return false;
                }
            }
            doc.spaced(out);
            true
        })
    }
}

/// The value `steps` name (none of them a wildcard), if there is one.
fn navigate<'n, 'a>(mut node: &'n mut Node<'a>, steps: &[Step]) -> Option<&'n mut Node<'a>> {
    for step in steps {
        node = match step {
            Step::Key(name) => match node {
                Node::Object(members) => {
                    let j = Node::member_index(members, name)?;
                    &mut members[j].1
                }
                _ => return None,
            },
            Step::At(i) => match node {
                Node::Array(items) => {
                    let k = i.resolve(items.len())?;
                    &mut items[k]
                }
                other => {
                    i.resolve(1)?;
                    other
                }
            },
            _ => return None,
        };
    }
    Some(node)
}

/// JSON_SET (replace or add), JSON_INSERT (add only), JSON_REPLACE
/// (replace only) of `value` at `steps`.
fn put<'a>(root: &mut Node<'a>, steps: &[Step], value: Node<'a>, op: Op) {
    let (add, replace) = (op != Op::Replace, op != Op::Insert);
    let Some((last, parent)) = steps.split_last() else {
        if replace {
            *root = value;
        }
        return;
    };
    let Some(parent) = navigate(root, parent) else {
        return;
    };
    match last {
        Step::Key(name) => {
            if let Node::Object(members) = parent {
                match Node::member_index(members, name) {
                    Some(j) if replace => members[j].1 = value,
                    Some(_) => {}
                    None if add => {
                        let mut key = Vec::with_capacity(name.len() + 2);
                        super::value::quote(name, &mut key);
                        members.push((key.into(), value));
                    }
                    None => {}
                }
            }
        }
        Step::At(i) => match parent {
            Node::Array(items) => match i.resolve(items.len()) {
                Some(k) if replace => items[k] = value,
                Some(_) => {}
                None if add => items.push(value),
                None => {}
            },
            other => {
                if i.resolve(1).is_some() {
                    if replace {
                        *other = value;
                    }
                } else if add {
                    let old = std::mem::replace(other, Node::Array(Vec::new()));
                    *other = Node::Array(vec![old, value]);
                }
            }
        },
        _ => {}
    }
}

/// JSON_REMOVE of what `steps` name; false (NULL, with MariaDB's warning)
/// for the whole document.
fn remove_at(root: &mut Node, steps: &[Step], arg: usize, name: &str) -> bool {
    let Some((last, parent)) = steps.split_last() else {
        raise_with(Level::Warning, 4051, || {
            format!(
                "Path expression '$' is not allowed in argument {} to function '{name}'.",
                arg + 1
            )
        });
        return false;
    };
    match (navigate(root, parent), last) {
        (Some(Node::Object(members)), Step::Key(key)) => {
            if let Some(j) = Node::member_index(members, key) {
                members.remove(j);
            }
        }
        (Some(Node::Array(items)), Step::At(i)) => {
            if let Some(k) = i.resolve(items.len()) {
                items.remove(k);
            }
        }
        _ => {}
    }
    true
}
