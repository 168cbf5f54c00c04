package cli

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/store"
)

// storeCommand is `lf store`: schema migrations and copies between stores.
func storeCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "store",
		Usage: "manage the store itself: apply schema migrations, copy a store to another (SQLite <-> PostgreSQL)",
		Description: "Store URLs: " + store.URLForms + ".\n" +
			"A PostgreSQL URL is postgres://USER:PASSWORD@HOST:PORT/DB?sslmode=disable (or sslmode=require, ...);\n" +
			"the database must exist, lf creates its tables in it.",
		Subcommands: []*ucli.Command{storeMigrateCommand(env), storeCopyCommand(env)},
	}
}

func storeMigrateCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "migrate",
		Usage:     "apply the schema migrations this lf knows to the store (every command that writes does it too)",
		ArgsUsage: " ",
		Description: "Migrations are versioned (NN_name) and applied once each, in order, recorded in the table\n" +
			"schema_migrations; both backends have the same versions. Prints each version and when it was applied.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "store", Usage: "store `URL` (default: lf --store / LF_STORE, else .lf/lf.db in the project)"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 0 {
				return diag.Usagef("store migrate takes no arguments (the store is --store URL)")
			}
			url := c.String("store")
			if url == "" {
				if err := env.checkProject(); err != nil {
					return err
				}
				url = env.StoreURL()
			}
			start := store.FormatTime(time.Now()) // versions applied by this Open are later
			st, err := store.Open(c.Context, url)
			if err != nil {
				return storeError(err)
			}
			defer st.Close()
			ms, err := st.Migrations(c.Context)
			if err != nil {
				return diag.Internal(err)
			}
			var rows [][]string
			now := 0
			for _, m := range ms {
				when := m.AppliedAt
				if m.AppliedAt >= start {
					when += " (now)"
					now++
				}
				rows = append(rows, []string{m.Version, when})
			}
			fmt.Fprintf(env.Stdout, "store %s\n", st.Location())
			if err := output.Table(env.Stdout, []string{"VERSION", "APPLIED"}, rows); err != nil {
				return diag.Internal(err)
			}
			fmt.Fprintf(env.Stdout, "%d schema version%s, %d applied now\n", len(ms), plural(len(ms)), now)
			return nil
		},
	}
}

func storeCopyCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "copy",
		Usage:     "copy everything in store FROM into store TO (SQLite and PostgreSQL, either way), verified",
		ArgsUsage: "FROM TO",
		Description: "FROM must exist; TO is created or migrated as needed. The copy is one transaction of TO:\n" +
			"a row TO already has (same primary key) is replaced by FROM's (counted under REPLACED), rows only TO has are kept, so\n" +
			"running it again changes nothing. Before committing, both stores are read again in key order\n" +
			"and every row of FROM is compared with its copy: the counts and SHA-256 checksums printed are\n" +
			"those of FROM's rows and their copies. On any difference nothing is committed (exit 4).\n" +
			"latest_runs is recomputed in TO from its runs rather than copied.\n\n" +
			"  lf store copy .lf/lf.db 'postgres://lf:secret@db.internal:5432/lf?sslmode=require'",
		Action: func(c *ucli.Context) error {
			if c.NArg() != 2 {
				return diag.Usagef("store copy takes two store URLs: FROM TO")
			}
			fromURL, toURL := c.Args().Get(0), c.Args().Get(1)
			from, err := store.OpenExisting(c.Context, fromURL)
			if errors.Is(err, store.ErrNotExist) {
				return diag.Usagef("%v: nothing to copy", err)
			}
			if err != nil {
				return storeError(err)
			}
			defer from.Close()
			to, err := store.Open(c.Context, toURL)
			if err != nil {
				return storeError(err)
			}
			defer to.Close()
			start := time.Now()
			res, err := store.Copy(c.Context, from, to, nil)
			switch {
			case errors.Is(err, store.ErrUsage):
				return diag.Usagef("%v", err)
			case err != nil:
				return diag.Internal(err)
			}
			fmt.Fprintf(env.Stdout, "copied %s to %s\n", from.Location(), to.Location())
			var rows [][]string
			var total, replaced int64
			for _, t := range res.Tables {
				sum, src, rep := t.Checksum, strconv.FormatInt(t.Source, 10), "-"
				if t.Derived {
					sum, src = "recomputed", "-"
				} else {
					// rows TO held under a key FROM has too: FROM's replaced them
					n := t.Before + t.Source - t.After
					replaced += n
					rep = strconv.FormatInt(n, 10)
				}
				total += t.Source
				rows = append(rows, []string{t.Name, src, strconv.FormatInt(t.Before, 10), strconv.FormatInt(t.After, 10), rep, sum})
			}
			if err := output.Table(env.Stdout, []string{"TABLE", "ROWS IN FROM", "IN TO BEFORE", "IN TO AFTER", "REPLACED", "CHECKSUM (FROM = TO)"}, rows); err != nil {
				return diag.Internal(err)
			}
			fmt.Fprintf(env.Stdout, "verified: %d rows in %d tables equal in both stores (%s of TO replaced by FROM's); schema %s; %.1f s\n",
				total, len(res.Tables), count(int(replaced), "row", "rows"), res.Migrations[len(res.Migrations)-1], time.Since(start).Seconds())
			return nil
		},
	}
}
