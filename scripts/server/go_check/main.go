// Drives a running `quiver serve` with Go's database/sql and go-sql-driver/mysql:
// both password plugins, a wrong password, DDL/DML, prepared statements (the
// driver prepares every query with arguments) with each parameter type, []byte
// into binary columns, errors.
// Usage: go run . HOST:PORT (the server's root has no password). Exits 1 on a mismatch.
package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"time"

	"github.com/go-sql-driver/mysql"
)

func fail(format string, args ...any) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}

func check(name string, got, want any) {
	if !reflect.DeepEqual(got, want) {
		fail("%s: got %#v, want %#v", name, got, want)
	}
}

func open(addr, user, pw string) *sql.DB {
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/quiver?parseTime=true", user, pw, addr))
	if err != nil {
		fail("open %s: %v", user, err)
	}
	return db
}

func code(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

func main() {
	addr := os.Args[1]
	root := open(addr, "root", "")
	defer root.Close()
	for _, s := range []string{
		"CREATE USER gosha IDENTIFIED WITH caching_sha2_password BY 'go-sha'",
		"CREATE USER gonat IDENTIFIED WITH mysql_native_password BY 'go-nat'",
		"CREATE TABLE go_items (id BIGINT NOT NULL, name VARCHAR(40), price DECIMAL(10,2), ratio DOUBLE, born DATE, seen DATETIME)",
	} {
		if _, err := root.Exec(s); err != nil {
			fail("%s: %v", s, err)
		}
	}
	for _, u := range [][2]string{{"gosha", "go-sha"}, {"gonat", "go-nat"}} {
		db := open(addr, u[0], u[1])
		var n int
		if err := db.QueryRow("SELECT 41 + 1").Scan(&n); err != nil {
			fail("login %s: %v", u[0], err)
		}
		check("login "+u[0], n, 42)
		db.Close()
		bad := open(addr, u[0], "wrong")
		check("wrong password "+u[0], code(bad.Ping()), uint16(1045))
		bad.Close()
	}
	fmt.Println("PASS go-sql-driver/mysql: caching_sha2_password, mysql_native_password, 1045")

	db := open(addr, "gosha", "go-sha")
	defer db.Close()
	born := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	seen := time.Date(2024, 12, 31, 23, 59, 58, 0, time.UTC)
	res, err := db.Exec("INSERT INTO go_items VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)",
		int64(-9223372036854775808), "it's \\ \"q\" ;--", "12.50", 0.25, born, seen,
		int64(2), nil, nil, nil, nil, nil)
	if err != nil {
		fail("prepared insert: %v", err)
	}
	affected, _ := res.RowsAffected()
	check("rows affected", affected, int64(2))

	rows, err := db.Query("SELECT id, name, price, ratio, born, seen FROM go_items WHERE id < ? ORDER BY id", int64(10))
	if err != nil {
		fail("prepared select: %v", err)
	}
	type row struct {
		ID    int64
		Name  sql.NullString
		Price sql.NullString
		Ratio sql.NullFloat64
		Born  sql.NullTime
		Seen  sql.NullTime
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.ID, &r.Name, &r.Price, &r.Ratio, &r.Born, &r.Seen); err != nil {
			fail("scan: %v", err)
		}
		got = append(got, r)
	}
	rows.Close()
	check("prepared select rows", got, []row{
		{-9223372036854775808, sql.NullString{String: "it's \\ \"q\" ;--", Valid: true}, sql.NullString{String: "12.50", Valid: true},
			sql.NullFloat64{Float64: 0.25, Valid: true}, sql.NullTime{Time: born, Valid: true}, sql.NullTime{Time: seen, Valid: true}},
		{2, sql.NullString{}, sql.NullString{}, sql.NullFloat64{}, sql.NullTime{}, sql.NullTime{}},
	})

	var (
		i8  int64
		u64 uint64
		f   float64
		s   string
		b   []byte
		t   string
		nul sql.NullInt64
		tr  bool
	)
	err = db.QueryRow("SELECT ?, ?, ?, ?, ?, ?, ?, ?", int8(-5), uint64(18446744073709551615), 1.5e-7, "Grüße 🎉", []byte("raw"), seen, nil, true).
		Scan(&i8, &u64, &f, &s, &b, &t, &nul, &tr)
	if err != nil {
		fail("parameter types: %v", err)
	}
	// The driver sends a time.Time parameter as a string (as it does to MySQL).
	check("parameter types", []any{i8, u64, f, s, string(b), t, nul.Valid, tr},
		[]any{int64(-5), uint64(18446744073709551615), 1.5e-7, "Grüße 🎉", "raw", "2024-12-31 23:59:58", false, true})

	_, err = db.Query("SELECT * FROM nope WHERE a = ?", 1)
	check("1146 through prepare", code(err), uint16(1146))
	_, err = db.Exec("SELEC ?", 1)
	check("1064 through prepare", code(err), uint16(1064))

	// []byte parameters (sent raw in COM_STMT_EXECUTE) into VARBINARY and
	// BLOB, read back as bytes with HEX(); a text column refuses bytes that
	// are not UTF-8 with MariaDB's 1366.
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	bins := [][]byte{every, {}, []byte("\x00'\\\"")}
	if _, err := root.Exec("CREATE TABLE go_bins (id BIGINT, vb VARBINARY(300), bl BLOB)"); err != nil {
		fail("create go_bins: %v", err)
	}
	for i, v := range bins {
		if _, err := db.Exec("INSERT INTO go_bins VALUES (?, ?, ?)", i, v, v); err != nil {
			fail("insert []byte %d: %v", i, err)
		}
	}
	brows, err := db.Query("SELECT id, vb, bl, HEX(vb), HEX(bl) FROM go_bins WHERE id >= ? ORDER BY id", 0)
	if err != nil {
		fail("select go_bins: %v", err)
	}
	cols, _ := brows.ColumnTypes()
	check("binary column types", []string{cols[1].DatabaseTypeName(), cols[2].DatabaseTypeName()}, []string{"VARBINARY", "BLOB"})
	n := 0
	for ; brows.Next(); n++ {
		var id int
		var vb, bl []byte
		var hvb, hbl string
		if err := brows.Scan(&id, &vb, &bl, &hvb, &hbl); err != nil {
			fail("scan go_bins: %v", err)
		}
		want := bins[id]
		check(fmt.Sprintf("[]byte row %d", id), []any{vb != nil, bl != nil, string(vb), string(bl), hvb, hbl},
			[]any{true, true, string(want), string(want), fmt.Sprintf("%X", want), fmt.Sprintf("%X", want)})
	}
	brows.Close()
	check("[]byte rows", n, len(bins))
	var found int
	if err := db.QueryRow("SELECT id FROM go_bins WHERE vb = ?", every).Scan(&found); err != nil {
		fail("[]byte in WHERE: %v", err)
	}
	check("[]byte in WHERE", found, 0)
	if _, err := root.Exec("CREATE TABLE go_txt (t VARCHAR(20))"); err != nil {
		fail("create go_txt: %v", err)
	}
	_, err = db.Exec("INSERT INTO go_txt VALUES (?)", []byte{0xff, 0xfe})
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		fail("1366: got %v", err)
	}
	check("1366", []any{me.Number, me.Message},
		[]any{uint16(1366), "Incorrect string value: '\\xFF\\xFE' for column `quiver`.`go_txt`.`t` at row 1"})
	fmt.Println("PASS go-sql-driver/mysql: []byte into VARBINARY and BLOB and back, 1366")

	tx, err := db.Begin()
	if err != nil {
		fail("begin: %v", err)
	}
	if _, err := tx.Exec("INSERT INTO go_items (id) VALUES (?)", 3); err != nil {
		fail("insert in transaction: %v", err)
	}
	if err := tx.Commit(); err != nil {
		fail("commit: %v", err)
	}
	var count int
	if err := db.QueryRow("SELECT count(*) FROM go_items").Scan(&count); err != nil {
		fail("count: %v", err)
	}
	check("count", count, 3)
	fmt.Println("PASS go-sql-driver/mysql: prepared statements with each parameter type, errors, transactions")
	fmt.Println("ALL PASSED")
}
