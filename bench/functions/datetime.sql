-- name: date_format_month_group
-- duckdb: SELECT strftime(l_shipdate, '%Y-%m') AS m, COUNT(*) FROM lineitem GROUP BY m;
SELECT DATE_FORMAT(l_shipdate, '%Y-%m') AS m, COUNT(*) FROM lineitem GROUP BY m;

-- name: date_format_long_distinct
-- duckdb: SELECT COUNT(DISTINCT strftime(o_orderdate, '%A %d %B %Y')) FROM orders;
SELECT COUNT(DISTINCT DATE_FORMAT(o_orderdate, '%W %d %M %Y')) FROM orders;

-- name: datediff_sum
-- duckdb: SELECT SUM(date_diff('day', l_shipdate, l_receiptdate)) FROM lineitem;
SELECT SUM(DATEDIFF(l_receiptdate, l_shipdate)) FROM lineitem;

-- name: unix_timestamp_sum
-- duckdb: SELECT SUM(epoch(o_orderdate::TIMESTAMP)) FROM orders;
SELECT SUM(UNIX_TIMESTAMP(o_orderdate)) FROM orders;

-- name: from_unixtime_max
-- duckdb: SELECT MAX(make_timestamp(o_orderkey * 1000000::BIGINT)) FROM orders;
SELECT MAX(FROM_UNIXTIME(o_orderkey)) FROM orders;

-- name: week_mode3_distinct
-- duckdb: SELECT COUNT(DISTINCT weekofyear(o_orderdate)) FROM orders;
SELECT COUNT(DISTINCT WEEK(o_orderdate, 3)) FROM orders;

-- name: dayname_group
-- duckdb: SELECT dayname(l_shipdate) AS d, COUNT(*) FROM lineitem GROUP BY d;
SELECT DAYNAME(l_shipdate) AS d, COUNT(*) FROM lineitem GROUP BY d;

-- name: dayofweek_sum
-- duckdb: SELECT SUM(dayofweek(l_shipdate) + 1) FROM lineitem;
SELECT SUM(DAYOFWEEK(l_shipdate)) FROM lineitem;

-- name: last_day_distinct
-- duckdb: SELECT COUNT(DISTINCT last_day(l_shipdate)) FROM lineitem;
SELECT COUNT(DISTINCT LAST_DAY(l_shipdate)) FROM lineitem;

-- name: str_to_date_count
-- duckdb: SELECT COUNT(strptime(o_orderdate::VARCHAR, '%Y-%m-%d')) FROM orders;
SELECT COUNT(STR_TO_DATE(CAST(o_orderdate AS CHAR), '%Y-%m-%d')) FROM orders;

-- name: convert_tz_named
-- duckdb: none
SELECT MAX(CONVERT_TZ(CAST(o_orderdate AS DATETIME), 'UTC', 'Europe/Berlin')) FROM orders;

-- name: convert_tz_offset
-- duckdb: SELECT MAX(CAST(o_orderdate AS TIMESTAMP) + INTERVAL 330 MINUTE) FROM orders
SELECT MAX(CONVERT_TZ(CAST(o_orderdate AS DATETIME), '+00:00', '+05:30')) FROM orders;

-- name: time_format_distinct
-- duckdb: SELECT COUNT(DISTINCT strftime(TIMESTAMP '2000-01-01' + to_seconds(o_orderkey % 86400), '%H:%M')) FROM orders
SELECT COUNT(DISTINCT TIME_FORMAT(SEC_TO_TIME(o_orderkey % 86400), '%H:%i')) FROM orders;
