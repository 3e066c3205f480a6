//! Scattered aggregation against one partition's table: the same groups,
//! values and key spellings, over partitions whose morsels interleave.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use quiver_collation::Collation;
use quiver_common::Result;
use quiver_plan::AggFunc;

use super::*;
use crate::context::ScanPosition;
use crate::operators::exec_plan::{collect, BatchStream, ExecutionPlan, Metrics};

/// Batches in partitions, each batch noted as morsel `.0` of scan 0 (or of
/// no scan) when the aggregate takes it, as a scan's would be.
#[derive(Debug)]
struct Morsels {
    parts: Vec<Vec<(u64, RecordBatch)>>,
    schema: SchemaRef,
    positioned: bool,
    metrics: Metrics,
}

impl ExecutionPlan for Morsels {
    fn describe(&self) -> String {
        "Morsels".into()
    }
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
    fn children(&self) -> Vec<Arc<dyn ExecutionPlan>> {
        vec![]
    }
    fn output_partitions(&self) -> usize {
        self.parts.len()
    }
    fn execute(&self, partition: usize, ctx: &Arc<ExecContext>) -> Result<BatchStream> {
        let batches = self.parts[partition].clone();
        let slot = ctx.scan_position.clone().filter(|_| self.positioned);
        Ok(Box::new(batches.into_iter().map(move |(morsel, b)| {
            if let Some(s) = &slot {
                s.set(ScanPosition { scan: 0, morsel });
            }
            Ok(b)
        })))
    }
    fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// A small deterministic generator.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("v", DataType::Int64, true),
    ]))
}

/// `batches` batches of `rows` rows: many integer keys (some NULL), words
/// in several spellings equal under utf8mb4_general_ci, values.
fn data(rng: &mut Rng, batches: usize, rows: usize) -> Vec<RecordBatch> {
    let (cases, pads) = (["w", "W"], ["", " ", "  "]);
    (0..batches)
        .map(|_| {
            let i: Int64Array = (0..rows)
                .map(|_| (rng.below(20) > 0).then(|| rng.below(3000) as i64 - 1000))
                .collect();
            let s: StringArray = (0..rows)
                .map(|_| {
                    (rng.below(30) > 0).then(|| {
                        let w = rng.below(400);
                        let (c, p) = (rng.below(2) as usize, rng.below(3) as usize);
                        format!("{}{w}{}", cases[c], pads[p])
                    })
                })
                .collect();
            let v: Int64Array = (0..rows)
                .map(|_| (rng.below(10) > 0).then(|| rng.below(50) as i64))
                .collect();
            RecordBatch::try_new(schema(), vec![Arc::new(i), Arc::new(s), Arc::new(v)]).unwrap()
        })
        .collect()
}

fn spec(func: AggFunc, arg: Option<PhysicalExpr>, distinct: bool) -> AggregateSpec {
    AggregateSpec {
        func,
        arg,
        distinct,
        output_type: DataType::Int64,
        text: String::new(),
        concat: None,
    }
}

