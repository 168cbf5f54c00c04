package cli_test

import (
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	ucli "github.com/urfave/cli/v2"
	_ "modernc.org/sqlite" // sqlite-load opens stores as an older lf left them

	"github.com/lfcli/lf/pkg/cli"
	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/store/backend"
)

// TestMain makes the test binary lf itself when it runs under the name lf:
// scripts reach that through PATH (see lfOnPath) for `exec lf` and shells.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "lf" {
		os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, stderrLog()))
	}
	os.Exit(m.Run())
}

// TestScripts runs the end-to-end scripts in testdata/script: each is the
// commands, their stdout, stderr and exit codes. LF_UPDATE=1 rewrites the
// expected output in the scripts.
//
// A script line `lf ARGS` runs lf inside the test process (lfInProcess);
// `exec lf ARGS` runs it as a child process, which scripts keep for what
// needs one: standard input (`stdin FILE`), a shell around it
// (`exec sh -c 'lf ...; echo exit=$?'` to see the exit code).
func TestScripts(t *testing.T) {
	root := testfiles.RepoRoot()
	testscript.Run(t, scriptParams(t, []string{"testdata/script"}, func(env *testscript.Env) error {
		env.Setenv("LF_REPO", root)
		return nil
	}))
}

// scriptParams are the testscript parameters of lf's scripts: the scripts
// of dirs (folders, or single .txtar files), the commands lf and
// sqlite-load, the conditions root and shared, LF_SHARED when ../shared is
// there, and the check that no message of any lf run holds Go formatting
// debris; setup adds what the caller needs.
func scriptParams(t *testing.T, files []string, setup func(*testscript.Env) error) testscript.Params {
	shared := testfiles.SharedDir()
	bin := lfOnPath(t)
	stderrs := filepath.Join(t.TempDir(), "stderr.log")
	t.Cleanup(func() { checkNoDebris(t, stderrs) })
	p := testscript.Params{
		UpdateScripts: os.Getenv("LF_UPDATE") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv(stderrLogEnv, stderrs)
			if st, err := os.Stat(shared); err == nil && st.IsDir() {
				env.Setenv("LF_SHARED", shared)
			}
			return setup(env)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"lf":          lfInProcess,
			"lf-exit":     lfExit,
			"sqlite-load": sqliteLoad,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				// root writes into read-only folders: scripts skip those cases
				return os.Geteuid() == 0, nil
			case "shared":
				st, err := os.Stat(shared)
				return err == nil && st.IsDir(), nil
			}
			return false, nil
		},
	}
	// Absolute: an in-process run changes the working directory while other
	// scripts start.
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = abs
	}
	if len(files) == 1 && !strings.HasSuffix(files[0], ".txtar") {
		p.Dir = files[0]
	} else {
		p.Files = files
	}
	return p
}

// lfOnPath returns a folder holding lf: a link to this test binary, which
// TestMain turns into lf when it runs under that name.
func lfOnPath(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "lf")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// inProcess serializes the in-process lf runs of the scripts: a run
// changes the process's working directory and environment for its
// duration. The scripts themselves still run in parallel: testscript's own
// commands use absolute paths and exec gives children their own directory
// and environment, so neither depends on what a run changes.
var inProcess sync.Mutex

// lastExit is the exit code of each script's last in-process lf run, for
// lf-exit; inProcess guards it.
var lastExit = map[*testscript.TestScript]int{}

// processEnv names the variables lf reads from the process environment
// rather than through cli.Env.Getenv (the flags' variables, which urfave/cli
// reads itself, are added by TestProcessEnvHasFlagVars); an in-process run
// sets them to the script's values (unset when the script has none).
var processEnv = []string{
	"LF_APP", "LF_PROJECT", "LF_STORE", // --app, --project, --store
	"SOURCE_DATE_EPOCH",      // canonical compliance times
	"LF_PROGRESS_AFTER",      // progress bars
	backend.AbandonEnv,       // the store's tests of abandoned runs
	"LF_SERVE_RUNTIME_STATS", // lf serve's runtime statistics
}

// lfInProcess is the script command `lf ARGS`: lf run in this process, in
// the script's current directory and environment, its output the command's
// stdout and stderr. A child process costs the start-up of a 40 MB binary
// per command, which was most of this package's test time.
func lfInProcess(ts *testscript.TestScript, neg bool, args []string) {
	var stderr io.Writer = ts.Stderr()
	if p := ts.Getenv(stderrLogEnv); p != "" {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		ts.Check(err)
		defer f.Close()
		stderr = io.MultiWriter(stderr, f)
	}
	inProcess.Lock()
	defer inProcess.Unlock()
	wd, err := os.Getwd()
	ts.Check(err)
	ts.Check(os.Chdir(ts.MkAbs(".")))
	defer func() { ts.Check(os.Chdir(wd)) }()
	for _, k := range processEnv {
		old, had := os.LookupEnv(k)
		if v := ts.Getenv(k); v != "" {
			os.Setenv(k, v)
		} else {
			os.Unsetenv(k)
		}
		defer func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		}()
	}
	gc := debug.SetGCPercent(100) // lf serve and scans set their own
	defer debug.SetGCPercent(gc)
	env := &cli.Env{Stdin: strings.NewReader(""), Stdout: ts.Stdout(), Stderr: stderr, Getenv: ts.Getenv}
	code := cli.RunEnv(env, append([]string{"lf"}, args...))
	lastExit[ts] = code
	switch {
	case neg && code == 0:
		ts.Fatalf("lf: unexpected success")
	case !neg && code != 0:
		ts.Fatalf("lf: exit status %d", code)
	}
}

// lfExit is the script command `lf-exit N`: the script's last `lf` exited
// with code N (the documented exit codes: 0 ok, 1 a gate failed, 2 usage,
// 3 bad input, 4 internal, I/O or store).
func lfExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lf-exit N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	inProcess.Lock()
	got, ok := lastExit[ts]
	inProcess.Unlock()
	switch {
	case !ok:
		ts.Fatalf("lf-exit: no lf has run in this script")
	case got != want:
		ts.Fatalf("lf exited with %d, want %d", got, want)
	}
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

// TestProcessEnvHasFlagVars: every variable a flag of lf reads is one an
// in-process run of the scripts sets.
func TestProcessEnvHasFlagVars(t *testing.T) {
	type envFlag interface{ GetEnvVars() []string }
	app := cli.NewApp(&cli.Env{Getenv: os.Getenv})
	var walk func(flags []ucli.Flag, cmds []*ucli.Command)
	walk = func(flags []ucli.Flag, cmds []*ucli.Command) {
		for _, f := range flags {
			ef, ok := f.(envFlag)
			if !ok {
				continue
			}
			for _, v := range ef.GetEnvVars() {
				if !slices.Contains(processEnv, v) {
					t.Errorf("flag %s reads %s, which lfInProcess does not set", f.Names()[0], v)
				}
			}
		}
		for _, c := range cmds {
			walk(c.Flags, c.Subcommands)
		}
	}
	walk(app.Flags, app.Commands)
}
