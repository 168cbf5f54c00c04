// Package sqlstore is the half of the two SQL store backends
// (pkg/store/sqlite and pkg/store/postgres) that is the same on both: every
// statement they share, written once, and the reads and writes whose logic
// is the same, over a small Querier interface each backend implements for
// its driver. A backend keeps only what differs: its driver, its
// transactions and locks, its fast paths (SQLite's prepared multi-row
// inserts, PostgreSQL's COPY, batches and LISTEN/NOTIFY) and the few
// statements only it runs.
package sqlstore

import (
	"strings"
)

// Stmt is one SQL statement in both dialects. Statements are written once
// with PostgreSQL's numbered placeholders ($1, $2, ...); the SQLite text is
// derived when the package is initialised, each $n becoming ?n (SQLite's
// numbered form, so a parameter used twice is bound once, as in
// PostgreSQL). The few statements whose SQL truly differs give both texts
// (variant).
type Stmt struct {
	pg, lite string
}

// Postgres is the statement's PostgreSQL text.
func (s *Stmt) Postgres() string { return s.pg }

// SQLite is the statement's SQLite text.
func (s *Stmt) SQLite() string { return s.lite }

// all is every statement of the package, in the order they are declared.
var all []*Stmt

// All returns every shared statement (for tests that check them all).
func All() []*Stmt { return all }

// stmt makes a statement written once, in PostgreSQL's placeholder form.
func stmt(pg string) *Stmt { return variant(pg, Rebind(pg)) }

// variant makes a statement whose SQL differs between the dialects; both
// take the same arguments in the same order.
func variant(pg, lite string) *Stmt {
	s := &Stmt{pg: pg, lite: lite}
	all = append(all, s)
	return s
}

// Rebind turns PostgreSQL placeholders ($1) into SQLite's numbered ones
// (?1), leaving quoted text and identifiers alone.
func Rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			c = '?'
		}
		b.WriteByte(c)
	}
	return b.String()
}
