//! Every kernel on every ISA this CPU supports, checked against the plain
//! scalar reference (`CmpOp::eval`, `==`) for every type and operator:
//! lengths 0..300 so tails of every size relative to 32- and 64-value blocks
//! occur, misaligned slice starts, and values biased toward edge cases
//! (MIN, MAX, 0, -1, NaN, infinities, -0.0) and collisions.

use arrow_buffer::BooleanBuffer;
use proptest::prelude::*;
use quiver_kernels::in_list::LINEAR_IN_LIST_LIMIT;
use quiver_kernels::{CmpOp, InListStrategy, Isa};

/// Checks `got` against `expected` bit for bit, and that bits past the end
/// are zero (the kernels promise clean padding).
fn check_mask(
    got: &BooleanBuffer,
    expected: impl IntoIterator<Item = bool>,
    what: &dyn Fn() -> String,
) -> Result<(), TestCaseError> {
    let expected: Vec<bool> = expected.into_iter().collect();
    let actual: Vec<bool> = got.iter().collect();
    prop_assert_eq!(&actual, &expected, "{}", what());
    prop_assert_eq!(got.offset(), 0);
    let bytes = got.values();
    for bit in got.len()..bytes.len() * 8 {
        prop_assert!(
            bytes[bit / 8] & (1 << (bit % 8)) == 0,
            "padding bit {} set: {}",
            bit,
            what()
        );
    }
    Ok(())
}

macro_rules! kernel_props {
    ($module:ident, $t:ty, $value:expr, $edges:expr) => {
        mod $module {
            use super::*;

            fn value() -> BoxedStrategy<$t> {
                $value
            }

            /// A column plus how many leading values to skip, so the kernels
            /// also see slices that start off any vector alignment.
            fn column() -> impl Strategy<Value = (Vec<$t>, usize)> {
                (prop::collection::vec(value(), 0..300), 0usize..4)
            }

            fn skip(column: &[$t], skip: usize) -> &[$t] {
                &column[skip.min(column.len())..]
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(200))]

                #[test]
                fn cmp_scalar_matches_reference((column, offset) in column(), rhs in value()) {
                    let values = skip(&column, offset);
                    for isa in Isa::supported() {
                        for op in CmpOp::ALL {
                            let got = isa.cmp_scalar(values, op, rhs);
                            check_mask(&got, values.iter().map(|&v| op.eval(v, rhs)), &|| {
                                format!("{isa:?} {op:?} rhs={rhs:?} values={values:?}")
                            })?;
                        }
                    }
                }

                #[test]
                fn cmp_columns_matches_reference(
                    pairs in prop::collection::vec((value(), value()), 0..300),
                    offset in 0usize..4,
                ) {
                    let (lhs, rhs): (Vec<$t>, Vec<$t>) = pairs.into_iter().unzip();
                    let (lhs, rhs) = (skip(&lhs, offset), skip(&rhs, offset));
                    for isa in Isa::supported() {
                        for op in CmpOp::ALL {
                            let got = isa.cmp_columns(lhs, rhs, op);
                            let expected = lhs.iter().zip(rhs).map(|(&a, &b)| op.eval(a, b));
                            check_mask(&got, expected, &|| {
                                format!("{isa:?} {op:?} lhs={lhs:?} rhs={rhs:?}")
                            })?;
                        }
                    }
                }

                #[test]
                fn between_matches_reference((column, offset) in column(), lo in value(), hi in value()) {
                    let values = skip(&column, offset);
                    for isa in Isa::supported() {
                        let got = isa.between(values, lo, hi);
                        let expected = values.iter().map(|&v| lo <= v && v <= hi);
                        check_mask(&got, expected, &|| {
                            format!("{isa:?} lo={lo:?} hi={hi:?} values={values:?}")
                        })?;
                    }
                }

                #[test]
                fn in_list_matches_reference(
                    (column, offset) in column(),
                    list in prop::collection::vec(value(), 0..48),
                ) {
                    let values = skip(&column, offset);
                    let expected: Vec<bool> =
                        values.iter().map(|v| list.iter().any(|x| x == v)).collect();
                    for isa in Isa::supported() {
                        let mut strategies = vec![InListStrategy::Hashed];
                        if list.len() <= LINEAR_IN_LIST_LIMIT {
                            strategies.push(InListStrategy::Linear);
                        }
                        for strategy in strategies {
                            let got = isa.in_list_with(values, &list, strategy);
                            check_mask(&got, expected.iter().copied(), &|| {
                                format!("{isa:?} {strategy:?} list={list:?} values={values:?}")
                            })?;
                        }
                        let got = isa.in_list(values, &list);
                        check_mask(&got, expected.iter().copied(), &|| format!("{isa:?} default"))?;
                    }
                }
            }

            /// Every edge value against every other, at a length with a tail.
            #[test]
            fn edge_values_exhaustive() {
                let edges: Vec<$t> = $edges;
                let values: Vec<$t> = edges.iter().copied().cycle().take(131).collect();
                for isa in Isa::supported() {
                    for &rhs in &edges {
                        for op in CmpOp::ALL {
                            let got: Vec<bool> = isa.cmp_scalar(&values, op, rhs).iter().collect();
                            let expected: Vec<bool> = values.iter().map(|&v| op.eval(v, rhs)).collect();
                            assert_eq!(got, expected, "{isa:?} {op:?} rhs={rhs:?}");
                        }
                        for &hi in &edges {
                            let got: Vec<bool> = isa.between(&values, rhs, hi).iter().collect();
                            let expected: Vec<bool> =
                                values.iter().map(|&v| rhs <= v && v <= hi).collect();
                            assert_eq!(got, expected, "{isa:?} between {rhs:?} and {hi:?}");
                        }
                    }
                }
            }
        }
    };
}

