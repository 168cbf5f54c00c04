package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedEnv names the folder of the reference data when it is not
// ../shared beside the repository.
const SharedEnv = "LF_SHARED"

// SharedDir returns the folder of the reference data: $LF_SHARED, else
// ../shared beside the repository root ("" outside a repository). The
// folder may not exist: a test that needs it skips and says so.
func SharedDir() string {
	if d := os.Getenv(SharedEnv); d != "" {
		return d
	}
	if root := RepoRoot(); root != "" {
		return filepath.Join(filepath.Dir(root), "shared")
	}
	return ""
}

// Root returns the repository root, failing tb when no go.mod is above the
// working directory.
func Root(tb testing.TB) string {
	tb.Helper()
	root := RepoRoot()
	if root == "" {
		tb.Fatal("no go.mod above the test's folder")
	}
	return root
}
