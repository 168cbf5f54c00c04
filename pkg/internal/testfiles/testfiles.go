// Package testfiles holds what tests share: the repository root and its
// example YAML files (fuzz seeds, validation of every example), the shared
// reference folder, the benchmark trace file, and whether the long checks
// run in full.
package testfiles

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RepoRoot returns the folder holding go.mod above the working directory.
func RepoRoot() string {
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

// ExampleYAML lists the YAML files under examples/ and project/.
func ExampleYAML() []string {
	root := RepoRoot()
	var out []string
	for _, d := range []string{"examples", "project"} {
		filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}
