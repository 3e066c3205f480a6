//! The fuzzer's fixed budget in the test suite: a fixed range of seeds,
//! each a case of random tables and checks, must give no panic, no
//! internal error and no TLP / NoREC / thread-count violation. A finding is
//! printed as the SQL that reproduces it (shrunk); fix it and add it as a
//! regression test. `quiver-fuzz --minutes N --seed S` runs longer.

/// Seeds 1..=CASES (about 30 s on 2 cores in release).
const CASES: u64 = 1500;

#[test]
fn fixed_seeds_find_nothing() {
    let mut report = quiver_fuzz::report();
    for seed in 1..=CASES {
        quiver_fuzz::run_case(seed, &mut report);
    }
    let checks: usize = report.checks.iter().map(|c| c.1).sum();
    eprintln!(
        "quiver-fuzz: {} cases, {} checks {:?}, {} statements, {} without a verdict, {} findings",
        report.cases,
        checks,
        report.checks,
        report.statements,
        report.inconclusive,
        report.findings.len()
    );
    // The budget must judge something: most checks get a verdict.
    assert!(checks > 30 * CASES as usize, "{checks} checks");
    assert!(
        report.inconclusive * 5 < checks,
        "{} of {checks} without a verdict",
        report.inconclusive
    );
    let scripts: Vec<String> = report.findings.iter().map(|f| f.script()).collect();
    assert!(scripts.is_empty(), "findings:\n{}", scripts.join("\n"));
}
