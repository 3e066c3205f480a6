//! Prints the tables and the statements of one case (`cargo run --example
//! show_case -- SEED`), to see what the generator writes.
fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut rng = quiver_fuzz::rng::Rng::new(seed);
    let tables: Vec<_> = (0..1 + rng.below(3))
        .map(|i| quiver_fuzz::schema::table(&mut rng, &format!("t{i}")))
        .collect();
    for t in &tables {
        for s in t.statements() {
            println!("{s};");
        }
    }
    for c in quiver_fuzz::checks(&mut rng, &tables, 8) {
        println!("-- {}", c.oracle());
        for s in c.statements() {
            println!("{s};");
        }
    }
}
