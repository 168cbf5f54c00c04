package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/lfcli/lf/pkg/cli"
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
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func repoRoot() string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// TestScripts runs the end-to-end scripts in testdata/script: each is the
// commands, their stdout, stderr and exit codes. LF_UPDATE=1 rewrites the
// expected output in the scripts.
func TestScripts(t *testing.T) {
	shared := sharedDir()
	root := repoRoot()
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
