//! Plan shapes, names, types and error codes of bound queries.

use arrow_schema::{DataType, TimeUnit};
use quiver_common::ScalarValue;
use quiver_plan::{AggFunc, BinaryOp, Expr, JoinKind, LogicalPlan, ScalarFunc};

use super::tpch::join_kinds;
use super::MockCatalog;

fn catalog() -> MockCatalog {
    use DataType::*;
    MockCatalog::default()
        .table(
            "emp",
            &[
                ("id", Int32),
                ("name", Utf8),
                ("dept", Utf8),
                ("salary", Int32),
                ("bonus", Decimal128(7, 2)),
            ],
        )
        .table("t", &[("a", Int32), ("b", Utf8)])
        .table("u", &[("a", Int32), ("c", Int32)])
        .table(
            "money",
            &[
                ("id", Int32),
                ("x", Decimal128(15, 2)),
                ("y", Decimal128(15, 2)),
                ("f", Float64),
            ],
        )
        .table(
            "ev",
            &[
                ("id", Int32),
                ("d", Date32),
                ("ts", Timestamp(TimeUnit::Microsecond, None)),
            ],
        )
        .view("big", "SELECT id, salary FROM emp WHERE salary >= 100")
}

fn names(plan: &LogicalPlan) -> Vec<String> {
    plan.schema().into_iter().map(|c| c.name).collect()
}

fn types(plan: &LogicalPlan) -> Vec<DataType> {
    plan.schema().into_iter().map(|c| c.data_type).collect()
}

fn error_code(sql: &str) -> u16 {
    match catalog().bind(sql) {
        Ok(p) => panic!("{sql} bound:\n{}", p.display_tree()),
        Err(e) => e.code,
    }
}

/// The expressions of the final projection.
fn outputs(plan: &LogicalPlan) -> Vec<Expr> {
    match plan {
        LogicalPlan::Project { exprs, .. } => exprs.iter().map(|(_, e)| e.clone()).collect(),
        other => panic!("not a projection: {}", other.display_tree()),
    }
}

fn find<'p>(plan: &'p LogicalPlan, pred: &dyn Fn(&LogicalPlan) -> bool) -> Option<&'p LogicalPlan> {
    if pred(plan) {
        return Some(plan);
    }
    plan.children().into_iter().find_map(|c| find(c, pred))
}

fn filter_of(plan: &LogicalPlan) -> Expr {
    match find(plan, &|p| matches!(p, LogicalPlan::Filter { .. })) {
        Some(LogicalPlan::Filter { predicate, .. }) => predicate.clone(),
        _ => panic!("no filter in\n{}", plan.display_tree()),
    }
}

#[test]
fn select_without_from_and_literal_types() {
    let c = catalog();
    let p = c
        .bind("SELECT 1 + 1, 'text', NULL, 0.05, 18446744073709551615, 1e3, TRUE")
        .unwrap();
    assert_eq!(
        names(&p),
        [
            "1 + 1",
            "text",
            "NULL",
            "0.05",
            "18446744073709551615",
            "1e3",
            "TRUE"
        ]
    );
    assert_eq!(
        types(&p),
        [
            DataType::Int64,
            DataType::Utf8,
            DataType::Null,
            DataType::Decimal128(3, 2),
            DataType::UInt64,
            DataType::Float64,
            DataType::Boolean
        ]
    );
    // Constant arithmetic is folded.
    assert_eq!(outputs(&p)[0], Expr::lit(ScalarValue::Int64(2)));
    assert_eq!(
        outputs(&p)[3],
        Expr::Literal(ScalarValue::decimal(5, 3, 2), DataType::Decimal128(3, 2))
    );
    let LogicalPlan::Project { input, .. } = &p else {
        unreachable!()
    };
    assert!(
        matches!(&**input, LogicalPlan::Values { columns, rows } if columns.is_empty() && rows.len() == 1)
    );
}

