package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/cli"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/server"
)

// TestValidateAndServeAgree: for every server config in examples/ and
// broken variants of each, `lf validate` reports a problem exactly when
// `lf serve -c` (server.LoadConfig, in an environment that sets every key
// the file names) refuses the file.
func TestValidateAndServeAgree(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*/server*.yaml")
	if len(files) == 0 {
		t.Fatal("no server config in examples/")
	}
	variants := map[string]func(string) string{
		"as is":            func(s string) string { return s },
		"unknown field":    func(s string) string { return s + "colour: red\n" },
		"bad interval":     func(s string) string { return strings.Replace(s, "recalcInterval: 5m", "recalcInterval: -5m", 1) },
		"tenant and admin": func(s string) string { return strings.Replace(s, "admin: true", "admin: true\n    tenant: acme", 1) },
		"same key env twice": func(s string) string {
			return strings.Replace(s, "keyEnv: LF_KEY_GLOBEX", "keyEnv: LF_KEY_ACME", 1)
		},
		"rule twice": func(s string) string {
			i := strings.Index(s, "  - id: acme-critical")
			j := strings.Index(s[i+1:], "  - id:") + i + 1
			return s[:j] + s[i:j] + s[j:]
		},
		"bad score time": func(s string) string { return s + "scoreTime: yesterday\n" },
		"no api keys":    func(s string) string { return strings.Replace(s, "apiKeys:", "apiKeyz:", 1) },
		"deep":           func(s string) string { return s + "x: " + strings.Repeat("[", 100) + "\n" },
		"empty":          func(string) string { return "" },
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for name, mutate := range variants {
			dir := t.TempDir()
			text := mutate(string(b))
			if name != "as is" && text == string(b) {
				t.Errorf("%s: variant %q changed nothing", f, name)
			}
			p := filepath.Join(dir, "server.yaml")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			res := project.ValidateWith(dir, []string{p}, nil, nil, project.ValidateOptions{Kinds: cli.FileKinds()})
			_, serveDiags := server.LoadConfig("server.yaml", []byte(text), cli.ValidateEnv)
			validateBad := res.Err != nil || res.Diags.HasErrors()
			if validateBad != serveDiags.HasErrors() {
				t.Errorf("%s, %s: validate %v (%v), serve %v", f, name, validateBad, res.Diags, serveDiags)
			}
			if name == "as is" && validateBad {
				t.Errorf("%s: example is invalid: %v", f, res.Diags)
			}
		}
	}
}
