package cli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

// onPostgres are scripts of testdata/script that hold for any store: they
// run again with LF_STORE naming a fresh PostgreSQL database.
var onPostgres = []string{
	"agents_flow",
	"apps_flag_env",
	"apps_two_projects",
	"agents_two_tenants",
	"core_reference_example",
	"core_roundtrip",
	"frameworks_store",
	"import",
	"risk_overview_key_filter",
	"run_gates",
	"run_skip_unchanged",
	"serve_alerts",
}

// TestScriptsOnPostgres runs the scripts in onPostgres and those of
// testdata/postgres with the store on PostgreSQL, each in its own database
// of the LF_TEST_POSTGRES server (skipped without it, failed when CI=true).
func TestScriptsOnPostgres(t *testing.T) {
	server := pgtest.ServerDSN(t)
	root := testfiles.RepoRoot()
	files, err := filepath.Glob("testdata/postgres/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range onPostgres {
		files = append(files, filepath.Join("testdata/script", n+".txtar"))
	}
	testscript.Run(t, scriptParams(t, files, func(env *testscript.Env) error {
		dsn, drop, err := pgtest.Create(context.Background(), server)
		if err != nil {
			return err
		}
		env.Defer(func() {
			if err := drop(); err != nil {
				env.T().Log(err)
			}
		})
		env.Setenv("LF_STORE", dsn)
		env.Setenv("LF_REPO", root)
		return nil
	}))
}
