//! Tests of aggregation: few-group sums, every accumulator, tuples in
//! COUNT(DISTINCT a, b), first-seen representatives, binary strings.

use super::*;

mod few_group_tests {
    use super::*;

    #[test]
    fn banked_sums_equal_a_plain_loop() {
        let mut state = 11u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 17
        };
        for round in 0..40 {
            let groups = 1 + (next() % FEW_GROUPS as u64) as usize;
            let rows = (next() % 1000) as usize + round;
            let ids: Vec<u32> = (0..rows).map(|_| (next() % groups as u64) as u32).collect();
            let v: Vec<i128> = (0..rows)
                .map(|_| (next() as i128 - (1 << 46)) * (next() as i128))
                .collect();
            let mut want = (vec![7i128; groups], vec![false; groups], vec![3i64; groups]);
            for (g, x) in ids.iter().zip(&v) {
                let g = *g as usize;
                want.0[g] = want.0[g].wrapping_add(*x);
                want.1[g] = true;
                want.2[g] += 1;
            }
            let mut got = (vec![7i128; groups], vec![false; groups], vec![3i64; groups]);
            sum_few_groups(&ids, &v, &mut got.0, &mut got.1, Some(&mut got.2));
            assert_eq!(got, want, "round {round}");
        }
    }
}

mod tests {
    use super::*;
    use arrow_schema::{Field, Schema, TimeUnit};

