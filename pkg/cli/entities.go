package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

const kindsHelp = "KIND is ai-app, risk-scoring-methodology, risk-scorer, evaluation-run or framework (singular or plural)"

func parseKind(s string) (project.KindInfo, error) {
	k, ok := project.ParseKind(s)
	if !ok {
		names := project.KindNames()
		if extra := extraKindNames(); len(extra) > 0 {
			names += ", " + strings.Join(extra, ", ")
		}
		return k, diag.Usagef("unknown kind %q: use one of %s", s, names)
	}
	return k, nil
}

// loadChecked loads entity files and checks them against the store's
// methodologies; any problem is an ExitInvalid error listing all of them.
func loadChecked(ctx context.Context, env *Env, st *store.Store, paths []string) (*project.Batch, error) {
	b, warns, err := project.LoadChecked(ctx, env.ProjectDir(), paths, env.Stdin, st, fileKinds)
	if err != nil {
		return nil, err
	}
	printWarnings(env, warns)
	return b, nil
}

func printWarnings(env *Env, diags diag.List) {
	for _, d := range diags.Warnings() {
		fmt.Fprintln(env.Stderr, d.String())
	}
}

// applyFiles loads and checks the -f files, hands them to write and prints
// what changed.
func applyFiles(c *ucli.Context, env *Env, write func(*store.Store, *project.Batch) ([]project.Change, error)) error {
	st, err := env.OpenStore(c.Context)
	if err != nil {
		return err
	}
	defer st.Close()
	b, err := loadChecked(c.Context, env, st, c.StringSlice("file"))
	if err != nil {
		return err
	}
	changes, err := write(st, b)
	if err != nil {
		return err
	}
	printChanges(env, changes)
	return nil
}

func printChanges(env *Env, changes []project.Change) {
	for _, c := range changes {
		fmt.Fprintf(env.Stdout, "%s %s %s\n", c.Kind, c.Key, c.Outcome)
	}
}

func addCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "add",
		Usage:     "validate entity files and upsert their entities by key, in one transaction",
		ArgsUsage: "[KIND] -f PATH...",
		Description: "PATH is a file, a folder (its *.yaml and *.yml files), a glob or - for standard input.\n" +
			"With KIND, only entities of that kind are added. " + kindsHelp + ".\n" +
			"Prints one line per entity: created, updated or unchanged. Nothing is written if anything is invalid.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "entity `PATH` (repeatable)", Required: true},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 1 {
				return diag.Usagef("add takes at most one KIND argument, got %d", c.NArg())
			}
			var kind model.Kind
			if c.NArg() == 1 {
				k, err := parseKind(c.Args().First())
				if err != nil {
					return err
				}
				kind = k.Kind
			}
			return applyFiles(c, env, func(st *store.Store, b *project.Batch) ([]project.Change, error) {
				if kind != "" {
					b.Only(kind)
				}
				return project.Upsert(c.Context, st, b)
			})
		},
	}
}

func setCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "set",
		Usage:     "replace the whole set of one kind with the entities of the files (what they omit is deleted)",
		ArgsUsage: "KIND -f PATH...",
		Description: kindsHelp + extraKindsHelp() + ".\nThe replacement is atomic: all of it or nothing. Files that hold none of KIND are refused\n" +
			"(exit 3, nothing written) unless --allow-empty empties the kind on purpose.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "entity `PATH` (repeatable)", Required: true},
			&ucli.BoolFlag{Name: "allow-empty", Usage: "replace the set with nothing when the files hold none of KIND (deletes every stored one)"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return diag.Usagef("set needs exactly one KIND argument")
			}
			if h, ok := lookupKind(c.Args().First()); ok && h.Set != nil {
				files := c.StringSlice("file")
				if len(files) != 1 {
					return diag.Usagef("set %s takes one -f FILE", c.Args().First())
				}
				return h.Set(c.Context, env, files[0])
			}
			k, err := parseKind(c.Args().First())
			if err != nil {
				return err
			}
			return applyFiles(c, env, func(st *store.Store, b *project.Batch) ([]project.Change, error) {
				return project.Replace(c.Context, st, k.Kind, b, c.Bool("allow-empty"))
			})
		},
	}
}

