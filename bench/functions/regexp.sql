-- Regular expressions (PCRE2) over TPC-H comment columns.

-- name: regexp_literal
-- duckdb: SELECT COUNT(*) FROM lineitem WHERE regexp_matches(l_comment, 'furious.*dep')
SELECT COUNT(*) FROM lineitem WHERE l_comment REGEXP 'furious.*dep';

-- name: rlike_class
-- duckdb: SELECT COUNT(*) FROM orders WHERE regexp_matches(o_comment, '^[a-z]+ly')
SELECT COUNT(*) FROM orders WHERE o_comment RLIKE '^[a-z]+ly';

-- name: regexp_alternation
-- duckdb: SELECT COUNT(*) FROM part WHERE regexp_matches(p_name, '^(green|blue) .*(metallic|misty)')
SELECT COUNT(*) FROM part WHERE p_name REGEXP '^(green|blue) .*(metallic|misty)';

-- name: regexp_caseless
-- duckdb: SELECT COUNT(*) FROM lineitem WHERE regexp_matches(l_comment, 'SPECIAL\s+REQ', 'i')
SELECT COUNT(*) FROM lineitem WHERE l_comment COLLATE utf8mb4_general_ci REGEXP 'SPECIAL\\s+REQ';

-- name: regexp_replace
-- duckdb: SELECT SUM(LENGTH(regexp_replace(o_comment, '[aeiou]+', '-', 'g'))) FROM orders
SELECT SUM(LENGTH(REGEXP_REPLACE(o_comment, '[aeiou]+', '-'))) FROM orders;

-- name: regexp_replace_groups
-- duckdb: SELECT SUM(LENGTH(regexp_replace(o_comment, '(\w+)ly\b', '\1LY', 'g'))) FROM orders
SELECT SUM(LENGTH(REGEXP_REPLACE(o_comment, '(\\w+)ly\\b', '\\1LY'))) FROM orders;

-- name: regexp_substr
-- duckdb: SELECT COUNT(DISTINCT regexp_extract(o_comment, '[a-z]+ly')) FROM orders
SELECT COUNT(DISTINCT REGEXP_SUBSTR(o_comment, '[a-z]+ly')) FROM orders;

-- name: regexp_instr
-- duckdb: none
SELECT SUM(REGEXP_INSTR(l_comment, 'pending')) FROM lineitem;