#[test]
fn decimal_result_types() {
    let c = catalog();
    let p = c
        .bind("SELECT x * y, x + y, x / y, f * x FROM money")
        .unwrap();
    assert_eq!(
        types(&p),
        [
            DataType::Decimal128(30, 4),
            DataType::Decimal128(16, 2),
            DataType::Decimal128(21, 6),
            DataType::Float64
        ]
    );
    let p = c
        .bind("SELECT SUM(x), AVG(x), COUNT(*), MIN(f), SUM(id) FROM money")
        .unwrap();
    assert_eq!(
        types(&p),
        [
            DataType::Decimal128(37, 2),
            DataType::Decimal128(19, 6),
            DataType::Int64,
            DataType::Float64,
            DataType::Decimal128(32, 0)
        ]
    );
    assert_eq!(names(&p)[2], "COUNT(*)");
    let p = c
        .bind("SELECT money.id * x, salary FROM money, emp WHERE money.id = emp.id")
        .unwrap();
    assert_eq!(types(&p)[0], DataType::Decimal128(25, 2));
}

#[test]
fn comparisons_keep_the_column_uncast() {
    let c = catalog();
    let p = c
        .bind("SELECT id FROM money WHERE x < 24 AND f = 1.5 AND id IN (1, 2.0, 3)")
        .unwrap();
    let f = filter_of(&p).split_conjunction();
    assert!(
        matches!(&f[0], Expr::Binary { op: BinaryOp::Lt, left, right }
        if matches!(**left, Expr::Column(..)) && **right == Expr::Literal(ScalarValue::decimal(2400, 15, 2), DataType::Decimal128(15, 2)))
    );
    assert!(
        matches!(&f[1], Expr::Binary { right, .. } if **right == Expr::Literal(ScalarValue::Float64(1.5), DataType::Float64))
    );
    assert!(matches!(&f[2], Expr::InList { expr, list, .. }
        if matches!(**expr, Expr::Column(..)) && list.iter().all(|e| e.data_type() == DataType::Int32)));
    let p = c.bind("SELECT id FROM ev WHERE d BETWEEN '2024-01-01' AND DATE '2024-12-31' - INTERVAL 1 MONTH").unwrap();
    let f = filter_of(&p).split_conjunction();
    assert!(f.iter().all(|t| matches!(t, Expr::Binary { right, .. } if matches!(**right, Expr::Literal(ScalarValue::Date(_), DataType::Date32)))));
}

#[test]
fn joins() {
    let c = catalog();
    let p = c
        .bind("SELECT t.a, u.c FROM t JOIN u ON t.a = u.a")
        .unwrap();
    assert!(find(&p, &|p| matches!(
        p,
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            filter: Some(_),
            ..
        }
    ))
    .is_some());
    let p = c.bind("SELECT * FROM t, u").unwrap();
    assert_eq!(names(&p), ["a", "b", "a", "c"]);
    assert!(find(&p, &|p| matches!(
        p,
        LogicalPlan::Join {
            kind: JoinKind::Inner,
            filter: None,
            ..
        }
    ))
    .is_some());
    let p = c.bind("SELECT * FROM t LEFT JOIN u USING (a)").unwrap();
    assert_eq!(names(&p), ["a", "b", "c"]);
    assert!(p.schema()[2].nullable);
    // RIGHT JOIN is a LEFT JOIN with the sides swapped; the select list keeps its order.
    let p = c
        .bind("SELECT t.b, u.c FROM t RIGHT JOIN u ON t.a = u.a")
        .unwrap();
    let Some(LogicalPlan::Join { left, .. }) = find(&p, &|p| {
        matches!(
            p,
            LogicalPlan::Join {
                kind: JoinKind::Left,
                ..
            }
        )
    }) else {
        panic!("no left join")
    };
    assert!(matches!(&**left, LogicalPlan::Scan { table, .. } if table.name() == "u"));
    assert!(p.schema()[0].nullable);
    let p = c.bind("SELECT a, b, c FROM t NATURAL JOIN u").unwrap();
    assert_eq!(names(&p), ["a", "b", "c"]);
}

