package store

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// CopyTable is what Copy did to one table.
type CopyTable struct {
	Name     string
	Source   int64  // rows in FROM
	Before   int64  // rows in TO before the copy
	After    int64  // rows in TO after it (Before plus the rows TO lacked)
	Checksum string // SHA-256 (first 16 hex digits) of FROM's rows in key order; TO's copies of them hash the same
	Derived  bool   // recomputed in TO from the copied tables, not copied
}

// CopyResult is what Copy did.
type CopyResult struct {
	Tables     []CopyTable
	Migrations []string // the schema versions both stores are at
}

// ErrCopyMismatch is returned when the rows in TO do not match FROM's after
// the copy; nothing is committed then.
var ErrCopyMismatch = errors.New("copy verification failed")

// derivedTables are recomputed in the destination from the tables they
// summarise instead of being copied, so that a copy into a store that
// already holds runs of the same keys keeps them right.
var derivedTables = map[string]bool{"latest_runs": true}

// Copy copies every row of every table of from into to (SQLite or
// PostgreSQL, either way) in one transaction of to: a row to already has
// (same primary key) is replaced by from's, rows only to has are kept, so
// running it again changes nothing. Before committing it reads both stores
// again in primary-key order and compares every row of from with its copy
// (counts and SHA-256 checksums); on any difference it rolls back and
// returns ErrCopyMismatch. Both stores must be at the same schema versions
// (opening them applies this build's migrations). progress, when not nil,
// is told each table as it starts.
func Copy(ctx context.Context, from, to *Store, progress func(table string)) (CopyResult, error) {
	var res CopyResult
	if from.Path == to.Path {
		return res, fmt.Errorf("%w: copy from %s to itself", ErrUsage, from.Path)
	}
	src, err := copySide(ctx, from, false)
	if err != nil {
		return res, err
	}
	defer src.rollback(ctx)
	dst, err := copySide(ctx, to, true)
	if err != nil {
		return res, err
	}
	defer dst.rollback(ctx)

	if res.Migrations, err = sameMigrations(ctx, from, to, src, dst); err != nil {
		return res, err
	}
	tables, err := copyTables(ctx, from, to, src, dst, progress, &res)
	if err != nil {
		return res, err
	}
	if err := dst.refreshLatest(ctx); err != nil {
		return res, err
	}
	if err := verifyTables(ctx, src, dst, tables, &res); err != nil {
		return res, err
	}
	if err := dst.commit(ctx); err != nil {
		return res, err
	}
	return res, nil
}

