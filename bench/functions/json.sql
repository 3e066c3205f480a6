-- JSON functions over a JSON document built from each orders row.

-- name: json_value_filter
-- duckdb: SELECT COUNT(*) FROM orders WHERE json_extract_string('{"p":"' || o_orderpriority || '","c":' || o_custkey || ',"t":[' || o_shippriority || ',1]}', '$.p') = '1-URGENT'
SELECT COUNT(*) FROM orders WHERE JSON_VALUE(CONCAT('{"p":"', o_orderpriority, '","c":', o_custkey, ',"t":[', o_shippriority, ',1]}'), '$.p') = '1-URGENT';

-- name: json_extract_sum
-- duckdb: SELECT SUM(CAST(json_extract('{"p":"' || o_orderpriority || '","c":' || o_custkey || ',"t":[' || o_shippriority || ',1]}', '$.c') AS BIGINT)) FROM orders
SELECT SUM(JSON_EXTRACT(CONCAT('{"p":"', o_orderpriority, '","c":', o_custkey, ',"t":[', o_shippriority, ',1]}'), '$.c')) FROM orders;

-- name: json_set_length
-- duckdb: none
SELECT SUM(LENGTH(JSON_SET(CONCAT('{"p":"', o_orderpriority, '"}'), '$.c', o_custkey))) FROM orders;

-- name: json_arrayagg_length
-- duckdb: SELECT SUM(LENGTH(CAST(a AS VARCHAR))) FROM (SELECT json_group_array(o_orderkey) a FROM orders GROUP BY o_custkey)
SELECT SUM(LENGTH(a)) FROM (SELECT JSON_ARRAYAGG(o_orderkey) a FROM orders GROUP BY o_custkey) t;

-- name: json_table_lateral
-- duckdb: SELECT SUM(CAST(v AS BIGINT)) FROM orders, unnest(CAST(json_extract(('[' || o_custkey || ',' || o_shippriority || ']')::JSON, '$[*]') AS VARCHAR[])) AS t(v)
SELECT SUM(j.v) FROM orders, JSON_TABLE(CONCAT('[', o_custkey, ',', o_shippriority, ']'), '$[*]' COLUMNS(v INT PATH '$')) AS j;