#[test]
fn derived_tables_ctes_and_views() {
    let c = catalog();
    let p = c
        .bind("SELECT s.total FROM (SELECT dept, SUM(salary) AS total FROM emp GROUP BY dept) AS s WHERE s.total > 100")
        .unwrap();
    assert_eq!(names(&p), ["total"]);
    assert_eq!(types(&p), [DataType::Decimal128(32, 0)]);
    let p = c
        .bind("WITH x (k, v) AS (SELECT a, b FROM t) SELECT * FROM x a JOIN x b ON a.k = b.k")
        .unwrap();
    assert_eq!(names(&p), ["k", "v", "k", "v"]);
    // A CTE used twice is bound twice: the ids differ.
    let s = p.schema();
    assert_ne!(s[0].id, s[2].id);
    let p = c.bind("SELECT * FROM big WHERE id > 1").unwrap();
    assert_eq!(names(&p), ["id", "salary"]);
    assert_eq!(error_code("SELECT * FROM (SELECT 1)"), 1064);
}

#[test]
fn aggregation_group_by_having_order_by() {
    let c = catalog();
    let p = c
        .bind("SELECT dept, COUNT(*) AS n, SUM(salary) + 1 FROM emp GROUP BY dept HAVING n > 1 AND SUM(salary) > 10 ORDER BY SUM(salary) DESC")
        .unwrap();
    let agg = find(&p, &|p| matches!(p, LogicalPlan::Aggregate { .. })).unwrap();
    let LogicalPlan::Aggregate { group, aggs, .. } = agg else {
        unreachable!()
    };
    assert_eq!(group.len(), 1);
    // COUNT(*) and SUM(salary) once each, however often they are written.
    assert_eq!(
        aggs.iter().map(|(_, a)| a.func).collect::<Vec<_>>(),
        [AggFunc::CountStar, AggFunc::Sum]
    );
    assert!(find(&p, &|p| matches!(p, LogicalPlan::Sort { .. })).is_some());
    // Group by alias, by ordinal and by expression.
    c.bind("SELECT salary * 10 AS s, COUNT(*) FROM emp GROUP BY s")
        .unwrap();
    c.bind("SELECT dept, COUNT(*) FROM emp GROUP BY 1 ORDER BY 2")
        .unwrap();
    c.bind("SELECT salary DIV 30, COUNT(*) FROM emp GROUP BY salary DIV 30")
        .unwrap();
    // MariaDB's default sql_mode has no ONLY_FULL_GROUP_BY: a column neither
    // grouped nor aggregated reads a value of its group, here through MIN.
    for sql in [
        "SELECT name, COUNT(*) FROM emp GROUP BY dept",
        "SELECT name, COUNT(*) FROM emp",
    ] {
        let p = c.bind(sql).unwrap();
        let LogicalPlan::Aggregate { aggs, .. } =
            find(&p, &|p| matches!(p, LogicalPlan::Aggregate { .. })).unwrap()
        else {
            unreachable!()
        };
        assert_eq!(
            aggs.iter().map(|(_, a)| a.func).collect::<Vec<_>>(),
            [AggFunc::CountStar, AggFunc::Min],
            "{sql}"
        );
    }
    assert_eq!(error_code("SELECT id FROM emp WHERE COUNT(*) > 1"), 1111);
    assert_eq!(error_code("SELECT SUM(COUNT(*)) FROM emp"), 1111);
    // Aggregates without GROUP BY: one group.
    let p = c
        .bind("SELECT COUNT(DISTINCT dept, name), SUM(DISTINCT salary) FROM emp")
        .unwrap();
    let LogicalPlan::Aggregate { group, aggs, .. } =
        find(&p, &|p| matches!(p, LogicalPlan::Aggregate { .. })).unwrap()
    else {
        unreachable!()
    };
    assert!(group.is_empty());
    assert!(aggs.iter().all(|(_, a)| a.distinct));
}

