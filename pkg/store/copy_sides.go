package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
	"github.com/lfcli/lf/pkg/store/postgres"
)

// The two ends of a Copy: one transaction of a SQLite or PostgreSQL store,
// read through the catalogue so that tables other migrations add are copied
// without a change here.

type copyTableDef struct {
	name  string
	cols  []string
	pk    []string
	pkIdx []int           // positions of pk in cols
	text  map[string]bool // text columns (ordered in the "C" collation on PostgreSQL)
	ints  map[string]bool // integer columns
	noKey bool            // the table has no primary key: pk is every column, rows are added when absent
}

type rowIter interface {
	Next() bool
	Values() ([]any, error)
	Err() error
	Close()
}

type copyDB interface {
	migrations(ctx context.Context) ([]string, error)
	migrationTimes(ctx context.Context) ([]Migration, error)
	tables(ctx context.Context) ([]copyTableDef, error)
	count(ctx context.Context, t copyTableDef) (int64, error)
	rows(ctx context.Context, t copyTableDef) (rowIter, error)
	write(ctx context.Context, t copyTableDef, rows rowIter, empty bool) error
	refreshLatest(ctx context.Context) error
	commit(ctx context.Context) error
	rollback(ctx context.Context)
}

// copySide opens one transaction on st: a read-only snapshot for the
// source, a write transaction for the destination.
func copySide(ctx context.Context, st *Store, write bool) (copyDB, error) {
	if st.db != nil {
		tx, err := st.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("store %s: begin: %w", st.Path, err)
		}
		return &sqliteSide{tx: tx, loc: st.Path}, nil
	}
	pg, ok := st.Backend.(*postgres.Store)
	if !ok {
		return nil, fmt.Errorf("%w: lf store copy reads and writes SQLite and PostgreSQL stores only", ErrUsage)
	}
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	if write {
		opts = pgx.TxOptions{}
	}
	tx, err := pg.Pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("store %s: begin: %w", st.Path, err)
	}
	return &pgSide{tx: tx, loc: st.Path}, nil
}

func (t *copyTableDef) index() {
	if len(t.pk) == 0 || t.noKey {
		t.noKey = true
		t.pk = slices.Clone(t.cols)
	}
	t.pkIdx = nil
	for _, k := range t.pk {
		for i, c := range t.cols {
			if c == k {
				t.pkIdx = append(t.pkIdx, i)
			}
		}
	}
}

func quoteList(cols []string, quote func(string) string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quote(c)
	}
	return strings.Join(q, ", ")
}

func sqliteQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func pgQuote(s string) string { return pgx.Identifier{s}.Sanitize() }

// refreshLatestSQL rebuilds latest_runs from evaluation_runs (both engines
// run it): the latest completed run of each app's evaluation keys.
const refreshLatestSQL = `INSERT INTO latest_runs (app, evaluation_key, id, created_at)
	SELECT app, evaluation_key, id, created_at FROM (
		SELECT app, evaluation_key, id, created_at,
			row_number() OVER (PARTITION BY app, evaluation_key ORDER BY created_at DESC, id DESC) AS n
		FROM evaluation_runs WHERE status = 'completed') latest
	WHERE n = 1`

// sqliteSide is one transaction of a SQLite store.
type sqliteSide struct {
	tx  *sql.Tx
	loc string
}

func (s *sqliteSide) errf(err error) error { return fmt.Errorf("store %s: copy: %w", s.loc, err) }