// sameMigrations returns the schema versions of src, or an ErrUsage error
// when dst is not at the same ones.
func sameMigrations(ctx context.Context, from, to *Store, src, dst copyDB) ([]string, error) {
	sv, err := src.migrations(ctx)
	if err != nil {
		return nil, err
	}
	dv, err := dst.migrations(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(sv, dv) {
		return nil, fmt.Errorf("%w: %s is at schema versions %s, %s at %s: open both with the same lf (lf store migrate)",
			ErrUsage, from.Path, strings.Join(sv, ","), to.Path, strings.Join(dv, ","))
	}
	return sv, nil
}

// copyTables checks each table of src against dst's and copies its rows
// (derived tables are counted, not copied), appending a CopyTable to res per
// table. It returns the tables with their columns in name order.
func copyTables(ctx context.Context, from, to *Store, src, dst copyDB, progress func(string), res *CopyResult) ([]copyTableDef, error) {
	tables, err := src.tables(ctx)
	if err != nil {
		return nil, err
	}
	dstTables, err := dst.tables(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]copyTableDef{}
	for _, t := range dstTables {
		byName[t.name] = t
	}
	for i, t := range tables {
		d, ok := byName[t.name]
		if !ok || !slices.Equal(sortedCopy(t.cols), sortedCopy(d.cols)) || t.noKey != d.noKey ||
			(!t.noKey && !slices.Equal(t.pk, d.pk)) {
			return nil, fmt.Errorf("%w: table %s differs between %s and %s", ErrUsage, t.name, from.Path, to.Path)
		}
		// Columns in name order: the checksum of a table is then the same
		// in both engines whatever order migrations added its columns in.
		tables[i].cols = sortedCopy(t.cols)
		if t.noKey {
			tables[i].pk = tables[i].cols
		}
		tables[i].index()
		t = tables[i]
		if progress != nil {
			progress(t.name)
		}
		ct := CopyTable{Name: t.name, Derived: derivedTables[t.name]}
		if ct.Before, err = dst.count(ctx, t); err != nil {
			return nil, err
		}
		if !ct.Derived {
			if err := copyRows(ctx, src, dst, t, ct.Before == 0); err != nil {
				return nil, err
			}
		}
		res.Tables = append(res.Tables, ct)
	}
	return tables, nil
}

// verifyTables counts each table of dst after the copy and compares every
// copied (not derived) table with src's.
func verifyTables(ctx context.Context, src, dst copyDB, tables []copyTableDef, res *CopyResult) error {
	for i, t := range tables {
		ct := &res.Tables[i]
		var err error
		if ct.After, err = dst.count(ctx, t); err != nil {
			return err
		}
		if ct.Derived {
			continue
		}
		if err := verify(ctx, src, dst, t, ct); err != nil {
			return err
		}
	}
	return nil
}

// copyRows streams t's rows from src into dst.
func copyRows(ctx context.Context, src, dst copyDB, t copyTableDef, empty bool) error {
	rows, err := src.rows(ctx, t)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := dst.write(ctx, t, rows, empty); err != nil {
		return fmt.Errorf("store copy: table %s: %w", t.name, err)
	}
	return rows.Err()
}

// verify reads t from both stores in primary-key order and checks that
// every row of src is in dst unchanged, filling ct's count and checksum.
func verify(ctx context.Context, src, dst copyDB, t copyTableDef, ct *CopyTable) error {
	a, err := src.rows(ctx, t)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := dst.rows(ctx, t)
	if err != nil {
		return err
	}
	defer b.Close()
	ha, hb := sha256.New(), sha256.New()
	var buf []byte
	var missing, changed int64
	bv, bok, err := next(b)
	if err != nil {
		return err
	}
	for a.Next() {
		av, err := a.Values()
		if err != nil {
			return err
		}
		ct.Source++
		buf = encodeRow(buf[:0], av)
		ha.Write(buf)
		// Skip rows only dst has.
		for bok && compareKeys(bv, av, t.pkIdx) < 0 {
			if bv, bok, err = next(b); err != nil {
				return err
			}
		}
		if !bok || compareKeys(bv, av, t.pkIdx) != 0 {
			missing++
			continue
		}
		buf = encodeRow(buf[:0], bv)
		hb.Write(buf)
		if !rowsEqual(av, bv) {
			changed++
		}
		if bv, bok, err = next(b); err != nil {
			return err
		}
	}
	if err := a.Err(); err != nil {
		return err
	}
	sa, sb := hex.EncodeToString(ha.Sum(nil))[:16], hex.EncodeToString(hb.Sum(nil))[:16]
	ct.Checksum = sa
	if missing > 0 || changed > 0 || sa != sb {
		return fmt.Errorf("%w: table %s: %d of %d rows missing, %d different (checksums %s and %s); nothing was committed",
			ErrCopyMismatch, t.name, missing, ct.Source, changed, sa, sb)
	}
	return nil
}

func next(it rowIter) ([]any, bool, error) {
	if !it.Next() {
		return nil, false, it.Err()
	}
	v, err := it.Values()
	return v, err == nil, err
}

// norm maps the Go types the two drivers return for one SQL type to one.
func norm(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return string(x)
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

// encodeRow appends a type-tagged, length-prefixed encoding of row.
func encodeRow(buf []byte, row []any) []byte {
	for _, v := range row {
		switch x := norm(v).(type) {
		case nil:
			buf = append(buf, 'n')
		case int64:
			buf = append(buf, 'i')
			buf = binary.LittleEndian.AppendUint64(buf, uint64(x))
		case float64:
			buf = append(buf, 'f')
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		case string:
			buf = append(buf, 's')
			buf = binary.LittleEndian.AppendUint64(buf, uint64(len(x)))
			buf = append(buf, x...)
		default:
			s := fmt.Sprint(x)
			buf = append(buf, '?')
			buf = binary.LittleEndian.AppendUint64(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
	}
	return buf
}

func rowsEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if compareValues(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

// compareKeys orders rows by their primary-key columns as both databases
// do: numbers by value, text and bytes by bytes (SQLite's BINARY and
// PostgreSQL's "C" collation).
func compareKeys(a, b []any, pkIdx []int) int {
	for _, i := range pkIdx {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

func compareValues(a, b any) int {
	a, b = norm(a), norm(b)
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
		if y, ok := b.(float64); ok {
			return cmp.Compare(float64(x), y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y)
		}
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, float64(y))
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case nil:
		if b == nil {
			return 0
		}
		return -1
	}
	return bytes.Compare(encodeRow(nil, []any{a}), encodeRow(nil, []any{b}))
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// Migration is one applied schema version.
type Migration struct {
	Version   string
	AppliedAt string // TimeFormat
}

// Migrations lists the schema versions applied to the store, oldest first.
func (s *Store) Migrations(ctx context.Context) ([]Migration, error) {
	side, err := copySide(ctx, s, false)
	if err != nil {
		return nil, err
	}
	defer side.rollback(ctx)
	return side.migrationTimes(ctx)
}
