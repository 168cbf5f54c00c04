package project

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
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
			return nil, diag.Usagef("%s already exists; lf init writes a new project and does not overwrite files", filepath.Join(dir, e.Name()))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, diag.IOf("cannot create the project folder %s: %v", dir, unwrapPath(err))
	}
	var written []string
	for _, e := range entries {
		b, _ := scaffold.ReadFile("scaffold/" + e.Name())
		if e.Name() == MarkerFile {
			b = withApp(b, InitApp(dir))
		}
		p := filepath.Join(dir, e.Name())
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return written, diag.IOf("cannot write %s: %v", p, unwrapPath(err))
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

// InitApp is the app key lf init writes into lf.yaml: the project folder's
// name, with the characters the id rule refuses replaced by "-" (my-app
// when nothing is left). Written down, the app no longer changes when the
// project is copied or renamed.
func InitApp(dir string) string {
	name := dir
	if abs, err := filepath.Abs(dir); err == nil {
		name = filepath.Base(abs)
	}
	if CheckApp(name) == nil {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	app := strings.Trim(b.String(), "-")
	if len(app) > 250 {
		app = app[:250]
	}
	if CheckApp(app) != nil {
		return "my-app"
	}
	return app
}

// withApp turns the scaffold's commented app: line into app: APP.
func withApp(lfYAML []byte, app string) []byte {
	v := app
	if strings.Trim(app, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
		q, _ := json.Marshal(app) // a JSON string is a YAML double-quoted scalar
		v = string(q)
	}
	return bytes.Replace(lfYAML, []byte("# app: my-app"), []byte("app: "+v), 1)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