func (s *sqliteSide) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := s.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.errf(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, s.errf(err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s *sqliteSide) migrations(ctx context.Context) ([]string, error) {
	return s.strings(ctx, sqlstore.AppliedMigrations.SQLite())
}

func (s *sqliteSide) migrationTimes(ctx context.Context) ([]Migration, error) {
	rows, err := s.tx.QueryContext(ctx, sqlstore.MigrationTimes.SQLite())
	if err != nil {
		return nil, s.errf(err)
	}
	defer rows.Close()
	var out []Migration
	for rows.Next() {
		var m Migration
		if err := rows.Scan(&m.Version, &m.AppliedAt); err != nil {
			return nil, s.errf(err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (s *sqliteSide) tables(ctx context.Context) ([]copyTableDef, error) {
	names, err := s.strings(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var out []copyTableDef
	for _, n := range names {
		t := copyTableDef{name: n, text: map[string]bool{}, ints: map[string]bool{}}
		rows, err := s.tx.QueryContext(ctx, `SELECT name, upper(type), pk FROM pragma_table_info(?) ORDER BY cid`, n)
		if err != nil {
			return nil, s.errf(err)
		}
		pk := map[int]string{}
		for rows.Next() {
			var c, typ string
			var k int
			if err := rows.Scan(&c, &typ, &k); err != nil {
				rows.Close()
				return nil, s.errf(err)
			}
			t.cols = append(t.cols, c)
			t.text[c] = strings.Contains(typ, "TEXT")
			t.ints[c] = strings.Contains(typ, "INT")
			if k > 0 {
				pk[k] = c
			}
		}
		rows.Close()
		for i := 1; i <= len(pk); i++ {
			t.pk = append(t.pk, pk[i])
		}
		t.index()
		out = append(out, t)
	}
	return out, nil
}

func (s *sqliteSide) count(ctx context.Context, t copyTableDef) (int64, error) {
	var n int64
	if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM `+sqliteQuote(t.name)).Scan(&n); err != nil {
		return 0, s.errf(err)
	}
	return n, nil
}

func (s *sqliteSide) rows(ctx context.Context, t copyTableDef) (rowIter, error) {
	rows, err := s.tx.QueryContext(ctx, `SELECT `+quoteList(t.cols, sqliteQuote)+` FROM `+sqliteQuote(t.name)+
		` ORDER BY `+quoteList(t.pk, sqliteQuote))
	if err != nil {
		return nil, s.errf(err)
	}
	return &sqlRows{rows: rows, n: len(t.cols)}, nil
}

type sqlRows struct {
	rows *sql.Rows
	n    int
}

func (r *sqlRows) Next() bool { return r.rows.Next() }
func (r *sqlRows) Err() error { return r.rows.Err() }
func (r *sqlRows) Close()     { r.rows.Close() }
func (r *sqlRows) Values() ([]any, error) {
	vals := make([]any, r.n)
	ptrs := make([]any, r.n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	err := r.rows.Scan(ptrs...)
	return vals, err
}

func (s *sqliteSide) write(ctx context.Context, t copyTableDef, rows rowIter, empty bool) error {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ")
	q := `INSERT OR REPLACE INTO ` + sqliteQuote(t.name) + ` (` + quoteList(t.cols, sqliteQuote) + `) VALUES (` + marks + `)`
	if t.noKey {
		// No key to replace by: add the row unless an equal one is there.
		same := make([]string, len(t.cols))
		for i, c := range t.cols {
			same[i] = sqliteQuote(c) + ` IS ?`
		}
		q = `INSERT INTO ` + sqliteQuote(t.name) + ` (` + quoteList(t.cols, sqliteQuote) + `) SELECT ` + marks +
			` WHERE NOT EXISTS (SELECT 1 FROM ` + sqliteQuote(t.name) + ` WHERE ` + strings.Join(same, " AND ") + `)`
	}
	st, err := s.tx.PrepareContext(ctx, q)
	if err != nil {
		return s.errf(err)
	}
	defer st.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		if t.noKey {
			vals = append(vals, vals...)
		}
		if _, err := st.ExecContext(ctx, vals...); err != nil {
			return s.errf(err)
		}
	}
	return rows.Err()
}

func (s *sqliteSide) refreshLatest(ctx context.Context) error {
	if _, err := s.tx.ExecContext(ctx, sqlstore.DeleteAllLatest.SQLite()); err != nil {
		return s.errf(err)
	}
	if _, err := s.tx.ExecContext(ctx, refreshLatestSQL); err != nil {
		return s.errf(err)
	}
	return nil
}

func (s *sqliteSide) commit(ctx context.Context) error {
	if err := s.tx.Commit(); err != nil {
		return s.errf(err)
	}
	return nil
}

func (s *sqliteSide) rollback(ctx context.Context) { s.tx.Rollback() }

// pgSide is one transaction of a PostgreSQL store.
type pgSide struct {
	tx  pgx.Tx
	loc string
}

func (s *pgSide) errf(err error) error { return fmt.Errorf("store %s: copy: %w", s.loc, err) }

func (s *pgSide) migrations(ctx context.Context) ([]string, error) {
	rows, err := s.tx.Query(ctx, sqlstore.AppliedMigrations.Postgres())
	if err != nil {
		return nil, s.errf(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.errf(err)
	}
	return out, nil
}

func (s *pgSide) migrationTimes(ctx context.Context) ([]Migration, error) {
	rows, err := s.tx.Query(ctx, sqlstore.MigrationTimes.Postgres())
	if err != nil {
		return nil, s.errf(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Migration])
	if err != nil {
		return nil, s.errf(err)
	}
	return out, nil
}

func (s *pgSide) tables(ctx context.Context) ([]copyTableDef, error) {
	rows, err := s.tx.Query(ctx, `SELECT table_name::text FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
		ORDER BY table_name COLLATE "C"`)
	if err != nil {
		return nil, s.errf(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.errf(err)
	}
	var out []copyTableDef
	for _, n := range names {
		t := copyTableDef{name: n, text: map[string]bool{}, ints: map[string]bool{}}
		rows, err := s.tx.Query(ctx, `SELECT column_name::text, data_type::text FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, n)
		if err != nil {
			return nil, s.errf(err)
		}
		for rows.Next() {
			var c, typ string
			if err := rows.Scan(&c, &typ); err != nil {
				rows.Close()
				return nil, s.errf(err)
			}
			t.cols = append(t.cols, c)
			t.text[c] = typ == "text"
			t.ints[c] = typ == "integer" || typ == "bigint" || typ == "smallint"
		}
		rows.Close()
		rows, err = s.tx.Query(ctx, `SELECT a.attname::text FROM pg_index i
			JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
			WHERE i.indrelid = $1::regclass AND i.indisprimary
			ORDER BY array_position(i.indkey::int2[], a.attnum)`, pgQuote(n))
		if err != nil {
			return nil, s.errf(err)
		}
		if t.pk, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, s.errf(err)
		}
		t.index()
		out = append(out, t)
	}
	return out, nil
}

func (s *pgSide) count(ctx context.Context, t copyTableDef) (int64, error) {
	var n int64
	if err := s.tx.QueryRow(ctx, `SELECT count(*) FROM `+pgQuote(t.name)).Scan(&n); err != nil {
		return 0, s.errf(err)
	}
	return n, nil
}

func (s *pgSide) rows(ctx context.Context, t copyTableDef) (rowIter, error) {
	order := make([]string, len(t.pk))
	for i, k := range t.pk {
		order[i] = pgQuote(k)
		if t.text[k] {
			order[i] += ` COLLATE "C"`
		}
	}
	rows, err := s.tx.Query(ctx, `SELECT `+quoteList(t.cols, pgQuote)+` FROM `+pgQuote(t.name)+` ORDER BY `+strings.Join(order, ", "))
	if err != nil {
		return nil, s.errf(err)
	}
	return rows, nil
}

func (s *pgSide) write(ctx context.Context, t copyTableDef, rows rowIter, empty bool) error {
	target := t.name
	if !empty {
		// Into a scratch table first, then one upsert.
		target = "lf_copy_" + t.name
		if _, err := s.tx.Exec(ctx, `CREATE TEMP TABLE `+pgQuote(target)+` (LIKE `+pgQuote(t.name)+`) ON COMMIT DROP`); err != nil {
			return s.errf(err)
		}
	}
	if _, err := s.tx.CopyFrom(ctx, pgx.Identifier{target}, t.cols, rows); err != nil {
		return s.errf(err)
	}
	if !empty {
		var set []string
		for _, c := range t.cols {
			set = append(set, pgQuote(c)+` = excluded.`+pgQuote(c))
		}
		action := `DO UPDATE SET ` + strings.Join(set, ", ")
		if len(t.pk) == len(t.cols) {
			action = `DO NOTHING`
		}
		cols := quoteList(t.cols, pgQuote)
		q := `INSERT INTO ` + pgQuote(t.name) + ` (` + cols + `) SELECT ` + cols + ` FROM ` + pgQuote(target) +
			` ON CONFLICT (` + quoteList(t.pk, pgQuote) + `) ` + action
		if t.noKey {
			q = `INSERT INTO ` + pgQuote(t.name) + ` (` + cols + `) SELECT ` + cols + ` FROM ` + pgQuote(target) +
				` EXCEPT SELECT ` + cols + ` FROM ` + pgQuote(t.name)
		}
		if _, err := s.tx.Exec(ctx, q); err != nil {
			return s.errf(err)
		}
		if _, err := s.tx.Exec(ctx, `DROP TABLE `+pgQuote(target)); err != nil {
			return s.errf(err)
		}
	}
	// Identity and serial columns continue after the copied numbers.
	for _, k := range t.pk {
		if !t.ints[k] || t.noKey {
			continue
		}
		if _, err := s.tx.Exec(ctx, `SELECT setval(seq, m) FROM (SELECT pg_get_serial_sequence($1, $2) AS seq,
			(SELECT max(`+pgQuote(k)+`) FROM `+pgQuote(t.name)+`) AS m) x WHERE seq IS NOT NULL AND m IS NOT NULL`,
			pgQuote(t.name), k); err != nil {
			return s.errf(err)
		}
	}
	return nil
}

func (s *pgSide) refreshLatest(ctx context.Context) error {
	if _, err := s.tx.Exec(ctx, sqlstore.DeleteAllLatest.Postgres()); err != nil {
		return s.errf(err)
	}
	if _, err := s.tx.Exec(ctx, refreshLatestSQL); err != nil {
		return s.errf(err)
	}
	return nil
}

func (s *pgSide) commit(ctx context.Context) error {
	if err := s.tx.Commit(ctx); err != nil {
		return s.errf(err)
	}
	return nil
}

func (s *pgSide) rollback(ctx context.Context) { s.tx.Rollback(context.WithoutCancel(ctx)) }
