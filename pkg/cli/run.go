package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/evaluation"
	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/output"
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
			"the run with its exit code, keeping the entities and the evaluations recorded before it.\n" +
			"An AgentLeak scan whose traces, vaults and config are unchanged keeps its latest run.\n" +
			"With compliance:, the stored frameworks' requirements are decided after the overview and a\n" +
			"compliance line printed. Exit 1 when a gate the run file turns on trips: overview.fail_on\n" +
			"(or --fail-on), compliance.fail_on, or agentleak: {gate: true} with a blocked trace or no\n" +
			"trace at all. See docs/run.md.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "run `FILE`", Required: true},
			outputFlag("table", append([]string{"table", "json", "yaml"}, ciFormats...)...),
			failOnFlag("exit 1 when any risk scorer is at `LEVEL` or above, is error or has no data (overrides the run file's overview.fail_on)"),
			allowNoDataFlag(),
		},
		Action: func(c *ucli.Context) error { return runAction(c, env) },
	}
}

func runAction(c *ucli.Context, env *Env) error {
	path := c.String("file")
	abs, err := filepath.Abs(path)
	if err != nil {
		return diag.Usagef("%v", err)
	}
	env.SetHint(filepath.Dir(abs))
	format, err := outputFormat(c, append([]string{"table", "json", "yaml"}, ciFormats...)...)
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
	failOn, err := parseFailOn(failOnArg, spec.AllowNoData || c.Bool("allow-no-data"))
	if err != nil {
		return err
	}
	st, err := env.OpenStore(c.Context)
	if err != nil {
		return err
	}
	defer st.Close()
	// Progress goes to stdout beside a table, to stderr beside a document.
	info := env.Stderr
	if format == "table" {
		info = env.Stdout
	}
	res, err := runfile.Execute(c.Context, spec, runfile.Options{
		ProjectDir: env.ProjectDir(),
		Kinds:      fileKinds,
		OnApplied: func(a runfile.Applied) {
			printWarnings(env, a.Warnings)
			fmt.Fprintf(info, "applied %s: %d created, %d updated, %d unchanged\n", count(a.Entities, "entity", "entities"), a.Created, a.Updated, a.Unchanged)
		},
		OnReport: func(rep evaluation.Report) { printEvaluation(info, rep) },
	}, st)
	if err != nil {
		return err
	}
	if res.Compliance != nil || spec.Compliance != nil {
		fmt.Fprintln(info, frameworks.Summary(res.Compliance))
	}
	switch format {
	case "table":
		fmt.Fprintln(info)
		err = writeOverview(env, res.RiskScorers, format, env.shows(st))
	case "json":
		err = output.JSON(env.Stdout, res)
	case "junit", "sarif", "markdown":
		err = writeScorers(env, res.RiskScorers, format, failOn, env.shows(st))
	default:
		var b []byte
		if b, err = output.YAMLOf(res); err == nil {
			_, err = env.Stdout.Write(b)
		}
	}
	if err != nil {
		return err
	}
	return runGate(res, gate(res.RiskScorers, failOn))
}

func printEvaluation(w io.Writer, rep evaluation.Report) {
	fmt.Fprintln(w, rep.Title)
	for _, l := range rep.Lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}

// runGate joins the evaluations' gate failures and the overview's into one
// exit-1 error.
func runGate(res *runfile.Result, overview error) error {
	reasons := res.GateFailures()
	if overview != nil {
		reasons = append(reasons, overview.Error())
	}
	if len(reasons) == 0 {
		return nil
	}
	return diag.Gatef("%s", strings.Join(reasons, "; "))
}
