package project

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed scaffold/*.yaml
var scaffold embed.FS

// Init writes a new project into dir: lf.yaml, one methodology, one risk
// scorer, one evaluation run and a run file. It refuses to overwrite files
// and returns the paths it wrote.
func Init(dir string) ([]string, error) {
	entries, err := fs.ReadDir(scaffold, "scaffold")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name())); err == nil {
			return nil, fmt.Errorf("%s already exists; lf init writes a new project and does not overwrite files", filepath.Join(dir, e.Name()))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, e := range entries {
		b, _ := scaffold.ReadFile("scaffold/" + e.Name())
		p := filepath.Join(dir, e.Name())
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); err != nil {
		if err := os.WriteFile(gi, []byte(".lf/\n"), 0o644); err == nil {
			written = append(written, gi)
		}
	}
	return written, nil
}
