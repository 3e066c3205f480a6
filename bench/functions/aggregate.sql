-- Registered aggregates by group.

-- name: stddev_by_group
-- duckdb: SELECT l_returnflag, l_linestatus, stddev_samp(l_extendedprice), var_pop(l_quantity) FROM lineitem GROUP BY ALL
SELECT l_returnflag, l_linestatus, STDDEV_SAMP(l_extendedprice), VAR_POP(l_quantity) FROM lineitem GROUP BY l_returnflag, l_linestatus;

-- name: stddev_many_groups
-- duckdb: SELECT COUNT(*), SUM(s) FROM (SELECT o_custkey, stddev_pop(o_totalprice) AS s FROM orders GROUP BY o_custkey)
SELECT COUNT(*), SUM(s) FROM (SELECT o_custkey, STDDEV_POP(o_totalprice) AS s FROM orders GROUP BY o_custkey) t;

-- name: bit_or_by_group
-- duckdb: SELECT SUM(b) FROM (SELECT l_suppkey, bit_or(l_partkey) AS b FROM lineitem GROUP BY l_suppkey)
SELECT SUM(b) FROM (SELECT l_suppkey, BIT_OR(l_partkey) AS b FROM lineitem GROUP BY l_suppkey) t;
