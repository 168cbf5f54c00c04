package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/schemas"
)

// SchemaDir is where lf init and lf schema --write put the schemas in a
// project, for editors to find through the modeline of each YAML file.
const SchemaDir = ".schemas"

// modelinePrefix starts the comment the YAML language server (VS Code's YAML
// extension and others) reads to pick a file's schema.
const modelinePrefix = "# yaml-language-server: $schema="

func schemaCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "schema",
		Usage:     "print the JSON Schema of a file kind, or write every schema into a folder for editors",
		ArgsUsage: "[KIND]",
		Description: "Without KIND, lists the kinds. With --write DIR, writes KIND's schema (or all of them) into DIR,\n" +
			"ready for a `# yaml-language-server: $schema=DIR/KIND.schema.json` line at the top of a YAML file\n" +
			"(lf init writes both). Kinds: " + strings.Join(schemaKinds(), ", ") + ".",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "write", Usage: "write the schemas into `DIR` instead of printing"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 1 {
				return diag.Usagef("schema takes at most one KIND")
			}
			kinds := schemaKinds()
			if c.NArg() == 1 {
				k := strings.TrimSuffix(c.Args().First(), ".schema.json")
				if _, err := schemaDoc(k); err != nil {
					return diag.Usagef("unknown schema kind %q: use %s", k, strings.Join(kinds, ", "))
				}
				kinds = []string{k}
			}
			if dir := c.String("write"); dir != "" {
				written, err := writeSchemas(dir, kinds)
				if err != nil {
					return diag.IOf("schema --write %s: %v", dir, pathErr(err))
				}
				for _, p := range written {
					fmt.Fprintf(env.Stdout, "wrote %s\n", p)
				}
				return nil
			}
			if c.NArg() == 0 {
				for _, k := range kinds {
					fmt.Fprintln(env.Stdout, k)
				}
				return nil
			}
			b, _ := schemaDoc(kinds[0])
			_, err := env.Stdout.Write(b)
			return err
		},
	}
}

// schemaKinds lists the kinds with a schema: the names of the embedded
// *.schema.json files.
func schemaKinds() []string {
	names, _ := fs.Glob(schemas.FS, "*.schema.json")
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, strings.TrimSuffix(n, ".schema.json"))
	}
	sort.Strings(out)
	return out
}

func schemaDoc(kind string) ([]byte, error) {
	if strings.ContainsAny(kind, `/\`) {
		return nil, fs.ErrNotExist
	}
	return schemas.FS.ReadFile(kind + ".schema.json")
}

// idLine is the embedded schemas' $id (lf:///schemas/...): an editor cannot
// resolve that scheme, so written copies drop it and their relative $refs
// resolve against the file's own location.
var idLine = regexp.MustCompile(`(?m)^\s*"\$id":\s*"lf:///[^"]*",\r?\n`)

func writeSchemas(dir string, kinds []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// A schema may $ref another: write those too.
	need := map[string]bool{}
	for _, k := range kinds {
		need[k] = true
		b, err := schemaDoc(k)
		if err != nil {
			return nil, err
		}
		for _, m := range regexp.MustCompile(`"\$ref":\s*"([a-z_-]+)\.schema\.json`).FindAllSubmatch(b, -1) {
			need[string(m[1])] = true
		}
	}
	var written []string
	for _, k := range schemaKinds() {
		if !need[k] {
			continue
		}
		b, _ := schemaDoc(k)
		p := filepath.Join(dir, k+".schema.json")
		if err := os.WriteFile(p, idLine.ReplaceAll(b, nil), 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// schemaKindOf is the schema of a project's YAML file by its name.
func schemaKindOf(path string) string {
	switch filepath.Base(path) {
	case "lf.yaml", "lf.yml":
		return "lf"
	case "run.yaml", "run.yml":
		return "run"
	}
	return "project"
}

// addModeline puts a yaml-language-server line pointing at schema (a path
// relative to the file) at the top of a YAML file that has none.
func addModeline(path, schema string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if bytes.Contains(b, []byte(modelinePrefix)) {
		return nil
	}
	line := modelinePrefix + filepath.ToSlash(schema) + "\n"
	return os.WriteFile(path, append([]byte(line), b...), 0o644)
}

// withSchemas writes the schemas into dir/.schemas and a modeline into each
// YAML file of written, so editors complete and check fields as people type.
func withSchemas(dir string, written []string) ([]string, error) {
	sd := filepath.Join(dir, SchemaDir)
	kinds := schemaKinds()
	out, err := writeSchemas(sd, kinds)
	if err != nil {
		return nil, err
	}
	for _, p := range written {
		if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" {
			continue
		}
		rel, err := filepath.Rel(filepath.Dir(p), filepath.Join(sd, schemaKindOf(p)+".schema.json"))
		if err != nil {
			return out, err
		}
		if err := addModeline(p, rel); err != nil {
			return out, err
		}
	}
	return out, nil
}
