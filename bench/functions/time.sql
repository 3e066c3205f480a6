-- TIME functions (registry, functions/datetime/time_fns.rs).

-- name: sec_to_time_round_trip
-- duckdb: SELECT SUM(CAST(epoch(to_seconds(l_orderkey % 300000)) AS BIGINT)) FROM lineitem
SELECT SUM(TIME_TO_SEC(SEC_TO_TIME(l_orderkey % 300000))) FROM lineitem;

-- name: timediff_hours
-- duckdb: SELECT SUM(abs((l_orderkey % 3000000) - (l_partkey % 100000)) // 3600) FROM lineitem
SELECT SUM(HOUR(TIMEDIFF(SEC_TO_TIME(l_orderkey % 3000000), SEC_TO_TIME(l_partkey % 100000)))) FROM lineitem;

-- name: cast_text_to_time
-- duckdb: SELECT COUNT(*) FROM lineitem WHERE CAST(concat(l_linenumber, ':', CAST(l_quantity AS BIGINT) % 60, ':00') AS TIME) > TIME '05:30:00'
SELECT COUNT(*) FROM lineitem WHERE CAST(CONCAT(l_linenumber, ':', CAST(l_quantity AS SIGNED) % 60, ':00') AS TIME) > '05:30:00';
