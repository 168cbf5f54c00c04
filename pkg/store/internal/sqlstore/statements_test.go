package sqlstore_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
	"github.com/lfcli/lf/pkg/store/postgres"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
	"github.com/lfcli/lf/pkg/store/sqlite"
)

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT a FROM t WHERE x = $1 AND y = $12 OR x = $1`: `SELECT a FROM t WHERE x = ?1 AND y = ?12 OR x = ?1`,
		`SELECT json_extract(b, '$.a'), '$1', "$2" FROM t`:   `SELECT json_extract(b, '$.a'), '$1', "$2" FROM t`,
		`SELECT 'it''s $1' || $2`:                            `SELECT 'it''s $1' || ?2`,
		`SELECT $`:                                           `SELECT $`,
	} {
		if got := sqlstore.Rebind(in); got != want {
			t.Errorf("Rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

// sqlStart tells a string literal that holds a SQL statement.
var (
	sqlStart    = regexp.MustCompile(`(?is)^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP|VACUUM|PRAGMA)\s`)
	placeholder = regexp.MustCompile(`[$?][0-9]+|\?`)
	space       = regexp.MustCompile(`\s+`)
)

// normal is a statement's text with its placeholders and spacing made
// alike, so that a statement copied from one dialect to the other matches.
func normal(q string) string {
	return strings.TrimSpace(space.ReplaceAllString(placeholder.ReplaceAllString(q, "?"), " "))
}

// statements adds the SQL string literals of the non-test Go files of dir
// to found, by normal text, each with where it is.
func statements(t *testing.T, dir string, found map[string][]string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			// A literal ending in a space is the head of a statement built
			// at run time, not a statement.
			if err == nil && sqlStart.MatchString(s) && strings.TrimRight(s, " \t\n") == s {
				q := normal(s)
				found[q] = append(found[q], fset.Position(lit.Pos()).String())
			}
			return true
		})
	}
}

// TestNoStatementInBothBackends fails when one statement is written twice
// in the store's SQL packages (in both backends, twice in one, or in both
// sides of lf store copy), or a copy of a statement of this package is: a
// statement more than one place runs belongs in statements.go, once.
func TestNoStatementInBothBackends(t *testing.T) {
	found := map[string][]string{}
	for _, dir := range []string{"../../sqlite", "../../postgres", "../.."} {
		statements(t, dir, found)
	}
	shared := map[string]bool{}
	for _, s := range sqlstore.All() {
		shared[normal(s.Postgres())] = true
		shared[normal(s.SQLite())] = true
	}
	for q, at := range found {
		if len(at) > 1 {
			t.Errorf("%s: one statement written %d times (write it once in sqlstore): %.80s", strings.Join(at, ", "), len(at), q)
		}
		if shared[q] {
			t.Errorf("%s: a copy of a statement of sqlstore (use it): %.80s", at[0], q)
		}
	}
	if len(found) < 20 || len(sqlstore.All()) == 0 {
		t.Fatalf("found %d statements in the backends and %d shared ones: the scan sees nothing", len(found), len(sqlstore.All()))
	}
	t.Logf("%d shared statements; %d written in one place of a backend or lf store copy", len(sqlstore.All()), len(found))
}

// TestStatementsPrepareOnSQLite prepares every shared statement's SQLite
// text on a fresh store: a rebinding or a variant gone wrong fails here
// even for a statement no other test runs.
func TestStatementsPrepareOnSQLite(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, ":memory:", true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seen := map[string]bool{}
	for _, s := range sqlstore.All() {
		if seen[s.Postgres()] {
			t.Errorf("statement written twice: %.80s", s.Postgres())
		}
		seen[s.Postgres()] = true
		p, err := st.DB.PrepareContext(ctx, s.SQLite())
		if err != nil {
			t.Errorf("%v: %s", err, s.SQLite())
			continue
		}
		p.Close()
	}
}

// TestStatementsPrepareOnPostgres prepares every shared statement's
// PostgreSQL text on a fresh store (needs LF_TEST_POSTGRES).
func TestStatementsPrepareOnPostgres(t *testing.T) {
	ctx := context.Background()
	st, err := postgres.Open(ctx, pgtest.New(t), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn, err := st.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, s := range sqlstore.All() {
		if _, err := conn.Conn().Prepare(ctx, "", s.Postgres()); err != nil {
			t.Errorf("%v: %s", err, s.Postgres())
		}
	}
}
