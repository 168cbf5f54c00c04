// Package project finds and loads an lf project: a folder with lf.yaml and
// YAML files of entities, keeping every file's YAML positions for diagnostics.
package project

import (
	"os"
	"path/filepath"
)

// MarkerFile marks the root of a project.
const MarkerFile = "lf.yaml"

// StoreRel is the default store location inside a project.
const StoreRel = ".lf/lf.db"

// FindRoot returns the nearest ancestor of start (start included) holding
// lf.yaml, and whether one was found.
func FindRoot(start string) (string, bool) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return start, false
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, MarkerFile)); err == nil && !st.IsDir() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Rel returns path relative to the project root when it lies inside it, and
// path unchanged otherwise. Diagnostics use it so messages stay short.
func Rel(root, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || (len(r) > 2 && r[:3] == "../") {
		return path
	}
	return filepath.ToSlash(r)
}
