package cli

import (
	"fmt"
	"os"
	"regexp"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
)

var complianceFormats = []string{"table", "json", "yaml", "markdown", "junit", "sarif"}

func overviewComplianceCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "compliance",
		Usage: "each requirement of the project's compliance frameworks: met, partial, gap or no_data, from the risk scorers that evidence it",
		Description: "Frameworks are read from the project's `frameworks:` files (or the files and folders given with -f).\n" +
			"A requirement is met when every evidence risk scorer with data is at or below its met_at level,\n" +
			"partial when some are above, gap when all are, and no_data when none has data in scope.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "read frameworks from `PATH` (file, folder or glob; repeatable; default: the project folder)"},
			&ucli.StringFlag{Name: "framework", Usage: "only the framework `KEY`"},
			outputFlag("table", complianceFormats...),
			&ucli.StringFlag{Name: "fail-on", Usage: "exit 1 when a requirement is at `STATUS` (gap, or partial: partial or gap), or has no data"},
			&ucli.BoolFlag{Name: "allow-no-data", Usage: "requirements with no data do not trip --fail-on"},
		},
		Action: func(c *ucli.Context) error {
			format, err := outputFormat(c, complianceFormats...)
			if err != nil {
				return err
			}
			gate, err := frameworks.ParseGate(c.String("fail-on"), c.Bool("allow-no-data"))
			if err != nil {
				return diag.Usagef("%v", err)
			}
			set, err := loadFrameworks(env, c.StringSlice("file"))
			if err != nil {
				return err
			}
			st, err := env.OpenExistingStore(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			scored, err := project.Overview(c.Context, st, project.OverviewFilter{})
			if err != nil {
				return err
			}
			if ds := set.Check(scored); ds.HasErrors() {
				return diag.Invalid(ds)
			}
			res, err := set.Evaluate(c.String("framework"), scored)
			if err != nil {
				return diag.Usagef("%v", err)
			}
			if format == "table" && len(res) == 0 {
				fmt.Fprintln(env.Stderr, "no frameworks: add a file with a frameworks: list to the project")
			}
			if err := writeCompliance(env, format, frameworks.Report{Results: res, Gate: gate}); err != nil {
				return err
			}
			if err := gate.Check(res); err != nil {
				return diag.Gatef("%v", err)
			}
			return nil
		},
	}
}

func writeCompliance(env *Env, format string, r frameworks.Report) error {
	if format == "table" || format == "json" || format == "yaml" {
		return env.writeReport(format, r)
	}
	levels := make([]string, 0, len(frameworks.Statuses))
	for _, s := range frameworks.Statuses {
		levels = append(levels, string(s))
	}
	w, err := output.New(format, env.Stdout, output.Options{Levels: levels, ToolVersion: version()})
	if err != nil {
		return diag.Usagef("%v", err)
	}
	if err := w.Write(r); err != nil {
		return diag.Internal(err)
	}
	return w.Close()
}

// loadFrameworks reads the frameworks files among paths (default: the
// project folder; in a folder, files of other kinds are passed over, while
// a file given by name must be a frameworks file). Every problem is reported at once.
// frameworksKey finds the files that may be frameworks files before they
// are parsed: a top-level frameworks key.
var frameworksKey = regexp.MustCompile(`(?m)^["']?frameworks["']?\s*:`)

func loadFrameworks(env *Env, paths []string) (frameworks.Set, error) {
	root := env.ProjectDir()
	if len(paths) == 0 {
		paths = []string{root}
	}
	files, err := project.ExpandPaths(paths)
	if err != nil {
		return nil, err
	}
	byName := map[string]bool{} // files named one by one, not found in a folder
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			byName[p] = true
		}
	}
	var set frameworks.Set
	var ds diag.List
	for _, p := range files {
		named := byName[p]
		data, err := os.ReadFile(p)
		if err != nil {
			ds = append(ds, diag.Diagnostic{File: diag.Rel(root, p), Msg: fmt.Sprintf("cannot read: %v", err)})
			continue
		}
		if !named && !frameworksKey.Match(data) {
			continue
		}
		f, pds := project.ReadFile(root, p, nil, fileKinds)
		if f == nil || f.Type == nil || f.Type.Name != frameworks.File.Name {
			if !named && pds.HasErrors() {
				ds = append(ds, pds.Errors()...) // a broken frameworks file is not passed over
			} else if named {
				ds = append(ds, append(pds.Errors(), diag.Diagnostic{File: diag.Rel(root, p), Msg: "not a frameworks file: expected frameworks: [{key: ..., name: ..., requirements: [...]}]"})...)
			}
			continue
		}
		ds = append(ds, set.Add(f.Rel, f.Data)...)
	}
	if ds.HasErrors() {
		return nil, diag.Invalid(ds)
	}
	printWarnings(env, ds)
	return set, nil
}