    /// A fixed-seed xorshift generator: deterministic, no dependencies.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x % n
        }
    }

    fn specs() -> Vec<AggregateSpec> {
        let spec = |func, arg: Option<PhysicalExpr>, t: DataType| AggregateSpec {
            func,
            arg,
            distinct: false,
            output_type: t,
            text: String::new(),
            concat: None,
        };
        vec![
            spec(AggFunc::CountStar, None, DataType::Int64),
            spec(
                AggFunc::Sum,
                Some(PhysicalExpr::Column(1)),
                DataType::Decimal128(38, 0),
            ),
            spec(AggFunc::Max, Some(PhysicalExpr::Column(1)), DataType::Int64),
        ]
    }

    /// Aggregates `parts` (one table per partition, then merged), on the
    /// integer-key path or, with `general`, on the row-hashing path.
    fn aggregate(t: &DataType, parts: &[Vec<RecordBatch>], general: bool) -> RecordBatch {
        let aggs = specs();
        let group = vec![PhysicalExpr::Column(0)];
        let mut tables = parts.iter().map(|batches| {
            let mut table = GroupTable::new(std::slice::from_ref(t), &aggs);
            if general {
                let sample = KeyColumn::new(batches[0].column(0)).unwrap();
                assert!(matches!(sample.values, KeyValues::Int(_)));
                table.keys = Some(GroupKeys::new(&[sample], vec![t.clone()]));
            }
            for b in batches {
                table.update(b, &group, &aggs).unwrap();
            }
            assert_eq!(table.ints.is_some(), !general);
            table
        });
        let mut total = tables.next().unwrap();
        for t in tables {
            total.merge(t).unwrap();
        }
        let mut fields = vec![Field::new("k", t.clone(), true)];
        for (i, a) in aggs.iter().enumerate() {
            fields.push(Field::new(format!("a{i}"), a.output_type.clone(), true));
        }
        total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap()
    }

    /// `keys` as an array of type `t`, values wrapped to its range.
    fn key_array(t: &DataType, keys: Vec<Option<i64>>) -> ArrayRef {
        use arrow_array::*;
        let it = keys.into_iter();
        match t {
            DataType::Int8 => Arc::new(it.map(|k| k.map(|v| v as i8)).collect::<Int8Array>()),
            DataType::Int16 => Arc::new(it.map(|k| k.map(|v| v as i16)).collect::<Int16Array>()),
            DataType::Int32 => Arc::new(it.map(|k| k.map(|v| v as i32)).collect::<Int32Array>()),
            DataType::Int64 => Arc::new(it.collect::<Int64Array>()),
            DataType::UInt8 => Arc::new(it.map(|k| k.map(|v| v as u8)).collect::<UInt8Array>()),
            DataType::UInt32 => Arc::new(it.map(|k| k.map(|v| v as u32)).collect::<UInt32Array>()),
            DataType::Date32 => Arc::new(it.map(|k| k.map(|v| v as i32)).collect::<Date32Array>()),
            DataType::Timestamp(..) => Arc::new(it.collect::<TimestampMicrosecondArray>()),
            DataType::Boolean => {
                Arc::new(it.map(|k| k.map(|v| v & 1 == 1)).collect::<BooleanArray>())
            }
            _ => unreachable!("{t}"),
        }
    }

    #[test]
    fn exact_sums_spill_past_i128_into_i256() {
        // Group 0 sums values near i128::MAX (overflowing several times),
        // group 1 small ones: the totals match an i256 reference.
        let (mut sums, mut wide) = (vec![0i128; 2], vec![]);
        let mut want = [i256::ZERO; 2];
        for k in 0..100i128 {
            let x = i128::MAX / 3 - k;
            let y = if k % 2 == 0 { -k } else { k * 7 };
            add_exact(&mut sums, &mut wide, 0, x);
            add_exact(&mut sums, &mut wide, 1, y);
            want[0] = want[0].wrapping_add(i256::from_i128(x));
            want[1] = want[1].wrapping_add(i256::from_i128(y));
        }
        assert!(!wide.is_empty());
        for g in 0..2 {
            assert_eq!(wide[g].wrapping_add(i256::from_i128(sums[g])), want[g]);
        }
        let out = wide_decimal_out(
            vec![want[0], want[1]],
            vec![true, true],
            0,
            &DataType::Decimal256(60, 2),
        )
        .unwrap();
        let d = out.as_primitive::<Decimal256Type>();
        assert_eq!(d.value(1), want[1].wrapping_mul(i256::from_i128(100)));
        assert_eq!(d.value(0), want[0].wrapping_mul(i256::from_i128(100)));
    }

    #[test]
    fn integer_key_path_matches_the_general_path() {
        let types = [
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::UInt8,
            DataType::UInt32,
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Boolean,
        ];
        let mut rng = Rng(0x853c_49e6_748f_ea9b);
        for t in &types {
            let parts: Vec<Vec<RecordBatch>> = (0..3)
                .map(|_| {
                    (0..4)
                        .map(|_| {
                            let rows = 1 + rng.below(5000) as usize;
                            let domain = 1 + rng.below(3000);
                            let keys: Vec<Option<i64>> = (0..rows)
                                .map(|_| {
                                    let v = match rng.below(20) {
                                        0 => i64::MIN,
                                        1 => i64::MAX,
                                        _ => rng.below(domain) as i64 - domain as i64 / 2,
                                    };
                                    (rng.below(10) != 0).then_some(v)
                                })
                                .collect();
                            let k = key_array(t, keys);
                            let v: ArrayRef = Arc::new(arrow_array::Int64Array::from_iter_values(
                                (0..rows).map(|_| rng.below(1000) as i64),
                            ));
                            RecordBatch::try_from_iter([("k", k), ("v", v)]).unwrap()
                        })
                        .collect()
                })
                .collect();
            let fast = aggregate(t, &parts, false);
            let slow = aggregate(t, &parts, true);
            assert_eq!(fast.column(0).data_type(), t);
            assert_eq!(fast, slow, "GROUP BY key of type {t}");
            let rows: usize = parts.iter().flatten().map(|b| b.num_rows()).sum();
            let counted: i64 = fast
                .column(1)
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .sum();
            assert_eq!(counted as usize, rows);
        }
    }

    fn p_index(batches: &[RecordBatch], parts: &[Vec<RecordBatch>]) -> usize {
        parts
            .iter()
            .position(|p| std::ptr::eq(p.as_slice(), batches))
            .unwrap()
    }

    /// Two integer keys: the packed path (and its move to the general table
    /// when a batch does not pack) gives what the general path gives.
    #[test]
    fn packed_key_pairs_match_the_general_path() {
        let aggs = specs();
        let group = vec![PhysicalExpr::Column(0), PhysicalExpr::Column(1)];
        let types = [DataType::Int64, DataType::Int32];
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Int32, true),
            Field::new("v", DataType::Int64, true),
        ]));
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for round in 0..40 {
            // Some rounds end with a batch that cannot pack (NULL, negative, huge).
            let spoil = round % 4;
            let parts: Vec<Vec<RecordBatch>> = (0..3)
                .map(|p| {
                    (0..3)
                        .map(|b| {
                            let rows = 1 + rng.below(3000) as usize;
                            let mut a: Vec<Option<i64>> =
                                (0..rows).map(|_| Some(rng.below(500) as i64)).collect();
                            let bs: Vec<Option<i32>> =
                                (0..rows).map(|_| Some(rng.below(50) as i32)).collect();
                            if b == 2 && p == 1 {
                                match spoil {
                                    1 => a[0] = None,
                                    2 => a[0] = Some(-7),
                                    3 => a[0] = Some(1 << 40),
                                    _ => {}
                                }
                            }
                            let v: Vec<i64> = (0..rows).map(|_| rng.below(1000) as i64).collect();
                            RecordBatch::try_new(
                                schema.clone(),
                                vec![
                                    Arc::new(arrow_array::Int64Array::from(a)),
                                    Arc::new(arrow_array::Int32Array::from(bs)),
                                    Arc::new(arrow_array::Int64Array::from(v)),
                                ],
                            )
                            .unwrap()
                        })
                        .collect()
                })
                .collect();
            let run = |general: bool| {
                let aggs = specs()
                    .into_iter()
                    .map(|mut a| {
                        a.arg = a.arg.map(|_| PhysicalExpr::Column(2));
                        a
                    })
                    .collect::<Vec<_>>();
                let mut tables = parts.iter().map(|batches| {
                    let mut table = GroupTable::new(&types, &aggs);
                    if general {
                        let sample: Vec<KeyColumn> = (0..2)
                            .map(|c| KeyColumn::new(batches[0].column(c)).unwrap())
                            .collect();
                        table.keys = Some(GroupKeys::new(&sample, types.to_vec()));
                    }
                    for b in batches {
                        table.update(b, &group, &aggs).unwrap();
                    }
                    // Clean pairs stay packed; a spoiled partition moved to the general table.
                    assert_eq!(
                        table.packed.is_some(),
                        !general && (spoil == 0 || p_index(batches, &parts) != 1)
                    );
                    table
                });
                let mut total = tables.next().unwrap();
                for t in tables {
                    total.merge(t).unwrap();
                }
                let mut fields = vec![
                    Field::new("a", DataType::Int64, true),
                    Field::new("b", DataType::Int32, true),
                ];
                for (i, a) in aggs.iter().enumerate() {
                    fields.push(Field::new(format!("x{i}"), a.output_type.clone(), true));
                }
                let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
                // Group order may differ between paths: compare as sorted rows.
                let mut rows: Vec<String> = (0..out.num_rows())
                    .map(|r| {
                        out.columns()
                            .iter()
                            .map(|c| {
                                quiver_common::ScalarValue::from_array(c, r)
                                    .unwrap()
                                    .to_string()
                            })
                            .collect::<Vec<_>>()
                            .join("|")
                    })
                    .collect();
                rows.sort();
                rows
            };
            assert_eq!(run(false), run(true), "round {round}");
        }
        let _ = aggs;
    }

    /// Rows of `out` as sorted text: group order may differ between paths.
    fn sorted_rows(out: &RecordBatch) -> Vec<String> {
        let mut rows: Vec<String> = (0..out.num_rows())
            .map(|r| {
                out.columns()
                    .iter()
                    .map(|c| {
                        let v = quiver_common::ScalarValue::from_array(c, r).unwrap();
                        format!("{v:?}")
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        rows.sort();
        rows
    }

    /// String keys (alone, in pairs, with an integer): the packed path, and
    /// its move to the general table when a batch holds a value that does
    /// not pack (too long, a trailing space, NULL in a pair), give what the
    /// general path gives, including the first-seen spelling of PAD SPACE
    /// equal keys.
    #[test]
    fn packed_string_keys_match_the_general_path() {
        let words = ["A", "R", "N", "MAIL", "SHIP", "REG AIR", "", "é", "FOB"];
        let shapes: [&[DataType]; 3] = [
            &[DataType::Utf8],
            &[DataType::Utf8, DataType::Utf8],
            &[DataType::Int32, DataType::Utf8],
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (shape, types) in shapes.iter().enumerate() {
            for round in 0..24 {
                let spoil = round % 4;
                let short = shape > 0;
                let parts: Vec<Vec<RecordBatch>> = (0..3)
                    .map(|p| {
                        (0..3)
                            .map(|b| {
                                let rows = 1 + rng.below(2000) as usize;
                                let mut cols: Vec<ArrayRef> = types
                                    .iter()
                                    .map(|t| -> ArrayRef {
                                        if t == &DataType::Int32 {
                                            Arc::new(arrow_array::Int32Array::from_iter_values(
                                                (0..rows).map(|_| rng.below(40) as i32),
                                            ))
                                        } else {
                                            let mut v: Vec<Option<String>> = (0..rows)
                                                .map(|_| {
                                                    let w = words
                                                        [rng.below(words.len() as u64) as usize];
                                                    let w: String = if short {
                                                        w.chars().take(1).collect()
                                                    } else {
                                                        w.to_string()
                                                    };
                                                    (shape > 0 || rng.below(30) != 0).then_some(w)
                                                })
                                                .collect();
                                            // A trailing space spoils a batch after the
                                            // first (partition 1) or the first (partition 2).
                                            if (b == 2 && p == 1)
                                                || (b == 0 && p == 2 && spoil == 1)
                                            {
                                                match spoil {
                                                    1 if short => v[0] = Some("A ".into()),
                                                    1 => v[0] = Some("MAIL ".into()),
                                                    2 => v[0] = Some("TRUCKING".into()),
                                                    3 => v[0] = None,
                                                    _ => {}
                                                }
                                            }
                                            Arc::new(arrow_array::StringArray::from(v))
                                        }
                                    })
                                    .collect();
                                cols.push(Arc::new(arrow_array::Int64Array::from_iter_values(
                                    (0..rows).map(|_| rng.below(1000) as i64),
                                )));
                                let names = ["a", "b", "c"];
                                RecordBatch::try_from_iter(
                                    cols.into_iter().enumerate().map(|(i, c)| (names[i], c)),
                                )
                                .unwrap()
                            })
                            .collect()
                    })
                    .collect();
                let n = types.len();
                let group: Vec<PhysicalExpr> = (0..n).map(PhysicalExpr::Column).collect();
                let aggs = specs()
                    .into_iter()
                    .map(|mut a| {
                        a.arg = a.arg.map(|_| PhysicalExpr::Column(n));
                        a
                    })
                    .collect::<Vec<_>>();
                let run = |general: bool| {
                    let mut packs = vec![];
                    let mut tables = parts
                        .iter()
                        .map(|batches| {
                            let mut table = GroupTable::new(types, &aggs);
                            if general {
                                let sample: Vec<KeyColumn> = (0..n)
                                    .map(|c| KeyColumn::new(batches[0].column(c)).unwrap())
                                    .collect();
                                table.keys = Some(GroupKeys::new(&sample, types.to_vec()));
                            }
                            for b in batches {
                                table.update(b, &group, &aggs).unwrap();
                            }
                            packs.push(table.packed.is_some());
                            table
                        })
                        .collect::<Vec<_>>()
                        .into_iter();
                    let mut total = tables.next().unwrap();
                    for t in tables {
                        total.merge(t).unwrap();
                    }
                    let mut fields: Vec<Field> = types
                        .iter()
                        .enumerate()
                        .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                        .collect();
                    for (i, a) in aggs.iter().enumerate() {
                        fields.push(Field::new(format!("x{i}"), a.output_type.clone(), true));
                    }
                    let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
                    (sorted_rows(&out), packs)
                };
                let (fast, packs) = run(false);
                let (slow, _) = run(true);
                assert_eq!(fast, slow, "shape {shape} round {round}");
                // A NULL string alone still packs; everything else spoils partition 1,
                // and a trailing space partition 2 too.
                let spoiled = spoil == 1 || spoil == 2 || (spoil == 3 && shape > 0);
                assert_eq!(
                    packs,
                    vec![true, !spoiled, spoil != 1],
                    "shape {shape} round {round}"
                );
            }
        }
    }
}

mod tuple_tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{Field, Schema};

    /// COUNT(DISTINCT a, b) as the binder builds it: each part compared
    /// under its own collation, NULL parts skipped.
    #[test]
    fn count_distinct_tuples_compare_parts_under_their_collations() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let a = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let b = PhysicalExpr::Column(2);
        let len = |p: &PhysicalExpr| PhysicalExpr::Cast {
            expr: Box::new(PhysicalExpr::Function {
                func: ScalarFunc::CharLength,
                args: vec![p.clone()],
                data_type: DataType::Int64,
            }),
            to: DataType::Utf8,
        };
        let is_null = |p: &PhysicalExpr| PhysicalExpr::Unary {
            op: quiver_plan::UnaryOp::IsNull,
            expr: Box::new(p.clone()),
        };
        let key = PhysicalExpr::Case {
            branches: vec![(
                PhysicalExpr::Binary {
                    op: quiver_plan::BinaryOp::Or,
                    left: Box::new(is_null(&a)),
                    right: Box::new(is_null(&b)),
                    data_type: DataType::Boolean,
                    collation: quiver_plan::default_collation(),
                },
                PhysicalExpr::Literal(ScalarValue::Null, DataType::Utf8),
            )],
            else_expr: Some(Box::new(PhysicalExpr::Function {
                func: ScalarFunc::Concat,
                args: vec![
                    len(&a),
                    PhysicalExpr::Literal(ScalarValue::Utf8(":".into()), DataType::Utf8),
                    a.clone(),
                    b.clone(),
                ],
                data_type: DataType::Utf8,
            })),
            data_type: DataType::Utf8,
        };
        assert_eq!(tuple_parts(&key).map(|p| p.len()), Some(2));
        let spec = AggregateSpec {
            func: AggFunc::Count,
            arg: Some(key),
            distinct: true,
            output_type: DataType::Int64,
            text: String::new(),
            concat: None,
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("a", DataType::Utf8, true),
            Field::new("b", DataType::Utf8, true),
        ]));
        let rows = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![0; 8])),
                Arc::new(StringArray::from(vec![
                    Some("a"),
                    Some("A"),
                    Some("a "),
                    Some("é"),
                    Some("a"),
                    None,
                    Some("ab"),
                    Some("a"),
                ])),
                Arc::new(StringArray::from(vec![
                    Some("x"),
                    Some("x"),
                    Some("x  "),
                    Some("x"),
                    Some("X"),
                    Some("x"),
                    Some("c"),
                    Some("bc"),
                ])),
            ],
        )
        .unwrap();
        let aggs = vec![spec];
        let mut t = GroupTable::new(&[], &aggs);
        t.update(&rows, &[], &aggs).unwrap();
        let out = t.accs.pop().unwrap().finish(&DataType::Int64, 1).unwrap();
        // (a, x) thrice, (é, x), (a, X), (ab, c), (a, bc); NULL skipped.
        assert_eq!(out.as_primitive::<Int64Type>().value(0), 5);
    }
}

