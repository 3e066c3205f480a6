-- Statements whose error messages Quiver must give as MariaDB does. Each
-- statement ends with a line ending in ';'. scripts/errors_from_mariadb.py
-- writes MariaDB's answers to messages.txt; crates/quiver-engine/tests/
-- error_messages.rs compares Quiver's with them.

CREATE TABLE t1 (a BIGINT, b DECIMAL(65,0), c DOUBLE, u BIGINT UNSIGNED, s VARCHAR(10));
INSERT INTO t1 VALUES (9223372036854775807, 99999999999999999999999999999999999999999999999999999999999999999, 1e308, 18446744073709551615, 'x');
CREATE TABLE t2 (k INT, v VARCHAR(5));

-- syntax errors: the rest of the statement from the failing token, and its line
SELECT;
SELECT 1 +;
SELECT * FORM t1;
SELECT 1,
2,
FROM t1;
SELECT 1
FROM t1 WHERE
a = = 1;
INSERT INTO VALUES (1);
INSERT INTO t2 VALUES (1, 'a',);
CREATE TABLE (a INT);
SELECT 1 LIMIT -1;
SELECT 1 LIMIT 1.5;
SELECT 1
LIMIT 2,
-1;
INSERT IGNORE INTO SELECT 1;
SELECT DATE '2020-01-01' + INTERVAL 'x' FOO;
SELECT a FROM t1 WHERE a IN ();
SELECT a FROM t1 GROUP BY;
SELECT 'unterminated;
SELECT a FROM t1 ORDER BY a LIMIT 1 OFFSET;
SELECT 1 AND AND 2;
UPDATTE t1 SET a = 1;

-- names that do not resolve
SELECT * FROM nope;
SELECT nope FROM t1;
SELECT t1.nope FROM t1;
SELECT a FROM t1 WHERE nope = 1;
SELECT a FROM t1 ORDER BY nope;
SELECT a FROM t1 GROUP BY nope;
SELECT a FROM t1 HAVING nope > 1;
SELECT x.a FROM t1;
SELECT k FROM t1, t2 WHERE t3.k = 1;
DROP TABLE nope;
INSERT INTO nope VALUES (1);
INSERT INTO t2 (nope) VALUES (1);
CREATE TABLE t1 (a INT);
SELECT a FROM t1 JOIN t1 ON 1 = 1;
SELECT k FROM t2 a, t2 b;
SELECT 1 FROM t2 a JOIN t2 b ON k = 1;
DROP VIEW nope;

-- shapes and counts
INSERT INTO t2 VALUES (1);
INSERT INTO t2 VALUES (1, 'a', 2);
SELECT (SELECT k, v FROM t2);
SELECT a FROM t1 WHERE a IN (SELECT k, v FROM t2);
SELECT 1 UNION SELECT 1, 2;
SELECT sum(sum(a)) FROM t1;
SELECT a FROM t1 WHERE sum(a) > 1;

-- out of range: the operation that overflowed, as MariaDB prints it
SELECT 9223372036854775807 + 1;
SELECT -9223372036854775808 - 1;
SELECT 18446744073709551615 * 2;
SELECT ABS(-9223372036854775808);
SELECT a + 1 FROM t1;
SELECT x.a + 1 FROM t1 x;
SELECT (a + 1) * 2 FROM t1;
SELECT a * 2 + 3 FROM t1;
SELECT a - -1 FROM t1;
SELECT -(a + 1) FROM t1;
SELECT d + 1 FROM (SELECT a AS d FROM t1) q;
WITH w AS (SELECT a FROM t1) SELECT a + 1 FROM w;
SELECT b * b FROM t1;
SELECT c * 10 FROM t1;
SELECT u + 1 FROM t1;
SELECT a DIV 1 + 1 FROM t1;
SELECT ABS(a) * 2 FROM t1;
SELECT CASE WHEN a > 0 THEN a END + 1 FROM t1;
SELECT COALESCE(a, 0) + 1 FROM t1;
SELECT 1 FROM t1 WHERE a + 1 > 0;
SELECT a + 1 FROM t1 GROUP BY a;
SELECT a * 2 FROM t1 ORDER BY 1;
SELECT u - 1 - u - 1 FROM t1;
SELECT 1e400;

