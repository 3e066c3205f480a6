// serverload: N connections (go-sql-driver/mysql, text protocol) run one
// statement back to back for a while; prints "queries wall_s cpu_s" on one
// line. A compiled client spends a few microseconds per query, so at 32
// connections on a small machine the servers, not the load generator, are
// what is measured (PyMySQL processes took 1.5 of 2 cores). bench/server.py
// runs it.
//
// Usage: serverload -port P -sql 'SELECT 1' -clients N -seconds S
// (-sql PING sends COM_PING).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

func main() {
	port := flag.Int("port", 3306, "server port on 127.0.0.1")
	query := flag.String("sql", "SELECT 1", "statement to repeat (PING: COM_PING)")
	clients := flag.Int("clients", 1, "connections, one goroutine each")
	seconds := flag.Float64("seconds", 5, "how long each connection repeats it")
	flag.Parse()

	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/quiver", *port))
	if err != nil {
		fail(err)
	}
	db.SetMaxOpenConns(*clients)
	db.SetMaxIdleConns(*clients)
	ctx := context.Background()
	conns := make([]*sql.Conn, *clients)
	for i := range conns {
		if conns[i], err = db.Conn(ctx); err != nil {
			fail(err)
		}
	}
	var wg sync.WaitGroup
	counts := make([]int, *clients)
	ends := make([]time.Time, *clients)
	errs := make(chan error, *clients)
	start := time.Now()
	deadline := start.Add(time.Duration(*seconds * float64(time.Second)))
	for i, c := range conns {
		wg.Add(1)
		go func(i int, c *sql.Conn) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if *query == "PING" {
					if err := c.PingContext(ctx); err != nil {
						errs <- err
						return
					}
				} else {
					rows, err := c.QueryContext(ctx, *query)
					if err != nil {
						errs <- err
						return
					}
					for rows.Next() {
					}
					if err := rows.Close(); err != nil {
						errs <- err
						return
					}
				}
				counts[i]++
			}
			ends[i] = time.Now()
		}(i, c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fail(err)
	}
	total, last := 0, start
	for i, n := range counts {
		total += n
		if ends[i].After(last) {
			last = ends[i]
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("%d %.6f %.6f\n", total, last.Sub(start).Seconds(), cpu.Seconds())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "serverload:", err)
	os.Exit(1)
}
