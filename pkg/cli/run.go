package cli

import (
	"fmt"
	"path/filepath"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/runfile"
)


func runCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "run",
		Usage: "upsert the entity files a run file lists, run its evaluations, show the risk scorers",
		Description: "A run file lists entity files under apply: (paths, folders or globs relative to it) and\n" +
			"evaluations: to run (agentleak, agent_risk), each recorded as an evaluation run.\n" +
			"The project is the nearest folder holding lf.yaml above the current directory, else above the run file.\n" +
			"The run file and every entity file are validated before anything is written; the entities are\n" +
			"upserted in one transaction, then the evaluations run in order. An evaluation that fails stops\n" +
			"the run with its exit code, keeping the entities and the evaluations recorded before it.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "run `FILE`", Required: true},
			outputFlag("table", "table", "json", "yaml"),
			&ucli.StringFlag{Name: "fail-on", Usage: "exit 1 when any risk scorer is at `LEVEL` or above (overrides the run file)"},
		},
		Action: func(c *ucli.Context) error {
			path := c.String("file")
			abs, err := filepath.Abs(path)
			if err != nil {
				return diag.Usagef("%v", err)
			}
			env.SetHint(filepath.Dir(abs))
			format, err := outputFormat(c, "table", "json", "yaml")
			if err != nil {
				return err
			}
			spec, diags := runfile.Load(path, env.Rel(path))
			if diags.HasErrors() {
				return diag.Invalid(diags)
			}
			failOnArg := spec.FailOn
			if c.IsSet("fail-on") {
				failOnArg = c.String("fail-on")
			}
			failOn, err := parseFailOn(failOnArg)
			if err != nil {
				return err
			}
			st, err := env.OpenStore(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			info := env.Stderr
			if format == "table" {
				info = env.Stdout
			}
			if len(spec.Apply) > 0 {
				b, err := loadChecked(c.Context, env, st, spec.Apply)
				if err != nil {
					return err
				}
				changes, err := project.Upsert(c.Context, st, b)
				if err != nil {
					return err
				}
				counts := map[string]int{}
				for _, ch := range changes {
					counts[string(ch.Outcome)]++
				}
				fmt.Fprintf(info, "applied %d entities: %d created, %d updated, %d unchanged\n",
					len(changes), counts["created"], counts["updated"], counts["unchanged"])
			}
			now := time.Now().UTC()
			for _, ev := range spec.Evaluations {
				fn, _ := runfile.Lookup(ev.Name)
				rep, err := fn(c.Context, runfile.Env{
					ProjectDir: env.ProjectDir(), BaseDir: spec.BaseDir, RunFile: spec.Rel, Pointer: ev.Pointer, Store: st, Now: now,
				}, ev.Spec)
				if err != nil {
					return err
				}
				fmt.Fprintln(info, rep.Title)
				for _, l := range rep.Lines {
					fmt.Fprintf(info, "  %s\n", l)
				}
			}
			if format == "table" {
				fmt.Fprintln(info)
			}
			res, err := project.Overview(c.Context, st, project.OverviewFilter{Domain: spec.Domain})
			if err != nil {
				return err
			}
			if err := writeOverview(env, res, format); err != nil {
				return err
			}
			return gate(res, failOn)
		},
	}
}