macro_rules! int_props {
    ($module:ident, $t:ty) => {
        kernel_props!(
            $module,
            $t,
            prop_oneof![
                3 => any::<$t>(),
                // Small values make equal pairs and range hits likely.
                3 => (-4i8..=4).prop_map(|v| v as $t),
                2 => prop::sample::select(int_edges!($t)),
            ]
            .boxed(),
            int_edges!($t)
        );
    };
}

macro_rules! int_edges {
    ($t:ty) => {
        vec![
            <$t>::MIN,
            <$t>::MIN.wrapping_add(1),
            (-1i8) as $t,
            0,
            1,
            <$t>::MAX.wrapping_sub(1),
            <$t>::MAX,
            // Sign-bit neighbours: where the unsigned sign-flip must be right.
            (1 as $t).rotate_right(1),
            (1 as $t).rotate_right(1).wrapping_sub(1),
        ]
    };
}

macro_rules! float_props {
    ($module:ident, $t:ty) => {
        kernel_props!(
            $module,
            $t,
            prop_oneof![
                3 => any::<$t>(),
                3 => (-4i8..=4).prop_map(<$t>::from),
                2 => prop::sample::select(float_edges!($t)),
            ]
            .boxed(),
            float_edges!($t)
        );
    };
}

macro_rules! float_edges {
    ($t:ty) => {
        vec![
            <$t>::NAN,
            -<$t>::NAN,
            <$t>::INFINITY,
            <$t>::NEG_INFINITY,
            <$t>::MIN,
            <$t>::MAX,
            <$t>::MIN_POSITIVE,
            <$t>::EPSILON,
            0.0,
            -0.0,
            1.0,
            -1.0,
        ]
    };
}

int_props!(i8_kernels, i8);
int_props!(i16_kernels, i16);
int_props!(i32_kernels, i32);
int_props!(i64_kernels, i64);
int_props!(u8_kernels, u8);
int_props!(u16_kernels, u16);
int_props!(u32_kernels, u32);
int_props!(u64_kernels, u64);
float_props!(f32_kernels, f32);
float_props!(f64_kernels, f64);

/// On a CPU that advertises AVX2 the dispatcher must pick it (unless the
/// portable path was forced through the environment).
#[test]
fn avx2_detected_and_active_when_cpu_has_it() {
    let cpu_has_avx2 = std::fs::read_to_string("/proc/cpuinfo")
        .map(|info| {
            info.lines()
                .filter(|line| line.starts_with("flags"))
                .any(|line| line.split_whitespace().any(|flag| flag == "avx2"))
        })
        .unwrap_or(false);
    assert_eq!(
        Isa::Avx2.is_supported(),
        cpu_has_avx2 && cfg!(target_arch = "x86_64")
    );
    let forced_portable = std::env::var(quiver_kernels::isa::ISA_ENV_VAR)
        .is_ok_and(|v| v.eq_ignore_ascii_case("portable"));
    if Isa::Avx2.is_supported() && !forced_portable {
        assert_eq!(quiver_kernels::active_isa(), "avx2");
        assert_eq!(Isa::active(), Isa::Avx2);
    }
    eprintln!("active ISA: {}", quiver_kernels::active_isa());
}

#[test]
fn dispatching_functions_agree_with_explicit_isa() {
    let values: Vec<i32> = (-100..100).collect();
    let active = Isa::active();
    assert_eq!(
        quiver_kernels::cmp_scalar(&values, CmpOp::Lt, 7),
        active.cmp_scalar(&values, CmpOp::Lt, 7)
    );
    assert_eq!(quiver_kernels::between(&values, -5, 5).count_set_bits(), 11);
    assert_eq!(
        quiver_kernels::cmp_columns(&values, &values, CmpOp::Eq).count_set_bits(),
        values.len()
    );
    assert_eq!(
        quiver_kernels::in_list(&values, &[1, 2, 500]).count_set_bits(),
        2
    );
}

#[test]
#[should_panic(expected = "lengths differ")]
fn cmp_columns_rejects_length_mismatch() {
    quiver_kernels::cmp_columns(&[1u8, 2], &[1u8], CmpOp::Eq);
}
