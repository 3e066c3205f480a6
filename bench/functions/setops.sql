-- Set operations and WITH RECURSIVE.

-- name: except_orderkeys
-- duckdb: SELECT COUNT(*) FROM (SELECT l_orderkey FROM lineitem EXCEPT SELECT o_orderkey FROM orders WHERE o_orderdate < DATE '1995-01-01')
SELECT COUNT(*) FROM (SELECT l_orderkey FROM lineitem EXCEPT SELECT o_orderkey FROM orders WHERE o_orderdate < DATE '1995-01-01') t;

-- name: intersect_all_part_supp
-- duckdb: SELECT COUNT(*) FROM (SELECT l_partkey, l_suppkey FROM lineitem INTERSECT ALL SELECT ps_partkey, ps_suppkey FROM partsupp)
SELECT COUNT(*) FROM (SELECT l_partkey, l_suppkey FROM lineitem INTERSECT ALL SELECT ps_partkey, ps_suppkey FROM partsupp) t;

-- name: recursive_rounds
-- duckdb: WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT SUM(n) FROM r
WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT SUM(n) FROM r;
