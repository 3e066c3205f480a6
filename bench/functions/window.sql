-- Window functions and frames over orders (1.5M rows at SF1).

-- name: lag_by_date
-- duckdb: SELECT SUM(d) FROM (SELECT o_totalprice - LAG(o_totalprice) OVER (ORDER BY o_orderdate, o_orderkey) AS d FROM orders)
SELECT SUM(d) FROM (SELECT o_totalprice - LAG(o_totalprice) OVER (ORDER BY o_orderdate, o_orderkey) AS d FROM orders) t;

-- name: lead_by_customer
-- duckdb: SELECT COUNT(n), MAX(n) FROM (SELECT LEAD(o_orderdate) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS n FROM orders)
SELECT COUNT(n), MAX(n) FROM (SELECT LEAD(o_orderdate) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS n FROM orders) t;

-- name: moving_avg_by_customer
-- duckdb: SELECT SUM(a) FROM (SELECT AVG(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS a FROM orders)
SELECT SUM(a) FROM (SELECT AVG(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS a FROM orders) t;

-- name: moving_max_by_date
-- duckdb: SELECT SUM(m) FROM (SELECT MAX(o_totalprice) OVER (ORDER BY o_orderdate, o_orderkey ROWS BETWEEN 100 PRECEDING AND CURRENT ROW) AS m FROM orders)
SELECT SUM(m) FROM (SELECT MAX(o_totalprice) OVER (ORDER BY o_orderdate, o_orderkey ROWS BETWEEN 100 PRECEDING AND CURRENT ROW) AS m FROM orders) t;

-- name: range_sum_by_price
-- duckdb: SELECT SUM(s) FROM (SELECT SUM(o_shippriority + 1) OVER (ORDER BY o_totalprice RANGE BETWEEN 100 PRECEDING AND 100 FOLLOWING) AS s FROM orders)
SELECT SUM(s) FROM (SELECT SUM(o_shippriority + 1) OVER (ORDER BY o_totalprice RANGE BETWEEN 100 PRECEDING AND 100 FOLLOWING) AS s FROM orders) t;

-- name: ntile_cume_dist
-- duckdb: SELECT SUM(t), SUM(c) FROM (SELECT NTILE(10) OVER (ORDER BY o_totalprice) AS t, CUME_DIST() OVER (ORDER BY o_totalprice) AS c FROM orders)
SELECT SUM(t), SUM(c) FROM (SELECT NTILE(10) OVER (ORDER BY o_totalprice) AS t, CUME_DIST() OVER (ORDER BY o_totalprice) AS c FROM orders) t;

-- name: first_value_by_customer
-- duckdb: SELECT SUM(f) FROM (SELECT FIRST_VALUE(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS f FROM orders)
SELECT SUM(f) FROM (SELECT FIRST_VALUE(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS f FROM orders) t;

-- name: stddev_sliding_rows
-- duckdb: SELECT SUM(s) FROM (SELECT STDDEV_POP(o_totalprice) OVER (ORDER BY o_orderkey ROWS BETWEEN 10 PRECEDING AND 10 FOLLOWING) AS s FROM orders)
SELECT SUM(s) FROM (SELECT STDDEV_POP(o_totalprice) OVER (ORDER BY o_orderkey ROWS BETWEEN 10 PRECEDING AND 10 FOLLOWING) AS s FROM orders) t;
