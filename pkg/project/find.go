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