#[test]
fn distinct_union_limit() {
    let c = catalog();
    let p = c
        .bind("SELECT DISTINCT dept FROM emp ORDER BY dept LIMIT 2, 3")
        .unwrap();
    assert!(find(&p, &|p| matches!(
        p,
        LogicalPlan::Limit {
            skip: 2,
            fetch: Some(3),
            ..
        }
    ))
    .is_some());
    assert!(find(&p, &|p| matches!(
        p,
        LogicalPlan::Sort { fetch: Some(5), .. }
    ))
    .is_some());
    assert!(find(
        &p,
        &|p| matches!(p, LogicalPlan::Aggregate { aggs, .. } if aggs.is_empty())
    )
    .is_some());
    assert_eq!(
        error_code("SELECT DISTINCT dept FROM emp ORDER BY salary"),
        3065
    );
    let p = c
        .bind("SELECT a, b FROM t UNION SELECT c, 'x' FROM u ORDER BY a DESC LIMIT 3")
        .unwrap();
    assert_eq!(names(&p), ["a", "b"]);
    assert!(find(&p, &|p| matches!(p, LogicalPlan::Union { .. })).is_some());
    // An integer literal counts its own digits (MariaDB: decimal(2,1)).
    let p = c.bind("SELECT 1 UNION ALL SELECT 2.5").unwrap();
    assert_eq!(types(&p), [DataType::Decimal128(2, 1)]);
    assert_eq!(error_code("SELECT a, b FROM t UNION SELECT a FROM u"), 1222);
}

#[test]
fn window_functions() {
    let c = catalog();
    let p = c
        .bind("SELECT id, ROW_NUMBER() OVER w, SUM(bonus) OVER (PARTITION BY dept), RANK() OVER (ORDER BY salary DESC) FROM emp WINDOW w AS (PARTITION BY dept ORDER BY id)")
        .unwrap();
    let Some(LogicalPlan::Window { exprs, .. }) =
        find(&p, &|p| matches!(p, LogicalPlan::Window { .. }))
    else {
        panic!()
    };
    let funcs: Vec<String> = exprs.iter().map(|(_, w)| format!("{:?}", w.func)).collect();
    assert_eq!(
        funcs,
        ["Registered(ROW_NUMBER)", "Agg(Sum)", "Registered(RANK)"]
    );
    assert_eq!(exprs[0].1.partition_by.len(), 1);
    assert!(!exprs[2].1.order_by[0].asc && !exprs[2].1.order_by[0].nulls_first);
    c.bind(
        "SELECT dept, SUM(salary), RANK() OVER (ORDER BY SUM(salary) DESC) FROM emp GROUP BY dept",
    )
    .unwrap();
    assert_eq!(
        error_code("SELECT id FROM emp WHERE ROW_NUMBER() OVER () > 1"),
        4015
    );
}

