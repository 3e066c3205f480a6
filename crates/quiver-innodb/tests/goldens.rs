//! Every case of tests/innodb/cases.txt: rebuild the damaged file from the
//! committed fixture, check it with the library, and compare with MariaDB
//! innochecksum's recorded verdict (tests/innodb/golden/): exit status, the
//! failing pages in order, the page count of -c, whether it stopped with an
//! error, and the -S text.

use std::path::{Path, PathBuf};

use quiver_innodb::check::Outcome;
use quiver_innodb::damage;
use quiver_innodb::{CheckOptions, Checker, Event, ScanConfig};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What MariaDB's innochecksum did on one case.
#[derive(Debug, Default)]
struct Golden {
    crashed: bool,
    exit: i32,
    fails: Vec<u32>,
    count: Option<u64>,
    errors: Vec<String>,
    all_zero: bool,
    stdout: String,
}

fn read_golden(name: &str) -> Golden {
    let path = repo().join(format!("tests/innodb/golden/{name}.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (head, rest) = text.split_once("--- stdout\n").expect("stdout marker");
    let (stdout, _stderr) = rest.split_once("--- stderr\n").expect("stderr marker");
    let mut g = Golden {
        stdout: stdout.to_string(),
        ..Golden::default()
    };
    for line in head.lines() {
        let (k, v) = line.split_once(' ').unwrap_or((line, ""));
        match k {
            "exit" if v.starts_with("crash") => g.crashed = true,
            "exit" => g.exit = v.parse().unwrap(),
            "fail" => g.fails.push(v.parse().unwrap()),
            "count" => g.count = Some(v.parse().unwrap()),
            "error" => g.errors.push(v.to_string()),
            "all_zero" => g.all_zero = true,
            _ => {}
        }
    }
    g
}

/// innochecksum's options, as far as the cases use them.
struct Args {
    opts: CheckOptions,
    summary: bool,
    leaf: bool,
}

fn parse_args(args: &[String], threads: usize) -> Args {
    let mut o = CheckOptions {
        scan: ScanConfig::with_threads(threads),
        ..CheckOptions::default()
    };
    // Small reads so that multi-chunk paths (reordering, descriptor hand-over)
    // run, and every shape of the pipeline.
    o.scan.chunk_bytes = 3 * 16384;
    o.scan.readers = 1 + threads % 2;
    o.scan.inline = threads == 3;
    let (mut summary, mut leaf) = (false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().unwrap().parse::<u64>().unwrap();
        match a.as_str() {
            "-a" => o.allow_mismatches = val(),
            "-s" => o.start_page = val() as u32,
            "-e" => o.end_page = Some(val() as u32),
            "-p" => {
                let p = val() as u32;
                o.start_page = p;
                o.end_page = Some(p);
            }
            "-c" => o.count_only = true,
            "-S" => summary = true,
            "-f" => leaf = true,
            "-r" => o.skip_free_in_summary = true,
            other => panic!("option {other} not handled by the test"),
        }
    }
    o.summary = summary;
    o.skip_doublewrite = summary;
    Args {
        opts: o,
        summary,
        leaf,
    }
}

fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("quiver-innodb-goldens-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn verdicts_match_mariadb_innochecksum() {
    let cases_text = std::fs::read_to_string(repo().join("tests/innodb/cases.txt")).unwrap();
    let cases = damage::parse_cases(&cases_text).unwrap();
    assert!(cases.len() > 150, "cases.txt looks truncated");
    let dir = scratch_dir();
    let mut fixtures = std::collections::HashMap::new();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let fixture = fixtures.entry(case.fixture.clone()).or_insert_with(|| {
            damage::read_gz(&repo().join(format!("tests/innodb/fixtures/{}.gz", case.fixture)))
                .unwrap()
        });
        let mut data = fixture.clone();
        damage::apply(&mut data, &case.recipe).unwrap();
        let path = dir.join(format!("{}.ibd", case.name));
        std::fs::write(&path, &data).unwrap();
        let golden = read_golden(&case.name);
        // Vary the worker count: the verdict must not depend on it.
        let args = parse_args(&case.args, 1 + i % 3);
        let mut checker = Checker::new(args.opts);
        let mut fails = Vec::new();
        let rep = checker.check_file(&path, &mut |ev| {
            if let Event::Page(p) = ev {
                if p.corruption.is_some() {
                    fails.push(p.page_no);
                }
            }
        });
        let errored = matches!(rep.outcome, Outcome::Error(_));
        let exit = i32::from(errored || matches!(rep.outcome, Outcome::MismatchLimit));
        let mut problems = Vec::new();
        if golden.crashed {
            // MariaDB crashes on these; Quiver must stop with a clear error instead.
            if !errored {
                problems.push(format!("expected an error, got {:?}", rep.outcome));
            }
        } else {
            if exit != golden.exit {
                problems.push(format!("exit {exit}, MariaDB {}", golden.exit));
            }
            if fails != golden.fails {
                problems.push(format!(
                    "failed pages {fails:?}, MariaDB {:?}",
                    golden.fails
                ));
            }
            if errored == golden.errors.is_empty() {
                problems.push(format!(
                    "outcome {:?}, MariaDB errors {:?}",
                    rep.outcome, golden.errors
                ));
            }
            if golden.all_zero != matches!(rep.outcome, Outcome::AllZero) {
                problems.push(format!(
                    "outcome {:?}, MariaDB all-zero {}",
                    rep.outcome, golden.all_zero
                ));
            }
            let count = matches!(rep.outcome, Outcome::Counted).then_some(rep.pages);
            if count != golden.count {
                problems.push(format!("count {count:?}, MariaDB {:?}", golden.count));
            }
            if args.summary && golden.exit == 0 {
                let text = format!(
                    "\nFile::{}.ibd{}",
                    case.name,
                    rep.summary
                        .as_ref()
                        .map(|s| s.render(args.leaf, false, 0))
                        .unwrap_or_default()
                );
                if text != golden.stdout {
                    problems.push(format!(
                        "summary differs:\n{text}\n--- MariaDB:\n{}",
                        golden.stdout
                    ));
                }
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", case.name, problems.join("; ")));
        }
        std::fs::remove_file(&path).unwrap();
    }
    let _ = std::fs::remove_dir(&dir);
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
