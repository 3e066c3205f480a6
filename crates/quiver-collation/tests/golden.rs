//! Checks every case of the golden files in `tests/collation/` (MariaDB's
//! answers, written by `scripts/collation/golden.py`).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::PathBuf;

use quiver_collation::{Collation, LikeError, LikePattern};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/collation")
}

/// The data rows of a golden file, split at tabs.
fn rows(name: &str) -> Vec<Vec<String>> {
    let path = golden_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Hex as the files write it; `-` is the empty string.
fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    assert!(s.len().is_multiple_of(2), "odd hex {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn hex(b: &[u8]) -> String {
    if b.is_empty() {
        return "-".into();
    }
    b.iter().map(|x| format!("{x:02X}")).collect()
}

fn coll(name: &str) -> Collation {
    Collation::from_name(name).unwrap_or_else(|| panic!("unknown collation {name}"))
}

fn ord_num(o: Ordering) -> i32 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

/// Collects failures; panics at the end with the first ones and the count.
struct Failures {
    file: &'static str,
    cases: usize,
    list: Vec<String>,
}

impl Failures {
    fn new(file: &'static str) -> Self {
        Failures {
            file,
            cases: 0,
            list: Vec::new(),
        }
    }
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.cases += 1;
        if !ok {
            self.list.push(what());
        }
    }
    fn finish(self) {
        assert!(self.cases > 0, "{}: no cases", self.file);
        if !self.list.is_empty() {
            let shown: Vec<&String> = self.list.iter().take(40).collect();
            panic!(
                "{}: {} of {} checks differ from MariaDB:\n{}",
                self.file,
                self.list.len(),
                self.cases,
                shown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
        eprintln!("{}: {} checks", self.file, self.cases);
    }
}

#[test]
fn strings_weight_string_char_length_upper_lower_substring() {
    let mut f = Failures::new("strings.tsv");
    for r in rows("strings.tsv") {
        let c = coll(&r[0]);
        let s = unhex(&r[1]);
        let mut key = Vec::new();
        c.sort_key(&s, &mut key);
        f.check(hex(&key) == r[2], || {
            format!(
                "{} WEIGHT_STRING({}) = {} want {}",
                r[0],
                r[1],
                hex(&key),
                r[2]
            )
        });
        let n = c.char_length(&s);
        f.check(n.to_string() == r[3], || {
            format!("{} CHAR_LENGTH({}) = {n} want {}", r[0], r[1], r[3])
        });
        let mut up = Vec::new();
        c.to_upper(&s, &mut up);
        f.check(hex(&up) == r[4] && c.upper_len(&s) == up.len(), || {
            format!(
                "{} UPPER({}) = {} (len {}) want {}",
                r[0],
                r[1],
                hex(&up),
                c.upper_len(&s),
                r[4]
            )
        });
        let mut lo = Vec::new();
        c.to_lower(&s, &mut lo);
        f.check(hex(&lo) == r[5] && c.lower_len(&s) == lo.len(), || {
            format!(
                "{} LOWER({}) = {} (len {}) want {}",
                r[0],
                r[1],
                hex(&lo),
                c.lower_len(&s),
                r[5]
            )
        });
        // LEFT / RIGHT / SUBSTRING by characters.
        let cs = c.charset();
        let left = &s[..cs.char_offset(&s, 2)];
        f.check(hex(left) == r[6], || {
            format!("{} LEFT({}, 2) = {} want {}", r[0], r[1], hex(left), r[6])
        });
        let right = &s[cs.char_offset(&s, n.saturating_sub(2))..];
        f.check(hex(right) == r[7], || {
            format!("{} RIGHT({}, 2) = {} want {}", r[0], r[1], hex(right), r[7])
        });
        let sub = &s[cs.char_offset(&s, 1)..cs.char_offset(&s, 4)];
        f.check(hex(sub) == r[8], || {
            format!(
                "{} SUBSTRING({}, 2, 3) = {} want {}",
                r[0],
                r[1],
                hex(sub),
                r[8]
            )
        });
    }
    f.finish();
}

#[test]
fn compare_eq_strcmp_and_consistent_keys() {
    let mut f = Failures::new("compare.tsv");
    for r in rows("compare.tsv") {
        let c = coll(&r[0]);
        let (a, b) = (unhex(&r[2]), unhex(&r[3]));
        let case = || format!("{} {} a={} b={}", r[0], r[1], r[2], r[3]);
        let eq = c.eq(&a, &b);
        f.check((eq as i32).to_string() == r[4], || {
            format!("{}: = gives {} want {}", case(), eq as i32, r[4])
        });
        let cmp = ord_num(c.compare(&a, &b));
        f.check(cmp.to_string() == r[5], || {
            format!("{}: STRCMP gives {cmp} want {}", case(), r[5])
        });
        // Consistency with MariaDB's answer for the derived operations.
        let want = r[5].parse::<i32>().expect("strcmp");
        let back = ord_num(c.compare(&b, &a));
        f.check(back == -want, || {
            format!("{}: reversed compare gives {back}", case())
        });
        if want == 0 {
            f.check(c.hash(&a, 7) == c.hash(&b, 7), || {
                format!("{}: equal strings hash differently", case())
            });
        }
        let (mut ka, mut kb) = (Vec::new(), Vec::new());
        c.normalized_key(&a, &mut ka);
        c.normalized_key(&b, &mut kb);
        let kcmp = ord_num(ka.cmp(&kb));
        f.check(kcmp == want, || {
            format!(
                "{}: normalized keys {} vs {} order {kcmp}",
                case(),
                hex(&ka),
                hex(&kb)
            )
        });
        let (mn, mx) = (c.min(&a, &b), c.max(&a, &b));
        let (want_min, want_max): (&[u8], &[u8]) = match want {
            1 => (&b, &a),
            -1 => (&a, &b),
            _ => (&a, &a),
        };
        f.check(mn == want_min && mx == want_max, || {
            format!("{}: min/max", case())
        });
    }
    f.finish();
}

#[test]
fn like() {
    let mut f = Failures::new("like.tsv");
    for r in rows("like.tsv") {
        let c = coll(&r[0]);
        let (v, p) = (unhex(&r[1]), unhex(&r[2]));
        let esc = match r[3].as_str() {
            "default" => None,
            e => Some(unhex(e)),
        };
        let got = match LikePattern::new(c, &p, esc.as_deref()) {
            Ok(pat) => (pat.matches(&v) as i32).to_string(),
            Err(LikeError::BadEscape) => "E1210".to_string(),
        };
        f.check(got == r[4], || {
            format!(
                "{} {} LIKE {} ESCAPE {}: got {got} want {}",
                r[0], r[1], r[2], r[3], r[4]
            )
        });
    }
    f.finish();
}

#[test]
fn locate() {
    let mut f = Failures::new("locate.tsv");
    for r in rows("locate.tsv") {
        let c = coll(&r[0]);
        let (needle, hay) = (unhex(&r[1]), unhex(&r[2]));
        let got = c.locate_position(&needle, &hay);
        f.check(got.to_string() == r[3], || {
            format!("{} LOCATE({}, {}) = {got} want {}", r[0], r[1], r[2], r[3])
        });
    }
    f.finish();
}

#[test]
fn order_group_min_max_of_columns() {
    let mut f = Failures::new("tables.tsv");
    // (collation, set) -> the rows (id, stored bytes) in insertion order.
    type Rows = Vec<(usize, Vec<u8>)>;
    let mut values: HashMap<(String, String), Rows> = HashMap::new();
    for r in rows("tables.tsv") {
        let key = (r[1].clone(), r[2].clone());
        let c = coll(&r[1]);
        match r[0].as_str() {
            "values" => {
                let vals = r[3]
                    .split(' ')
                    .map(|x| {
                        let (id, hx) = x.split_once(':').expect("id:hex");
                        (id.parse().expect("id"), unhex(hx))
                    })
                    .collect();
                values.insert(key, vals);
            }
            "order" => {
                let vals = &values[&key];
                let mut ids: Vec<usize> = vals.iter().map(|(id, _)| *id).collect();
                ids.sort_by(|&x, &y| c.compare(&vals[x].1, &vals[y].1).then(x.cmp(&y)));
                let got = ids
                    .iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(" ");
                f.check(got == r[3], || {
                    format!("{} set {} ORDER BY: {got}\n    want {}", r[1], r[2], r[3])
                });
            }
            "group" => {
                // Classes of equal values in order of first appearance; the
                // value shown for a class is that of its first row.
                let vals = &values[&key];
                let mut classes: Vec<(Vec<u8>, Vec<usize>)> = Vec::new();
                for (id, v) in vals {
                    match classes.iter_mut().find(|(rep, _)| c.eq(rep, v)) {
                        Some((_, ids)) => ids.push(*id),
                        None => classes.push((v.clone(), vec![*id])),
                    }
                }
                // Hashes must agree within a class.
                for (rep, ids) in &classes {
                    for id in ids {
                        f.check(c.hash(rep, 1) == c.hash(&vals[*id].1, 1), || {
                            format!("{} set {} hash differs in a group", r[1], r[2])
                        });
                    }
                }
                let mut got: Vec<String> = classes
                    .iter()
                    .map(|(rep, ids)| {
                        format!(
                            "{}:{}",
                            hex(rep),
                            ids.iter()
                                .map(|i| i.to_string())
                                .collect::<Vec<_>>()
                                .join(",")
                        )
                    })
                    .collect();
                let mut want: Vec<String> = r[3].split(' ').map(str::to_string).collect();
                got.sort();
                want.sort();
                f.check(got == want, || {
                    format!(
                        "{} set {} GROUP BY: {}\n    want {}",
                        r[1],
                        r[2],
                        got.join(" "),
                        want.join(" ")
                    )
                });
            }
            "minmax" => {
                let vals = &values[&key];
                let mut mn: &[u8] = &vals[0].1;
                let mut mx: &[u8] = &vals[0].1;
                for (_, v) in &vals[1..] {
                    mn = c.min(mn, v);
                    mx = c.max(mx, v);
                }
                f.check(hex(mn) == r[3] && hex(mx) == r[4], || {
                    format!(
                        "{} set {} MIN/MAX = {} {} want {} {}",
                        r[1],
                        r[2],
                        hex(mn),
                        hex(mx),
                        r[3],
                        r[4]
                    )
                });
            }
            other => panic!("unknown row kind {other}"),
        }
    }
    f.finish();
}

/// MySQL 8's `utf8mb4_0900_*`, which MariaDB lacks: answers computed from
/// DUCET 9.0.0 by `scripts/collation/golden_0900.py` (and typed-in MySQL
/// documentation examples).
#[test]
fn uca900_weight_string_and_order() {
    let mut f = Failures::new("uca900.tsv");
    for r in rows("uca900.tsv") {
        let c = coll(&r[1]);
        match r[0].as_str() {
            "weight" => {
                let s = unhex(&r[2]);
                let mut key = Vec::new();
                c.sort_key(&s, &mut key);
                f.check(hex(&key) == r[3], || {
                    format!(
                        "{} WEIGHT_STRING({}) = {} want {}",
                        r[1],
                        r[2],
                        hex(&key),
                        r[3]
                    )
                });
            }
            "compare" => {
                let (a, b) = (unhex(&r[2]), unhex(&r[3]));
                let want: i32 = r[4].parse().expect("order");
                let got = ord_num(c.compare(&a, &b));
                let back = ord_num(c.compare(&b, &a));
                let eq = c.eq(&a, &b);
                let (mut ka, mut kb) = (Vec::new(), Vec::new());
                c.normalized_key(&a, &mut ka);
                c.normalized_key(&b, &mut kb);
                let kcmp = ord_num(ka.cmp(&kb));
                let hash_ok = want != 0 || c.hash(&a, 3) == c.hash(&b, 3);
                f.check(
                    got == want && back == -want && eq == (want == 0) && kcmp == want && hash_ok,
                    || {
                        format!(
                            "{} {} vs {}: compare {got} reversed {back} eq {eq} keys {kcmp} hash ok {hash_ok}, want {want}",
                            r[1], r[2], r[3]
                        )
                    },
                );
            }
            other => panic!("unknown row kind {other}"),
        }
    }
    f.finish();
}
