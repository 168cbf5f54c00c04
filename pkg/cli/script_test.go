package cli_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite" // sqlite-load opens stores as an older lf left them

	"github.com/lfcli/lf/pkg/cli"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lf": func() { os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, stderrLog())) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: each is the
// commands, their stdout, stderr and exit codes. LF_UPDATE=1 rewrites the
// expected output in the scripts.
func TestScripts(t *testing.T) {
	shared := testfiles.SharedDir()
	root := testfiles.RepoRoot()
	stderrs := filepath.Join(t.TempDir(), "stderr.log")
	t.Cleanup(func() { checkNoDebris(t, stderrs) })
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("LF_UPDATE") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("LF_REPO", root)
			env.Setenv(stderrLogEnv, stderrs)
			if st, err := os.Stat(shared); err == nil && st.IsDir() {
				env.Setenv("LF_SHARED", shared)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sqlite-load": sqliteLoad,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				// root writes into read-only folders: scripts skip those cases
				return os.Geteuid() == 0, nil
			}
			if cond == "shared" {
				st, err := os.Stat(shared)
				return err == nil && st.IsDir(), nil
			}
			return false, nil
		},
	})
}

// sqliteLoad is the script command `sqlite-load DB FILE.sql`: it runs the
// SQL of FILE (a dump of a store written by an older lf) into a new SQLite
// file DB, so that scripts can check how lf opens stores of earlier schemas.
func sqliteLoad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sqlite-load DB FILE.sql")
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0]))
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(ts.ReadFile(args[1]))
	ts.Check(err)
}