func extraKindsHelp() string {
	names := extraKindNames()
	if len(names) == 0 {
		return ""
	}
	return "; also " + fmt.Sprint(names)
}

func listCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:        "list",
		Usage:       "list the stored entities of one kind",
		ArgsUsage:   "KIND",
		Description: kindsHelp + ".",
		Flags:       []ucli.Flag{outputFlag("table", "table", "json")},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return diag.Usagef("list needs exactly one KIND argument")
			}
			k, err := parseKind(c.Args().First())
			if err != nil {
				return err
			}
			format, err := outputFormat(c, "table", "json")
			if err != nil {
				return err
			}
			st, err := env.OpenExistingStore(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			if format == "table" {
				fmt.Fprintln(env.Stdout, env.shows(st))
			}
			return listKind(c.Context, env, st, k.Kind, format)
		},
	}
}

func listKind(ctx context.Context, env *Env, st *store.Store, kind model.Kind, format string) error {
	switch kind {
	case model.KindAIApp:
		return listAIApps(ctx, env, st, format)
	case model.KindEvaluationRun:
		rows, err := st.Runs(ctx)
		if err != nil {
			return diag.Internal(err)
		}
		if format == "json" {
			type row struct {
				EvaluationKey string `json:"evaluation_key"`
				ID            string `json:"id"`
				CreatedAt     string `json:"created_at"`
				Status        string `json:"status"`
				Values        int    `json:"values"`
				Tool          string `json:"tool,omitempty"`
				SourceFile    string `json:"source_file,omitempty"`
				OriginalKey   string `json:"original_evaluation_key,omitempty"`
				OriginalID    string `json:"original_id,omitempty"`
			}
			out := make([]row, len(rows))
			for i, r := range rows {
				out[i] = row{r.EvaluationKey, r.ID, storedTime(r.CreatedAt), r.Status, r.Values, r.Tool, r.SourceFile, r.OriginalKey, r.OriginalID}
			}
			return output.JSON(env.Stdout, out)
		}
		var table [][]string
		for _, r := range rows {
			// imported runs show their tool, file and the tool's own names where the keys differ
			tool := r.Tool
			if r.SourceFile != "" {
				tool += " (" + r.SourceFile + ")"
			}
			orig := ""
			switch {
			case r.OriginalKey != "" && r.OriginalID != "":
				orig = r.OriginalKey + " / " + r.OriginalID
			case r.OriginalKey != "":
				orig = r.OriginalKey
			case r.OriginalID != "":
				orig = r.OriginalID
			}
			table = append(table, []string{r.EvaluationKey, r.ID, storedTime(r.CreatedAt), r.Status, fmt.Sprint(r.Values), tool, orig})
		}
		return output.Table(env.Stdout, []string{"EVALUATION", "ID", "CREATED", "STATUS", "VALUES", "TOOL", "TOOL NAME"}, table)
	case model.KindMethodology:
		ms, err := st.Methodologies(ctx)
		if err != nil {
			return diag.Internal(err)
		}
		keys := sortedKeys(ms)
		if format == "json" {
			out := make([]*model.Methodology, len(keys))
			for i, k := range keys {
				out[i] = ms[k]
			}
			return output.JSON(env.Stdout, out)
		}
		var table [][]string
		for _, k := range keys {
			m := ms[k]
			table = append(table, []string{m.Key, m.DisplayName, m.Function, fmt.Sprint(len(m.ConfigSpec))})
		}
		return output.Table(env.Stdout, []string{"KEY", "NAME", "FUNCTION", "PARAMETERS"}, table)
	case model.KindFramework:
		return listFrameworks(ctx, env, st, format)
	default:
		ss, err := st.RiskScorers(ctx)
		if err != nil {
			return diag.Internal(err)
		}
		if format == "json" {
			return output.JSON(env.Stdout, ss)
		}
		var table [][]string
		for _, s := range ss {
			table = append(table, []string{s.Key, s.DisplayName, s.Domain, s.RiskScoringMethodologyKey, s.Metric, s.Aggregation})
		}
		return output.Table(env.Stdout, []string{"KEY", "NAME", "DOMAIN", "METHODOLOGY", "METRIC", "AGGREGATION"}, table)
	}
}

func deleteCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:        "delete",
		Usage:       "delete one stored entity",
		ArgsUsage:   "KIND KEY",
		Description: kindsHelp + ". An evaluation run's KEY is EVALUATION_KEY/ID.",
		Action: func(c *ucli.Context) error {
			if c.NArg() != 2 {
				return diag.Usagef("delete needs KIND and KEY")
			}
			k, err := parseKind(c.Args().Get(0))
			if err != nil {
				return err
			}
			// nothing to delete from a store or app that does not exist: say so, create nothing
			st, err := env.OpenExistingStore(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			key := c.Args().Get(1)
			if err := project.Delete(c.Context, st, k.Kind, key); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s %s deleted\n", k.Kind, key)
			return nil
		},
	}
}

func exportCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "export",
		Usage:     "write stored entities as canonical YAML (sorted by key, comments kept)",
		ArgsUsage: "KIND|all",
		Description: "KIND is risk-scoring-methodologies, risk-scorers, evaluation-runs, frameworks (singular or plural) or all" + extraKindsHelp() + ".\n" +
			"Exporting, adding the result and exporting again gives the same bytes.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "out", Usage: "write to `FILE` instead of standard output (- is standard output)"},
			outputFlag("yaml", "yaml"),
		},
		Action: func(c *ucli.Context) error {
			if _, err := outputFormat(c, "yaml"); err != nil {
				return err
			}
			if c.NArg() != 1 {
				return diag.Usagef("export needs exactly one KIND argument (or all)")
			}
			if err := checkOut(c.String("out")); err != nil {
				return err
			}
			arg := c.Args().First()
			var data []byte
			if h, ok := lookupKind(arg); ok && h.Export != nil {
				var buf bytesBuffer
				if err := h.Export(c.Context, env, &buf); err != nil {
					return err
				}
				data = buf.b
			} else {
				var kind model.Kind
				if arg != "all" {
					k, err := parseKind(arg)
					if err != nil {
						return err
					}
					kind = k.Kind
				}
				st, err := env.OpenExistingStore(c.Context)
				if err != nil {
					return err
				}
				defer st.Close()
				if data, err = project.Export(c.Context, st, kind); err != nil {
					return err
				}
			}
			if out := c.String("out"); out != "" && out != "-" {
				return writeFileAtomic(out, withExportModeline(env.ProjectDir(), out, data))
			}
			if _, err := env.Stdout.Write(data); err != nil {
				return diag.IOf("cannot write to standard output: %v", pathErr(err))
			}
			return nil
		},
	}
}

// withExportModeline starts YAML written to the file out with the
// yaml-language-server line lf init writes, when the project has the
// editor schemas (.schemas/project.schema.json) and data has no such line:
// the exported file opens in an editor with completion and checks.
// Standard output stays the canonical bytes.
func withExportModeline(projectDir, out string, data []byte) []byte {
	if ext := filepath.Ext(out); ext != ".yaml" && ext != ".yml" {
		return data
	}
	if bytes.Contains(data, []byte(modelinePrefix)) {
		return data
	}
	schema := filepath.Join(projectDir, SchemaDir, "project.schema.json")
	if _, err := os.Stat(schema); err != nil {
		return data
	}
	absOut, err1 := filepath.Abs(out)
	absSchema, err2 := filepath.Abs(schema)
	if err1 != nil || err2 != nil {
		return data
	}
	rel, err := filepath.Rel(filepath.Dir(absOut), absSchema)
	if err != nil {
		return data
	}
	return append([]byte(modelinePrefix+filepath.ToSlash(rel)+"\n"), data...)
}

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}
