package detect

import (
	"os"
	"path/filepath"
	"testing"
)

// allFamilies enables every built-in detector family (what a scan without
// a config enables).
func allFamilies() map[string]bool {
	m := make(map[string]bool, len(Families))
	for _, f := range Families {
		m[f] = true
	}
	return m
}

// sharedDir finds ../shared next to the repository root (or $LF_SHARED).
func sharedDir(t testing.TB) string {
	if d := os.Getenv("LF_SHARED"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