/// The output's rows as sorted text, string bytes and all.
fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut out: Vec<String> = batches
        .iter()
        .flat_map(|b| {
            (0..b.num_rows()).map(move |r| {
                b.columns()
                    .iter()
                    .map(|c| {
                        format!(
                            "{:?}",
                            quiver_common::ScalarValue::from_array(c, r).unwrap()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            })
        })
        .collect();
    out.sort();
    out
}

/// `got` is `want`; else the first row that differs.
fn same(got: &[String], want: &[String], what: &str) {
    if let Some((g, w)) = got.iter().zip(want).find(|(g, w)| g != w) {
        panic!("{what}: got {g}, want {w}");
    }
    assert_eq!(got.len(), want.len(), "{what}: rows");
}

#[test]
fn scattered_groups_match_one_table() {
    let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
    let i = || PhysicalExpr::Column(0);
    let s = || PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
    let v = || PhysicalExpr::Column(2);
    // (keys, their types, aggregates)
    let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>, Vec<AggregateSpec>)> = vec![
        (
            vec![i()],
            vec![DataType::Int64],
            vec![
                spec(AggFunc::CountStar, None, false),
                spec(AggFunc::Sum, Some(v()), false),
                spec(AggFunc::Count, Some(v()), true),
            ],
        ),
        (
            vec![s()],
            vec![DataType::Utf8],
            vec![
                spec(AggFunc::CountStar, None, false),
                spec(AggFunc::Min, Some(v()), false),
            ],
        ),
        (
            vec![i(), s()],
            vec![DataType::Int64, DataType::Utf8],
            vec![spec(AggFunc::Count, Some(v()), false)],
        ),
        (
            vec![v(), i()],
            vec![DataType::Int64, DataType::Int64],
            vec![spec(AggFunc::Max, Some(i()), false)],
        ),
    ];
    let mut rng = Rng(7);
    for positioned in [true, false] {
        let batches = data(&mut rng, 12, 700);
        // Morsels dealt out unevenly to three partitions, as threads take
        // them: morsel m to partition m % 3, except that partition 2 takes
        // the last three.
        // A fourth partition gets nothing.
        let mut parts: Vec<Vec<(u64, RecordBatch)>> = vec![vec![]; 4];
        for (m, b) in batches.iter().enumerate() {
            let p = if m >= 9 { 2 } else { m % 3 };
            parts[p].push((m as u64, b.clone()));
        }
        // Without positions, rows are in partition order.
        let in_order: Vec<RecordBatch> = if positioned {
            batches.clone()
        } else {
            parts.iter().flatten().map(|(_, b)| b.clone()).collect()
        };
        for (shape, (group, types, aggs)) in shapes.iter().enumerate() {
            let mut fields: Vec<Field> = types
                .iter()
                .enumerate()
                .map(|(k, t)| Field::new(format!("k{k}"), t.clone(), true))
                .collect();
            fields.extend(
                (0..aggs.len()).map(|a| Field::new(format!("a{a}"), DataType::Int64, true)),
            );
            let out_schema = Arc::new(Schema::new(fields));
            let run = |parts: Vec<Vec<(u64, RecordBatch)>>, p: Partitioning| {
                let input = Arc::new(Morsels {
                    parts,
                    schema: schema(),
                    positioned,
                    metrics: Metrics::default(),
                });
                let agg: Arc<dyn ExecutionPlan> = Arc::new(
                    AggregateExec::new(
                        input,
                        group.clone(),
                        types.clone(),
                        aggs.clone(),
                        out_schema.clone(),
                        String::new(),
                    )
                    .with_partitioning(p),
                );
                let ctx = Arc::new(ExecContext::new(3, usize::MAX));
                let out = collect(&agg, &ctx).unwrap();
                (rows(&out), agg.describe())
            };
            let one = vec![in_order.iter().map(|b| (0, b.clone())).collect()];
            let (want, _) = run(one, Partitioning::Never);
            let (got, plan) = run(parts.clone(), Partitioning::Always);
            assert!(plan.contains("scattered"), "shape {shape}: {plan}");
            same(
                &got,
                &want,
                &format!("shape {shape}, positioned {positioned}"),
            );
            // Decided after a sample: many groups, or many DISTINCT values for
            // few (shape 0).
            let sampled = Partitioning::Sampled {
                sample_rows: 1000,
                min_groups: 100,
                min_new_share: 0.125,
            };
            let (got, plan) = run(parts.clone(), sampled);
            assert_eq!(
                plan.contains("scattered"),
                shape != 1,
                "shape {shape}: {plan}"
            );
            same(
                &got,
                &want,
                &format!("shape {shape}, positioned {positioned}, sampled"),
            );
            assert!(want.len() > 200, "shape {shape}: {} groups", want.len());
        }
    }
}
