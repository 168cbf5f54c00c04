package cli

import (
	"fmt"
	"os"
	"regexp"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

var complianceFormats = []string{"table", "json", "yaml", "markdown", "junit", "sarif"}

func overviewComplianceCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "compliance",
		Usage: "each requirement of the project's compliance frameworks: met, partial, gap or no_data, from the risk scorers that evidence it",
		Description: "Frameworks are the stored ones (lf add -f FILE) with those of the files and folders given with -f\n" +
			"(a framework of the files replaces the stored one of its key).\n" +
			"A requirement is met when every evidence risk scorer with data is at or below its met_at level,\n" +
			"partial when some are above, gap when all are, and no_data when none has data in scope.\n" +
			"json, yaml and markdown carry the evidence matrix and a SHA-256 digest over it; SOURCE_DATE_EPOCH\n" +
			"fixes the report time that goes into the digest, so that it can be reproduced.",
		Flags: []ucli.Flag{
			&ucli.StringSliceFlag{Name: "file", Aliases: []string{"f"}, Usage: "read frameworks also from `PATH` (file, folder or glob; repeatable), over the stored ones"},
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
			st, err := env.OpenExistingStore(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			set, err := loadFrameworks(c, env, st, c.StringSlice("file"))
			if err != nil {
				return err
			}
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
				fmt.Fprintln(env.Stderr, "no frameworks: store some with lf add -f FILE (a file with a frameworks: list), or give them with -f")
			}
			report := frameworks.Report{Results: res, Gate: gate}
			if format == "json" || format == "yaml" || format == "markdown" {
				at, err := compliance.ReportTime()
				if err != nil {
					return diag.Usagef("%v", err)
				}
				report = report.Sealed(at)
			}
			if err := writeCompliance(env, format, report); err != nil {
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
	if format == "markdown" {
		if err := w.Write(r.DigestNote()); err != nil {
			return diag.Internal(err)
		}
	}
	return w.Close()
}

// frameworksKey finds the files that may hold frameworks before they are
// parsed: a top-level frameworks key.
var frameworksKey = regexp.MustCompile(`(?m)^["']?frameworks["']?\s*:`)

// loadFrameworks returns the stored frameworks with those of the files
// among paths (a framework of the files replaces the stored one of its
// key). In a folder, files without a frameworks list are passed over, while
// a file given by name must hold frameworks. Every problem is reported at
// once.
func loadFrameworks(c *ucli.Context, env *Env, st *store.Store, paths []string) (frameworks.Set, error) {
	stored, err := project.StoredFrameworks(c.Context, st)
	if err != nil {
		return nil, diag.Internal(err)
	}
	if len(paths) == 0 {
		return frameworks.Merge(stored, nil), nil
	}
	root := env.ProjectDir()
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
	var picked []string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err == nil && !byName[p] && !frameworksKey.Match(data) {
			continue
		}
		picked = append(picked, p)
	}
	if len(picked) == 0 {
		return frameworks.Merge(stored, nil), nil
	}
	b, ds, err := project.LoadEntities(root, picked, env.Stdin, fileKinds)
	if err != nil {
		return nil, err
	}
	if !ds.HasErrors() {
		b.Only(model.KindFramework)
		ds = append(ds, b.Check(nil)...)
	}
	set := frameworks.FromEntities(b.Entities)
	for _, f := range b.Files {
		if byName[f.Path] && !holdsFramework(set, f.Rel) {
			ds = append(ds, diag.Diagnostic{File: f.Rel, Line: 1, Col: 1, Msg: "holds no frameworks: expected frameworks: [{key: ..., name: ..., requirements: [...]}]"})
		}
	}
	if ds.HasErrors() {
		return nil, diag.Invalid(ds)
	}
	printWarnings(env, ds)
	return frameworks.Merge(stored, set), nil
}

func holdsFramework(set frameworks.Set, file string) bool {
	for _, l := range set {
		if l.Doc != nil && l.Doc.File == file {
			return true
		}
	}
	return false
}