#[test]
fn semi_anti_and_scalar_subqueries() {
    let c = catalog();
    let p = c
        .bind("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND u.c > 1)")
        .unwrap();
    let Some(LogicalPlan::Join {
        kind: JoinKind::Semi,
        filter: Some(f),
        ..
    }) = find(&p, &|p| matches!(p, LogicalPlan::Join { .. }))
    else {
        panic!("{}", p.display_tree())
    };
    assert!(
        matches!(
            f,
            Expr::Binary {
                op: BinaryOp::Eq,
                ..
            }
        ),
        "{f}"
    );
    let p = c
        .bind("SELECT a FROM t WHERE NOT EXISTS (SELECT * FROM u WHERE u.a = t.a)")
        .unwrap();
    assert_eq!(join_kinds(&p), [JoinKind::Anti]);
    let p = c
        .bind("SELECT a FROM t WHERE a IN (SELECT c FROM u)")
        .unwrap();
    let Some(LogicalPlan::Join {
        kind: JoinKind::Semi,
        on,
        ..
    }) = find(&p, &|p| matches!(p, LogicalPlan::Join { .. }))
    else {
        panic!()
    };
    assert_eq!(on.len(), 1);
    let p = c
        .bind("SELECT a FROM t WHERE a NOT IN (SELECT c FROM u)")
        .unwrap();
    assert_eq!(join_kinds(&p), [JoinKind::NullAwareAnti { null_aware: 1 }]);
    // Uncorrelated scalar subquery: a Single join without keys.
    let p = c.bind("SELECT a, (SELECT MAX(c) FROM u) FROM t").unwrap();
    assert!(find(
        &p,
        &|p| matches!(p, LogicalPlan::Join { kind: JoinKind::Single, on, .. } if on.is_empty())
    )
    .is_some());
    // Correlated COUNT: grouped by the correlation column, and 0 for no match.
    let p = c
        .bind("SELECT a, (SELECT COUNT(*) FROM u WHERE u.a = t.a) AS n FROM t")
        .unwrap();
    assert!(find(
        &p,
        &|p| matches!(p, LogicalPlan::Join { kind: JoinKind::Single, on, .. } if on.len() == 1)
    )
    .is_some());
    assert!(
        matches!(outputs(&p)[1], Expr::Case { .. }),
        "{}",
        p.display_tree()
    );
    assert_eq!(p.schema()[1].name, "n");
    // EXISTS and IN as values, and under OR.
    c.bind("SELECT a, EXISTS (SELECT 1 FROM u WHERE u.a = t.a), a IN (SELECT c FROM u) FROM t")
        .unwrap();
    c.bind("SELECT a FROM t WHERE a = 1 OR a IN (SELECT c FROM u)")
        .unwrap();
    assert_eq!(
        error_code("SELECT a FROM t WHERE a IN (SELECT a, c FROM u)"),
        1241
    );
    assert_eq!(error_code("SELECT (SELECT a, c FROM u) FROM t"), 1241);
    // Correlated by an inequality: the subquery is joined to the distinct
    // outer values it depends on, then to the outer rows by them.
    let p = catalog()
        .bind("SELECT a FROM t WHERE a > (SELECT MAX(c) FROM u WHERE u.a < t.a)")
        .unwrap();
    let tree = p.display_tree();
    assert!(tree.contains("Join Single"), "{tree}");
    assert!(tree.contains("filter=(#2 < #5)"), "{tree}");
}

#[test]
fn expressions() {
    let c = catalog();
    let p = c
        .bind(
            "SELECT CASE dept WHEN 'eng' THEN 1 ELSE 2.5 END, IF(salary > 1, 'y', 'n'), COALESCE(bonus, 0), \
               SUBSTRING(name FROM 1 FOR 2), EXTRACT(YEAR FROM DATE '2024-05-01'), CAST(salary AS CHAR), \
               salary % 7, salary DIV 2, name LIKE 'a!%' ESCAPE '!', NOT (salary = 1) FROM emp",
        )
        .unwrap();
    let t = types(&p);
    // Integer literals count their own digits, as in MariaDB.
    assert_eq!(t[0], DataType::Decimal128(2, 1));
    assert_eq!(t[1], DataType::Utf8);
    assert_eq!(t[2], DataType::Decimal128(7, 2));
    assert_eq!(t[3], DataType::Utf8);
    assert_eq!(t[4], DataType::Int64);
    assert_eq!(t[6], DataType::Int64);
    let o = outputs(&p);
    assert!(
        matches!(&o[3], Expr::Function { func: ScalarFunc::Substring, args, .. } if args.len() == 3)
    );
    assert!(matches!(
        &o[8],
        Expr::Like {
            escape: Some('!'),
            ..
        }
    ));
    assert!(matches!(
        &o[9],
        Expr::Binary {
            op: BinaryOp::NotEq,
            ..
        }
    ));
    let p = c
        .bind("SELECT d + INTERVAL 1 MONTH, ts - INTERVAL 2 DAY, INTERVAL 1 DAY + d FROM ev")
        .unwrap();
    assert_eq!(
        types(&p),
        [
            DataType::Date32,
            DataType::Timestamp(TimeUnit::Microsecond, None),
            DataType::Date32
        ]
    );
    assert!(
        matches!(&outputs(&p)[1], Expr::Function { func: ScalarFunc::DateAdd(_), args, .. }
        if args[1] == Expr::lit(ScalarValue::Int64(-2)))
    );
    assert_eq!(error_code("SELECT DATE '2023-02-30'"), 1525);
    assert_eq!(error_code("SELECT nosuchfn(1)"), 1305);
    assert_eq!(error_code("SELECT SUBSTRING('a')"), 1582);
    assert_eq!(error_code("SELECT (1, 2) = 1"), 1241);
}