-- views and names
CREATE TABLE vb (a INT);
CREATE VIEW vv AS SELECT a FROM vb;
CREATE VIEW vx AS SELECT a + 1 AS x FROM vb;
INSERT INTO vx VALUES (1);
DROP VIEW vb;
DROP TABLE vb;
SELECT * FROM vv;
CREATE TABLE bad1 (`` INT);
CREATE TABLE bad2 (`a ` INT);
CREATE TABLE `` (a INT);
CREATE TABLE `t ` (a INT);

-- fractional seconds beyond 6 digits: the column, the CAST's operand or the clock function
CREATE TABLE dt7 (a DATETIME(7));
CREATE TABLE dt7 (b TIMESTAMP(8));
SELECT CAST('2020-01-01' AS DATETIME(7));
SELECT CAST(a AS DATETIME(7)) FROM t1;
SELECT NOW(7);
SELECT CURRENT_TIMESTAMP(7);
SELECT LOCALTIMESTAMP(9);
SELECT SYSDATE(7);
SELECT UTC_TIMESTAMP(7);

-- collations: UNION without a collation, STRCMP's mix, hex literals under a Unicode introducer, ESCAPE
CREATE TABLE cu (g VARCHAR(5) COLLATE utf8mb4_general_ci, u VARCHAR(5) COLLATE utf8mb4_unicode_ci);
SELECT g FROM cu UNION SELECT u FROM cu;
SELECT g COLLATE utf8mb4_general_ci FROM cu UNION ALL SELECT 'x' COLLATE utf8mb4_unicode_ci;
SELECT g FROM cu UNION SELECT _latin1'x' COLLATE latin1_bin;
SELECT STRCMP(g, u) FROM cu;
SELECT STRCMP('a' COLLATE utf8mb4_general_ci, 'b' COLLATE utf8mb4_unicode_ci);
SELECT _utf8mb4 X'FF';
SELECT HEX(_utf8mb4 X'41FF42');
SELECT _utf8mb3 0xF09F9880;
SELECT 'a%' LIKE 'ax%' ESCAPE 'xy' COLLATE utf8mb4_general_ci;
SELECT 'a%' LIKE 'aé%' ESCAPE _latin1'é';
CREATE TABLE fm (g VARCHAR(10) COLLATE utf8mb4_general_ci, u VARCHAR(10) COLLATE utf8mb4_unicode_ci, b VARCHAR(10) COLLATE utf8mb4_bin, nb VARCHAR(10) COLLATE utf8mb4_nopad_bin, m VARCHAR(10) CHARACTER SET utf8mb3);
SELECT REPLACE(g, 'x', u) FROM fm;
SELECT TRIM(u FROM g) FROM fm;
SELECT TRIM(TRAILING u FROM g) FROM fm;
SELECT SUBSTRING_INDEX(g, u, 1) FROM fm;
SELECT LOCATE(g, u) FROM fm;
SELECT INSTR(g, u) FROM fm;
SELECT CONCAT(b, nb) FROM fm;
SELECT COALESCE(b, nb) FROM fm;
SELECT IF(1, b, nb) FROM fm;
SELECT CASE g WHEN u THEN 1 ELSE 0 END FROM fm;
SELECT NULLIF(g, u) FROM fm;
SELECT m = '😀' FROM fm;
SELECT m IN ('a', '😀') FROM fm;
SELECT b FROM fm UNION SELECT nb FROM fm;
CREATE TABLE bad1 (a VARCHAR(5)) CHARSET latin1 COLLATE utf8mb4_bin;
CREATE TABLE bad3 (a VARCHAR(10) COLLATE utf8mb4_general_ci COLLATE utf8mb4_bin);
