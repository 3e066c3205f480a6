-- Statements whose result sets' column definitions are compared with
-- MariaDB's (scripts/server/column_definitions_from_mariadb.py writes
-- column_definitions.txt from them). One statement per line.
CREATE TABLE t (i INT NOT NULL, ti TINYINT, si SMALLINT, bi BIGINT, ui INT UNSIGNED, ubi BIGINT UNSIGNED, d DECIMAL(10,2), f DOUBLE, dt DATE, ts DATETIME, c CHAR(5), v VARCHAR(20), vb VARCHAR(7) COLLATE utf8mb4_bin, tx TEXT, b BOOLEAN)
INSERT INTO t VALUES (1,2,3,4,5,6,7.5,8.5,'2024-01-02','2024-01-02 03:04:05','ab','cd','ef','gh',1)
CREATE TABLE u (k INT NOT NULL DEFAULT 7, name VARCHAR(10) NOT NULL, l1 VARCHAR(6) CHARACTER SET latin1, ci CHAR(3) COLLATE utf8mb4_general_ci NOT NULL)
INSERT INTO u VALUES (1, 'x', 'y', 'z')
CREATE VIEW vw AS SELECT i, v, i + 1 AS j FROM t
SELECT * FROM t
SELECT * FROM u
SELECT i AS x, v AS y FROM t AS a
SELECT t.i, u.name, u.k FROM t JOIN u ON t.i = u.k
SELECT a.i, b.i FROM t a, t b
SELECT x.i, x.v FROM (SELECT i, v FROM t) x
SELECT x.s FROM (SELECT i + 1 AS s FROM t) x
SELECT i, v FROM vw
WITH w AS (SELECT i, c FROM t) SELECT i, c FROM w
SELECT i, v FROM t GROUP BY i, v
SELECT DISTINCT v, c FROM t
SELECT v FROM t ORDER BY v LIMIT 1
SELECT 1, 100000, 10000000000, 1.5, -2.25, 'abc', NULL, 2.5e0, TRUE
SELECT i+1, bi+1, d*2, d/3, f+1, COUNT(*), SUM(i), SUM(d), AVG(i), AVG(d), MIN(v), MAX(c) FROM t GROUP BY i, bi, d, f
SELECT CONCAT(v,c), UPPER(v), SUBSTRING(v,1,2), LENGTH(v), dt + INTERVAL 1 DAY, YEAR(dt), CAST(i AS CHAR), CAST(v AS SIGNED), CASE WHEN i>0 THEN v ELSE c END FROM t
SELECT i FROM t UNION SELECT bi FROM t
SELECT name, l1, ci FROM u
SELECT d*2, d+2, 2-d, d*-12345, 3/d, d%3, COALESCE(d, 2), IF(i>0, d, 2), 2.5*2, 2/3 FROM t
SELECT SUM(d*2), AVG(d+1), SUM(2), AVG(2) FROM t
SELECT d FROM t UNION SELECT 2
SELECT ti+1, si*si, i*i, bi-1, ui+1, i DIV 2, i % 3, -ti, ABS(i), COALESCE(ti, si), IF(i>0, i, bi), NULLIF(ti, 1), LENGTH(v), LOCATE('a', v), MONTH(dt), ROUND(ti), i > 1 FROM t
SELECT ROW_NUMBER() OVER (), COUNT(*) OVER (), MIN(ti) OVER () FROM t
CREATE TABLE ctas AS SELECT i+1 AS a, ti+1 AS b, COUNT(*) AS c, 7 AS d, b AS e FROM t GROUP BY i, ti, b
SELECT * FROM ctas
CREATE TABLE ctas2 AS SELECT i > 1 AS gt, i / 2 AS h, COALESCE(ti, 0) AS c0, CONCAT(v, c) AS cc, -i AS ng FROM t
SELECT * FROM ctas2
SELECT f, f+1, COALESCE(f, 1), IF(i>0, f, 2), -f, CASE WHEN i > 0 THEN f ELSE f + 1 END, NULLIF(f, 1), x.g FROM t, (SELECT f * 2 AS g FROM t) x
SELECT SUM(f), AVG(f), MIN(f), MAX(f + 1) FROM t
CREATE TABLE w (b TINYINT(1), n INT(5) NOT NULL, s SMALLINT(3) UNSIGNED)
INSERT INTO w VALUES (1, 2, 3)
SELECT w.b, n, s, CAST(n AS UNSIGNED), CAST(i AS UNSIGNED) FROM w, t
SELECT i FROM t UNION SELECT ti FROM t
SELECT ti FROM t UNION ALL SELECT n FROM w
SELECT * FROM information_schema.TABLES WHERE TABLE_NAME = 't'
SHOW TABLE STATUS LIKE 't'
SELECT GREATEST(i, ti), LEAST(i, d), GREATEST(f, 1), LEAST(v, c), GREATEST(v, vb), FIELD(v, 'a', 'cd'), MD5(v), SHA1(c), SHA2(v, 256), SHA2(v, 512), GREATEST(dt, '2020-01-01') FROM t
