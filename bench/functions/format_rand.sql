-- FORMAT and RAND (registry: string/format.rs, math/rand.rs).

-- name: format_decimal
-- duckdb: SELECT SUM(LENGTH(format('{:,.2f}', l_extendedprice))) FROM lineitem
SELECT SUM(LENGTH(FORMAT(l_extendedprice, 2))) FROM lineitem;

-- name: format_locale
-- duckdb: none
SELECT SUM(LENGTH(FORMAT(l_extendedprice * l_discount, 3, 'de_DE'))) FROM lineitem;

-- name: rand_seeded
-- duckdb: SELECT SUM(random() * l_quantity) > 0 FROM lineitem
SELECT SUM(RAND(7) * l_quantity) > 0 FROM lineitem;

-- name: rand_per_row_seed
-- duckdb: none
SELECT SUM(RAND(l_orderkey)) > 0 FROM lineitem;

-- name: rand_unseeded
-- duckdb: SELECT COUNT(*) FROM lineitem WHERE random() < 0.5 AND l_quantity > 0
SELECT COUNT(*) > 0 FROM lineitem WHERE RAND() < 0.5;
