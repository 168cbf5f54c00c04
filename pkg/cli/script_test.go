package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/lfcli/lf/pkg/cli"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"lf": func() { os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// sharedDir finds ../shared beside the repository (or $LF_SHARED).
func sharedDir() string {
	if d := os.Getenv("LF_SHARED"); d != "" {
		return d
	}
	if root := testfiles.RepoRoot(); root != "" {
		return filepath.Join(filepath.Dir(root), "shared")
	}
	return ""
}

// TestScripts runs the end-to-end scripts in testdata/script: each is the
// commands, their stdout, stderr and exit codes. LF_UPDATE=1 rewrites the
// expected output in the scripts.
func TestScripts(t *testing.T) {
	shared := sharedDir()
	root := testfiles.RepoRoot()
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("LF_UPDATE") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("LF_REPO", root)
			if st, err := os.Stat(shared); err == nil && st.IsDir() {
				env.Setenv("LF_SHARED", shared)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "shared" {
				st, err := os.Stat(shared)
				return err == nil && st.IsDir(), nil
			}
			return false, nil
		},
	})
}
