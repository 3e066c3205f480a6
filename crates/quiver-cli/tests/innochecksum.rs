//! `quiver innochecksum` against MariaDB's innochecksum: every damage case of
//! tests/innodb/cases.txt is rebuilt from its committed fixture (the
//! deterministic recipes of `quiver_innodb::damage`) and run through the binary;
//! the exit status, the "Fail: page::N" lines, "Number of pages", the error lines
//! and the `-S` text must equal the recorded MariaDB answer
//! (tests/innodb/golden/, made by scripts/innodb/make_goldens.py). Also: JSON
//! output, warnings, and bad input (missing file, directory, random bytes, empty
//! file) giving a clear error and never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use quiver_innodb::damage;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn quiver_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quiver"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run quiver")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quiver-innochecksum-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixture(name: &str) -> Vec<u8> {
    damage::read_gz(&repo().join(format!("tests/innodb/fixtures/{name}.gz"))).unwrap()
}

fn fail_pages(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|l| l.strip_prefix("Fail: page::"))
        .map(|r| r.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

fn no_panic(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(o.status.code().is_some(), "killed by a signal: {err}");
}

#[test]
fn every_case_matches_mariadb_innochecksum() {
    let cases = damage::parse_cases(
        &std::fs::read_to_string(repo().join("tests/innodb/cases.txt")).unwrap(),
    )
    .unwrap();
    let dir = temp_dir("cases");
    let mut cache = std::collections::HashMap::new();
    let mut problems = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let base = cache
            .entry(case.fixture.clone())
            .or_insert_with(|| fixture(&case.fixture));
        let mut data = base.clone();
        damage::apply(&mut data, &case.recipe).unwrap();
        let file = format!("{}.ibd", case.name);
        std::fs::write(dir.join(&file), &data).unwrap();
        // Vary the pipeline's shape: the verdict must not depend on it.
        let threads = (1 + i % 3).to_string();
        let readers = (1 + i % 2).to_string();
        let inline = if i % 4 >= 2 { "true" } else { "false" };
        let mut args = vec![
            "--threads",
            &threads,
            "innochecksum",
            "--read-size-kib",
            "48",
            "--readers",
            &readers,
            "--inline",
            inline,
        ];
        args.extend(case.args.iter().map(String::as_str));
        args.push(&file);
        let o = quiver_in(&dir, &args);
        no_panic(&o);
        std::fs::remove_file(dir.join(&file)).unwrap();

        let golden =
            std::fs::read_to_string(repo().join(format!("tests/innodb/golden/{}.txt", case.name)))
                .unwrap();
        let (head, rest) = golden.split_once("--- stdout\n").unwrap();
        let (g_stdout, g_stderr) = rest.split_once("--- stderr\n").unwrap();
        let exit = head.lines().find_map(|l| l.strip_prefix("exit ")).unwrap();
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        let code = o.status.code().unwrap();
        let mut bad = Vec::new();
        if exit.starts_with("crash") {
            // MariaDB's innochecksum crashes here; Quiver explains and exits 1.
            if code != 1 || !err.contains("Error") {
                bad.push(format!("expected a clear error, got exit {code}: {err}"));
            }
        } else {
            if code.to_string() != exit {
                bad.push(format!("exit {code}, MariaDB {exit}"));
            }
            if fail_pages(&err) != fail_pages(g_stderr) {
                bad.push(format!(
                    "Fail lines {:?}, MariaDB {:?}",
                    fail_pages(&err),
                    fail_pages(g_stderr)
                ));
            }
            let errors = |t: &str| t.lines().filter(|l| l.starts_with("Error")).count() > 0;
            if errors(&err) != errors(g_stderr) {
                bad.push(format!("errors differ: {err:?} vs MariaDB {g_stderr:?}"));
            }
            let exceeded = |t: &str| t.lines().filter(|l| l.starts_with("Exceeded")).count();
            if exceeded(&err) != exceeded(g_stderr) {
                bad.push("'Exceeded the maximum' lines differ".into());
            }
            // stdout: the -S table and "Number of pages" verbatim, nothing else.
            if out != g_stdout {
                bad.push(format!("stdout:\n{out}\n--- MariaDB:\n{g_stdout}"));
            }
        }
        if !bad.is_empty() {
            problems.push(format!("{}: {}", case.name, bad.join("; ")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        problems.is_empty(),
        "{} cases differ:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Minimal JSON syntax check (objects, arrays, strings, numbers, literals).
fn json_ok(s: &str) -> bool {
    fn value(b: &[u8], i: &mut usize) -> bool {
        ws(b, i);
        match b.get(*i) {
            Some(b'{') => {
                *i += 1;
                ws(b, i);
                if b.get(*i) == Some(&b'}') {
                    *i += 1;
                    return true;
                }
                loop {
                    ws(b, i);
                    if !string(b, i) {
                        return false;
                    }
                    ws(b, i);
                    if b.get(*i) != Some(&b':') {
                        return false;
                    }
                    *i += 1;
                    if !value(b, i) {
                        return false;
                    }
                    ws(b, i);
                    match b.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b'}') => {
                            *i += 1;
                            return true;
                        }
                        _ => return false,
                    }
                }
            }
            Some(b'[') => {
                *i += 1;
                ws(b, i);
                if b.get(*i) == Some(&b']') {
                    *i += 1;
                    return true;
                }
                loop {
                    if !value(b, i) {
                        return false;
                    }
                    ws(b, i);
                    match b.get(*i) {
                        Some(b',') => *i += 1,
                        Some(b']') => {
                            *i += 1;
                            return true;
                        }
                        _ => return false,
                    }
                }
            }
            Some(b'"') => string(b, i),
            Some(c) if c.is_ascii_digit() || *c == b'-' => {
                *i += 1;
                while b
                    .get(*i)
                    .is_some_and(|c| c.is_ascii_digit() || b".eE+-".contains(c))
                {
                    *i += 1;
                }
                true
            }
            _ => ["true", "false", "null"].iter().any(|lit| {
                if b[*i..].starts_with(lit.as_bytes()) {
                    *i += lit.len();
                    true
                } else {
                    false
                }
            }),
        }
    }
    fn ws(b: &[u8], i: &mut usize) {
        while b.get(*i).is_some_and(|c| c.is_ascii_whitespace()) {
            *i += 1;
        }
    }
    fn string(b: &[u8], i: &mut usize) -> bool {
        if b.get(*i) != Some(&b'"') {
            return false;
        }
        *i += 1;
        while let Some(&c) = b.get(*i) {
            *i += 1;
            match c {
                b'\\' => *i += 1,
                b'"' => return true,
                c if c < 0x20 => return false,
                _ => {}
            }
        }
        false
    }
    let b = s.trim().as_bytes();
    let mut i = 0;
    value(b, &mut i) && i == b.len()
}

#[test]
fn json_output_is_machine_readable() {
    let dir = temp_dir("json");
    let mut data = fixture("fcrc32_16k.ibd");
    damage::apply(
        &mut data,
        &damage::parse_recipe("xor:4:200:01,zero:5,garbage:9:3").unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("t.ibd"), &data).unwrap();
    std::fs::write(dir.join("ok.ibd"), fixture("crc32_16k.ibd")).unwrap();
    let o = quiver_in(
        &dir,
        &[
            "innochecksum",
            "--format",
            "json",
            "-a",
            "5",
            "-S",
            "t.ibd",
            "ok.ibd",
            "missing.ibd",
        ],
    );
    no_panic(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(json_ok(&out), "not JSON: {out}");
    assert!(
        o.stderr.is_empty(),
        "json mode keeps stderr quiet: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "the missing file is an error");
    for needle in [
        "\"file\":\"t.ibd\"",
        "\"page\":4",
        "\"page\":9",
        "full_crc32 checksum mismatch",
        "\"warning\":\"all-zero page inside the used part",
        "\"failed\":2",
        "\"file\":\"ok.ibd\"",
        "\"format\":\"legacy\"",
        "\"outcome\":\"error\"",
        "\"Index page\":",
        "\"mismatches\":2",
        "\"exit_code\":1",
    ] {
        assert!(out.contains(needle), "{needle} missing in {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn warnings_do_not_fail_and_reasons_are_given() {
    let dir = temp_dir("warn");
    let mut data = fixture("fcrc32_16k.ibd");
    damage::apply(&mut data, &damage::parse_recipe("zero:5").unwrap()).unwrap();
    std::fs::write(dir.join("z.ibd"), &data).unwrap();
    let o = quiver_in(&dir, &["innochecksum", "-v", "z.ibd"]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("Warning: page::5 all-zero page inside the used part"),
        "{err}"
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("1 warnings") && out.contains("full_crc32, 16K pages"),
        "{out}"
    );

    // A legacy page with a valid `innodb` checksum fails (as in MariaDB 10.11)
    // with that fact named, and passes with -C any.
    let mut data = fixture("crc32_16k.ibd");
    damage::apply(
        &mut data,
        &damage::parse_recipe("restamp:6:innodb").unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("i.ibd"), &data).unwrap();
    let o = quiver_in(&dir, &["innochecksum", "i.ibd"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("valid `innodb` checksum"));
    let o = quiver_in(&dir, &["innochecksum", "-C", "any", "i.ibd"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // -C innodb: every page must carry it.
    let all: Vec<String> = (0..10).map(|p| format!("restamp:{p}:innodb")).collect();
    let mut data = fixture("crc32_16k.ibd");
    damage::apply(&mut data, &damage::parse_recipe(&all.join(",")).unwrap()).unwrap();
    std::fs::write(dir.join("all.ibd"), &data).unwrap();
    let o = quiver_in(
        &dir,
        &["innochecksum", "-C", "innodb", "-e", "9", "all.ibd"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = quiver_in(&dir, &["innochecksum", "-C", "innodb", "i.ibd"]);
    assert_eq!(o.status.code(), Some(1), "crc32 pages fail under -C innodb");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_gives_a_clear_error() {
    let dir = temp_dir("bad");
    std::fs::create_dir_all(dir.join("adir")).unwrap();
    std::fs::write(dir.join("empty.ibd"), b"").unwrap();
    // Random bytes of several sizes (a 32-bit LCG).
    let mut x = 12345u32;
    for (name, len) in [("r1.ibd", 1000), ("r2.ibd", 70_000), ("r3.ibd", 1 << 20)] {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect();
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    // Random bytes that still say "page 0" with flags of a 16K full_crc32 space.
    let mut fake = vec![0x5Au8; 5 * 16384];
    fake[4..8].copy_from_slice(&0u32.to_be_bytes());
    fake[54..58].copy_from_slice(&0x15u32.to_be_bytes());
    std::fs::write(dir.join("fake.ibd"), fake).unwrap();
    for (file, needle) in [
        ("missing.ibd", "cannot be found"),
        ("adir", "is a directory"),
        ("empty.ibd", "minimum page size"),
        ("r1.ibd", "Error"),
        ("r2.ibd", "Error"),
        ("r3.ibd", "Error"),
        ("fake.ibd", "Page 0 checksum mismatch"),
    ] {
        for fmt in ["text", "json"] {
            let o = quiver_in(&dir, &["innochecksum", "--format", fmt, file]);
            no_panic(&o);
            assert_eq!(o.status.code(), Some(1), "{file}");
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            if fmt == "json" {
                assert!(
                    json_ok(&text) && text.contains("\"outcome\":\"error\""),
                    "{file}: {text}"
                );
            } else {
                assert!(text.contains(needle), "{file}: {text}");
            }
        }
    }
    // Unsupported or contradictory options are refused, not ignored.
    for args in [
        &["-w", "empty.ibd"][..],
        &["-n", "empty.ibd"],
        &["-C", "md5", "empty.ibd"],
    ] {
        let mut a = vec!["innochecksum"];
        a.extend_from_slice(args);
        let o = quiver_in(&dir, &a);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn log_and_page_type_dump_are_written() {
    let dir = temp_dir("log");
    std::fs::write(dir.join("t.ibd"), fixture("fcrc32_16k.ibd")).unwrap();
    let o = quiver_in(
        &dir,
        &["innochecksum", "-l", "log.txt", "-D", "dump.txt", "t.ibd"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap();
    assert!(
        log.starts_with("InnoDB File Checksum Utility.\nFilename = t.ibd\n"),
        "{log}"
    );
    assert!(
        log.contains("page::4; log sequence number:first = "),
        "{log}"
    );
    let dump = std::fs::read_to_string(dir.join("dump.txt")).unwrap();
    assert!(dump.contains("#::0\t\t|\t\tFile Space Header"), "{dump}");
    assert!(dump.contains("Index page\t\t\t|\tindex id="), "{dump}");
    let _ = std::fs::remove_dir_all(&dir);
}