mod first_seen_tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{Field, Schema};

    fn batch(ids: &[i64], strs: &[&str]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(ids.to_vec())),
                Arc::new(StringArray::from(strs.to_vec())),
            ],
        )
        .unwrap()
    }

    fn strings(a: &ArrayRef) -> Vec<String> {
        a.as_string::<i32>()
            .iter()
            .map(|s| s.unwrap_or("NULL").to_string())
            .collect()
    }

    /// Two partitions of one scan that took its morsels out of order: the
    /// first partition morsel 1, the second morsel 0. Keys and tied MINs
    /// show the spelling of morsel 0's rows.
    #[test]
    fn merge_keeps_the_spelling_of_the_earliest_row() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let s = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let min = AggregateSpec {
            func: AggFunc::Min,
            arg: Some(s.clone()),
            distinct: false,
            output_type: DataType::Utf8,
            text: String::new(),
            concat: None,
        };
        // One string key (StrGroupMap), a string and an integer (the
        // general table), a default-collation key whose spellings differ in
        // trailing spaces (packed keys that stop packing).
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>)> = vec![
            (vec![s.clone()], vec![DataType::Utf8]),
            (
                vec![s.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Utf8, DataType::Int64],
            ),
            (vec![PhysicalExpr::Column(1)], vec![DataType::Utf8]),
        ];
        for (shape, (group, types)) in shapes.into_iter().enumerate() {
            let aggs = vec![min.clone()];
            let (early, late) = if shape == 2 {
                (
                    batch(&[0, 0, 0], &["ab", "cd ", "x"]),
                    batch(&[0, 0, 0, 0], &["x", "ab  ", "cd", "e"]),
                )
            } else {
                (
                    batch(&[0, 0, 0], &["ab", "Cd ", "x"]),
                    batch(&[0, 0, 0, 0], &["x", "AB ", "cd", "e"]),
                )
            };
            let run = |parts: Vec<(u64, &RecordBatch)>| {
                let mut tables = vec![];
                for (p, (morsel, b)) in parts.into_iter().enumerate() {
                    let mut t = GroupTable::tracking(&types, &aggs, true, true);
                    let at = t.batch_position(Some(ScanPosition { scan: 7, morsel }));
                    t.update_at(b, &group, &aggs, at).unwrap();
                    tables.push((p, t));
                }
                let classes = order_classes(tables.iter().map(|(_, t)| t.seen.scan));
                let mut it = tables.into_iter().zip(classes);
                let ((_, mut total), class) = it.next().unwrap();
                total.set_class(class);
                for ((_, t), class) in it {
                    total.merge_in(t, class, true).unwrap();
                }
                let mut fields: Vec<Field> = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                    .collect();
                fields.push(Field::new("m", DataType::Utf8, true));
                let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
                let keys = strings(out.column(0));
                let mins = strings(out.column(out.num_columns() - 1));
                let mut rows: Vec<(String, String)> = keys.into_iter().zip(mins).collect();
                rows.sort();
                rows
            };
            let in_order = run(vec![(0, &early), (1, &late)]);
            let swapped = run(vec![(1, &late), (0, &early)]);
            assert_eq!(in_order, swapped, "shape {shape}");
            let want: Vec<(String, String)> = if shape == 2 {
                vec![("ab", "ab"), ("cd ", "cd "), ("e", "e"), ("x", "x")]
            } else {
                vec![("Cd ", "Cd "), ("ab", "ab"), ("e", "e"), ("x", "x")]
            }
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
            assert_eq!(in_order, want, "shape {shape}");
        }
    }

    /// Three partitions: the key a group shows is that of the earliest of
    /// the three, also when a later merge brings back our own spelling.
    #[test]
    fn three_partitions_show_the_earliest_spelling() {
        let ci = Collation::from_name("utf8mb4_general_ci").unwrap();
        let s = PhysicalExpr::Collate(Box::new(PhysicalExpr::Column(1)), ci);
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>)> = vec![
            (vec![s.clone()], vec![DataType::Utf8]),
            (
                vec![s.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Utf8, DataType::Int64],
            ),
        ];
        // (morsel, spelling) of each partition; the earliest wins.
        let cases: Vec<(Vec<(u64, &str)>, &str)> = vec![
            (vec![(5, "a"), (2, "A"), (1, "a")], "a"),
            (vec![(5, "a"), (2, "A"), (1, "a ")], "a "),
            (vec![(5, "a"), (2, "A"), (3, "a ")], "A"),
            (vec![(1, "a"), (2, "A"), (3, "a ")], "a"),
            (vec![(3, "a"), (2, "a"), (1, "A")], "A"),
        ];
        for (shape, (group, types)) in shapes.iter().enumerate() {
            for (parts, want) in &cases {
                let aggs: Vec<AggregateSpec> = vec![];
                let mut tables = vec![];
                for (morsel, v) in parts {
                    let mut t = GroupTable::tracking(types, &aggs, true, false);
                    let at = t.batch_position(Some(ScanPosition {
                        scan: 7,
                        morsel: *morsel,
                    }));
                    t.update_at(&batch(&[0, 0], &[v, "b"]), group, &aggs, at)
                        .unwrap();
                    tables.push(t);
                }
                let classes = order_classes(tables.iter().map(|t| t.seen.scan));
                let n = tables.len();
                let mut it = tables.into_iter().zip(classes).enumerate();
                let (_, (mut total, class)) = it.next().unwrap();
                total.set_class(class);
                for (i, (t, class)) in it {
                    total.merge_in(t, class, i + 1 == n).unwrap();
                }
                let keys = total.shown_keys().unwrap().unwrap();
                assert_eq!(
                    strings(&keys[0]),
                    vec![want.to_string(), "b".to_string()],
                    "shape {shape} {parts:?}"
                );
            }
        }
    }

    #[test]
    fn patched_strings_keep_the_other_rows() {
        let a = StringArray::from(vec![
            Some("zz"),
            Some("ab"),
            None,
            Some(""),
            Some("cd "),
            Some("e"),
        ]);
        let a = a.slice(1, 5);
        let out = patch_strings(&a, &[(0, b"AB  ".as_slice()), (3, b"CD"), (4, b"")]).unwrap();
        let got: Vec<Option<&str>> = out.iter().collect();
        assert_eq!(
            got,
            vec![Some("AB  "), None, Some(""), Some("CD"), Some("")]
        );
        let out = patch_strings(&a, &[(2, b"x".as_slice())]).unwrap();
        let got: Vec<Option<&str>> = out.iter().collect();
        assert_eq!(
            got,
            vec![Some("ab"), None, Some("x"), Some("cd "), Some("e")]
        );
    }

    #[test]
    fn partitions_of_one_scan_share_a_class() {
        let scans = [
            SeenIn::Scan(7),
            SeenIn::Scan(7),
            SeenIn::Scan(9),
            SeenIn::Unknown,
            SeenIn::Scan(9),
            SeenIn::Nothing,
        ];
        let classes: Vec<Position> = order_classes(scans.into_iter())
            .into_iter()
            .map(|c| c >> CLASS_SHIFT)
            .collect();
        assert_eq!(classes, vec![0, 0, 2, 3, 2, 5]);
    }
}

