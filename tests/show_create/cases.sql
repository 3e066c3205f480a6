-- Each case: a `-- table: NAME` line, then statements (one a line or more,
-- each ending in `;` at the end of a line). The golden file holds what
-- MariaDB's SHOW CREATE TABLE NAME answers after them
-- (scripts/show_create_from_mariadb.py).

-- table: t
CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, u VARCHAR(5) UNIQUE, n INT NOT NULL DEFAULT 5, s VARCHAR(10) COLLATE utf8mb4_general_ci DEFAULT 'x''y', l VARCHAR(3) CHARACTER SET latin1, d DECIMAL(10,2) DEFAULT 1.50, dt DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), b VARBINARY(8), c CHAR(3) NOT NULL, bi BIGINT UNSIGNED, f DOUBLE, dd DATE DEFAULT '2024-01-02', ti TINYINT(1), a INT DEFAULT (1+2), UNIQUE KEY uc (c, n));
INSERT INTO t (u, c) VALUES ('a', 'x');

-- table: k
CREATE TABLE k (a INT, b INT, PRIMARY KEY (a, b));

-- table: z
CREATE TABLE z (a INT, s VARCHAR(4), u VARCHAR(4) CHARACTER SET utf8mb4) DEFAULT CHARSET=latin1;

-- table: ints
CREATE TABLE ints (a TINYINT, b TINYINT UNSIGNED, c SMALLINT, d SMALLINT UNSIGNED, e MEDIUMINT, f MEDIUMINT UNSIGNED, g INT UNSIGNED, h BIGINT, i BOOLEAN);

-- table: counters
CREATE TABLE counters (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, k VARCHAR(20) COLLATE utf8mb4_unicode_ci NOT NULL, hits INT NOT NULL DEFAULT 0, PRIMARY KEY (id), UNIQUE KEY by_k (k)) AUTO_INCREMENT=100;

-- table: after_delete
CREATE TABLE after_delete (id INT AUTO_INCREMENT PRIMARY KEY, v TEXT);
INSERT INTO after_delete (v) VALUES ('a'), ('b'), ('c');
DELETE FROM after_delete WHERE id = 3;

-- table: `odd name`
CREATE TABLE `odd name` (`a``b` INT, `select` VARCHAR(5) DEFAULT 'it''s', `c d` DOUBLE NOT NULL DEFAULT 1.5e0);

-- table: times
CREATE TABLE times (a DATETIME, b DATETIME(6) NOT NULL DEFAULT '2024-01-02 03:04:05.123456', c DATE NOT NULL, d DECIMAL(65,30), e VARCHAR(10) COLLATE utf8mb4_nopad_bin, f CHAR(1) CHARACTER SET ascii);

-- table: checks
CREATE TABLE checks (a INT CHECK (a > 0), b INT, s VARCHAR(10) CHECK (s <> 'x''y' AND s = upper(s)), j JSON, k JSON CHECK (json_length(k) < 3), CHECK (a < b), CONSTRAINT named CHECK (b > 1 OR NOT (a IN (1, 2))), CHECK (b BETWEEN 1 AND 100));

-- table: years
CREATE TABLE years (a YEAR DEFAULT 0, b YEAR(4) NOT NULL DEFAULT 70, c YEAR DEFAULT '0', d YEAR);