#[test]
fn name_resolution_errors() {
    assert_eq!(error_code("SELECT * FROM nosuch"), 1146);
    assert_eq!(
        error_code("SELECT t.a FROM t JOIN nosuch ON t.a = nosuch.a"),
        1146
    );
    let e = catalog().bind("SELECT nocol FROM t").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (1054, "Unknown column 'nocol' in 'field list'")
    );
    let e = catalog().bind("SELECT a FROM t WHERE u.c = 1").unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (1054, "Unknown column 'u.c' in 'where clause'")
    );
    assert_eq!(error_code("SELECT a FROM t ORDER BY nocol"), 1054);
    assert_eq!(error_code("SELECT COUNT(*) FROM t GROUP BY nocol"), 1054);
    let e = catalog()
        .bind("SELECT a FROM t JOIN u ON t.a = u.a")
        .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (1052, "Column 'a' in field list is ambiguous")
    );
    assert_eq!(
        error_code("SELECT b FROM t JOIN u ON t.a = u.a WHERE a > 0"),
        1052
    );
    assert_eq!(error_code("SELECT 1 FROM t, t"), 1066);
    // Qualified names and USING resolve the ambiguity.
    catalog()
        .bind("SELECT t.a, u.c FROM t JOIN u ON t.a = u.a")
        .unwrap();
    catalog()
        .bind("SELECT a, b FROM t JOIN u USING (a)")
        .unwrap();
    // Names are case-insensitive.
    catalog().bind("SELECT NAME, E.Id FROM EMP e").unwrap();
}

#[test]
fn syntax_error_position() {
    let e = catalog().bind("SELECT a FROM t WHERE").unwrap_err();
    assert_eq!(e.code, 1064);
    assert!(e.message.ends_with("near '' at line 1"), "{}", e.message);
    let e = catalog()
        .bind("SELECT a\nFROM t\nWHERE a = = 1")
        .unwrap_err();
    assert!(e.message.ends_with("near '= 1' at line 3"), "{}", e.message);
    // AND is reserved (MySQL): the error is at the second AND, as MariaDB says.
    let e = catalog()
        .bind("SELECT a FROM t WHERE a = 1 AND AND 2")
        .unwrap_err();
    assert!(
        e.message.ends_with("near 'AND 2' at line 1"),
        "{}",
        e.message
    );
}

