-- String and bit functions of the registry over TPC-H columns.

-- name: find_in_set
-- duckdb: SELECT COUNT(*) FROM orders WHERE list_position(string_split('1-URGENT,2-HIGH,5-LOW', ','), o_orderpriority) > 1
SELECT COUNT(*) FROM orders WHERE FIND_IN_SET(o_orderpriority, '1-URGENT,2-HIGH,5-LOW') > 1;

-- name: to_base64
-- duckdb: SELECT SUM(LENGTH(b) + (LENGTH(b) - 1) // 76) FROM (SELECT to_base64(encode(o_comment)) AS b FROM orders)
SELECT SUM(LENGTH(TO_BASE64(o_comment))) FROM orders;

-- name: bit_ops
-- duckdb: SELECT SUM((l_orderkey | 5) & 1023), SUM(l_partkey << 2) FROM lineitem
SELECT SUM((l_orderkey | 5) & 1023), SUM(l_partkey << 2) FROM lineitem;

-- name: make_set
-- duckdb: none
SELECT COUNT(DISTINCT MAKE_SET(l_linenumber, l_shipmode, l_returnflag, l_linestatus)) FROM lineitem;
