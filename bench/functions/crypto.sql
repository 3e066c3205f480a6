-- Encryption and compression: AES_ENCRYPT / AES_DECRYPT (constant key,
-- prepared once per batch) and COMPRESS / UNCOMPRESS over comment columns.
-- DuckDB has no AES or zlib functions; MD5 is its nearest per-row byte
-- transform, given for scale.

-- name: aes_encrypt_const_key
-- duckdb: none
SELECT SUM(LENGTH(AES_ENCRYPT(l_comment, 'a secret key'))) FROM lineitem;

-- name: aes_round_trip
-- duckdb: none
SELECT COUNT(*) FROM orders WHERE AES_DECRYPT(AES_ENCRYPT(o_comment, 'a secret key'), 'a secret key') = o_comment;

-- name: aes_key_column
-- duckdb: none
SELECT SUM(LENGTH(AES_ENCRYPT(o_comment, o_clerk))) FROM orders;

-- name: md5_reference
-- duckdb: SELECT SUM(LENGTH(md5(l_comment))) FROM lineitem
SELECT SUM(LENGTH(MD5(l_comment))) FROM lineitem;

-- name: compress
-- duckdb: none
SELECT SUM(LENGTH(COMPRESS(o_comment))) FROM orders;

-- name: uncompress_round_trip
-- duckdb: none
SELECT SUM(LENGTH(UNCOMPRESS(COMPRESS(o_comment)))), SUM(UNCOMPRESSED_LENGTH(COMPRESS(o_comment))) FROM orders;