#[test]
fn bind_constant() {
    let stmt = crate::parse_sql("SELECT -5, 1 + 2 * 3, DATE '2024-01-01', CAST('7' AS SIGNED)")
        .unwrap()
        .remove(0);
    let sqlparser::ast::Statement::Query(q) = stmt else {
        panic!()
    };
    let sqlparser::ast::SetExpr::Select(s) = &*q.body else {
        panic!()
    };
    let cat = catalog();
    let mut b = crate::Binder::new(&cat);
    let vals: Vec<Expr> = s
        .projection
        .iter()
        .map(|i| match i {
            sqlparser::ast::SelectItem::UnnamedExpr(e) => b.bind_constant(e).unwrap(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(vals[0], Expr::lit(ScalarValue::Int64(-5)));
    assert_eq!(vals[1], Expr::lit(ScalarValue::Int64(7)));
    assert!(matches!(
        vals[2],
        Expr::Literal(ScalarValue::Date(_), DataType::Date32)
    ));
    // A string read as SIGNED follows CAST's own rules, in the executor.
    assert!(matches!(
        &vals[3],
        Expr::Function {
            func: ScalarFunc::SqlCast,
            data_type: DataType::Int64,
            ..
        }
    ));
}

#[test]
fn deep_and_hostile_input_is_an_error_not_a_crash() {
    let c = catalog();
    let sum = vec!["1"; 200].join(" + ");
    c.bind(&format!("SELECT {sum}")).unwrap();
    let sum = vec!["a"; 240].join(" + ");
    c.bind(&format!(
        "SELECT {sum} FROM t WHERE a = 1 OR {sum} = 2 ORDER BY {sum}"
    ))
    .unwrap();
    let sum = vec!["a"; 100_000].join(" + ");
    assert_eq!(
        c.bind(&format!("SELECT {sum} FROM t")).unwrap_err().code,
        1436
    );
    let nested = format!("SELECT {}1{}", "(".repeat(2000), ")".repeat(2000));
    assert!(c.bind(&nested).is_err());
    for sql in [
        "SELECT",
        "SELECT * FROM t WHERE a IN ()",
        "SELECT 1 FROM t GROUP BY 99",
        "SELECT a FROM t ORDER BY 0",
        "SELECT DATE_ADD(1)",
        "SELECT 1 LIMIT -1",
        "SELECT * FROM t JOIN u",
        "SELECT COUNT(*, a) FROM t",
        "SELECT INTERVAL 1 DAY",
        "SELECT x'zz'",
        "WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
        "SELECT a FROM t WHERE a = (SELECT)",
        "SELECT DATE '2020-01-01' + INTERVAL 9223372036854775807 DAY",
    ] {
        let _ = c.bind(sql);
    }
}

/// Prints plans of interesting shapes: `cargo test -p quiver-sql --release print_plans -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_plans() {
    let c = catalog();
    for sql in [
        "SELECT a, (SELECT COUNT(*) FROM u WHERE u.a = t.a) AS n FROM t",
        "SELECT a, EXISTS (SELECT 1 FROM u WHERE u.a = t.a), a IN (SELECT c FROM u) FROM t",
        "SELECT dept, SUM(salary), RANK() OVER (ORDER BY SUM(salary) DESC) FROM emp GROUP BY dept",
        "SELECT DISTINCT dept FROM emp ORDER BY dept LIMIT 2, 3",
        "SELECT a, b FROM t UNION SELECT c, 'x' FROM u ORDER BY a DESC LIMIT 3",
        "SELECT * FROM t LEFT JOIN u USING (a)",
        "SELECT COUNT(DISTINCT dept, name) FROM emp",
    ] {
        println!("{sql}\n{}", c.bind(sql).unwrap().display_tree());
    }
}

#[test]
fn view_with_column_list_survives_a_text_round_trip() {
    use sqlparser::ast::{Ident, Statement};
    let Statement::Query(q) = crate::parse_sql("SELECT id, salary FROM emp")
        .unwrap()
        .remove(0)
    else {
        panic!()
    };
    let wrapped = crate::view_query_with_columns("v", *q, &[Ident::new("a"), Ident::new("b")]);
    // Catalogs store a view as text; it must parse back to the same query.
    let text = wrapped.to_string();
    let Statement::Query(back) = crate::parse_sql(&text).unwrap().remove(0) else {
        panic!("{text}")
    };
    assert_eq!(*back, wrapped);
    let plan = catalog()
        .view("v2", &text)
        .bind("SELECT a, b FROM v2")
        .unwrap();
    assert_eq!(names(&plan), ["a", "b"]);
}

/// Joins and window frames Quiver does not run are 1235 naming them as
/// written, with no parser internals in the message.
#[test]
fn unsupported_joins_and_frames_are_named_as_sql() {
    let c = catalog();
    for (sql, what) in [
        (
            "SELECT * FROM t FULL OUTER JOIN u ON t.a = u.c",
            "'FULL OUTER JOIN'",
        ),
        ("SELECT * FROM t CROSS APPLY u", "'CROSS APPLY'"),
    ] {
        let e = c.bind(sql).unwrap_err();
        assert_eq!(e.code, 1235, "{sql}: {e}");
        assert!(e.message.ends_with(what), "{sql}: {e}");
    }
    for sql in [
        "SELECT SUM(a) OVER (ORDER BY a ROWS UNBOUNDED PRECEDING) FROM t",
        "SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t",
        "SELECT SUM(a) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t",
        "SELECT SUM(a) OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
        "SELECT SUM(a) OVER (ORDER BY a RANGE 2 PRECEDING) FROM t",
    ] {
        c.bind(sql).unwrap();
    }
}