mod binary_tests {
    use super::*;
    use arrow_array::{BinaryArray, Int64Array};
    use arrow_schema::{Field, Schema};
    use std::collections::{BTreeMap, BTreeSet};

    type Row = (i64, Option<Vec<u8>>);

    fn batch(rows: &[Row]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, false),
            Field::new("b", DataType::Binary, true),
        ]));
        RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
                Arc::new(BinaryArray::from_iter(rows.iter().map(|r| r.1.clone()))),
            ],
        )
        .unwrap()
    }

    /// GROUP BY a binary key (packed while short, then the string map or
    /// the general table; alone, with an integer), merged over partitions,
    /// with MIN / MAX / COUNT(DISTINCT) of binary values: bytes decide, no
    /// padding ('a' and 'a ' are two groups), plain byte order. Checked
    /// against a reference over `Vec<u8>`.
    #[test]
    fn binary_keys_and_min_max_distinct_are_bytes() {
        let words: [&[u8]; 9] = [
            b"a",
            b"a ",
            b"a\0",
            b"A",
            b"",
            b" ",
            b"\xFF",
            b"\xC3\xA9",
            b"ab",
        ];
        let long = b"a long binary key \xFF".to_vec();
        let row = |k: usize| -> Row {
            let b = match k % 10 {
                9 => None,
                w => Some(words[(w + k / 10) % words.len()].to_vec()),
            };
            ((k % 3) as i64, b)
        };
        let early: Vec<Row> = (0..60).map(row).collect();
        let mut late: Vec<Row> = (60..130).map(row).collect();
        late.push((1, Some(long.clone())));
        let b = PhysicalExpr::Column(1);
        let spec = |func, distinct, t: DataType| AggregateSpec {
            func,
            arg: Some(b.clone()),
            distinct,
            output_type: t,
            text: String::new(),
            concat: None,
        };
        let aggs = vec![
            spec(AggFunc::Min, false, DataType::Binary),
            spec(AggFunc::Max, false, DataType::Binary),
            spec(AggFunc::Count, true, DataType::Int64),
        ];
        let shapes: Vec<(Vec<PhysicalExpr>, Vec<DataType>, &[Row])> = vec![
            (vec![b.clone()], vec![DataType::Binary], &early[..]),
            (vec![b.clone()], vec![DataType::Binary], &late[..]),
            (
                vec![b.clone(), PhysicalExpr::Column(0)],
                vec![DataType::Binary, DataType::Int64],
                &early[..],
            ),
            (
                vec![PhysicalExpr::Column(0), b.clone()],
                vec![DataType::Int64, DataType::Binary],
                &late[..],
            ),
        ];
        for (shape, (group, types, second)) in shapes.into_iter().enumerate() {
            let parts = [batch(&early), batch(second)];
            let mut tables = parts.iter().map(|p| {
                let mut t = GroupTable::tracking(&types, &aggs, true, true);
                t.update_at(p, &group, &aggs, 0).unwrap();
                t
            });
            let mut total = tables.next().unwrap();
            for t in tables {
                total.merge_in(t, 1 << CLASS_SHIFT, true).unwrap();
            }
            let mut fields: Vec<Field> = types
                .iter()
                .enumerate()
                .map(|(i, t)| Field::new(format!("k{i}"), t.clone(), true))
                .collect();
            fields.push(Field::new("min", DataType::Binary, true));
            fields.push(Field::new("max", DataType::Binary, true));
            fields.push(Field::new("n", DataType::Int64, true));
            let out = total.finish(&Arc::new(Schema::new(fields)), &aggs).unwrap();
            let k = types.len();
            let bytes = |c: usize, r: usize| -> Option<Vec<u8>> {
                let a = out.column(c).as_binary::<i32>();
                a.is_valid(r).then(|| a.value(r).to_vec())
            };
            type Key = (Option<i64>, Option<Vec<u8>>);
            let key_of = |r: &Row| -> Key {
                match shape {
                    0 | 1 => (None, r.1.clone()),
                    _ => (Some(r.0), r.1.clone()),
                }
            };
            let mut got: BTreeMap<Key, (Option<Vec<u8>>, Option<Vec<u8>>, i64)> = BTreeMap::new();
            for r in 0..out.num_rows() {
                let int = |c: usize| out.column(c).as_primitive::<Int64Type>().value(r);
                let key = match shape {
                    0 | 1 => (None, bytes(0, r)),
                    2 => (Some(int(1)), bytes(0, r)),
                    _ => (Some(int(0)), bytes(1, r)),
                };
                let n = out.column(k + 2).as_primitive::<Int64Type>().value(r);
                assert!(got.insert(key, (bytes(k, r), bytes(k + 1, r), n)).is_none());
            }
            let mut want: BTreeMap<Key, BTreeSet<Vec<u8>>> = BTreeMap::new();
            for r in early.iter().chain(second) {
                let set = want.entry(key_of(r)).or_default();
                if let Some(v) = &r.1 {
                    set.insert(v.clone());
                }
            }
            let want: BTreeMap<Key, (Option<Vec<u8>>, Option<Vec<u8>>, i64)> = want
                .into_iter()
                .map(|(k, s)| {
                    let n = s.len() as i64;
                    (k, (s.first().cloned(), s.last().cloned(), n))
                })
                .collect();
            assert_eq!(got, want, "shape {shape}");
        }
    }
}
