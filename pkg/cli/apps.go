package cli

import (
	"errors"
	"fmt"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// noAppLabel shows store.NoApp (rows from before apps, not adopted yet).
const noAppLabel = "(none)"

// appsCommand is `lf apps`: the AI apps of the store, and renaming one.
func appsCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "apps",
		Usage: "list the AI apps in the store, with how many methodologies, risk scorers and runs each holds (and its name, lifecycle stage and PII access from ai_apps)",
		Description: "One store holds many AI apps: every methodology, risk scorer, run and score belongs to the app\n" +
			"of the project that wrote it (app: in lf.yaml, else the project folder's name; --app / LF_APP\n" +
			"override it). Commands read and write their own app only. The current app is marked with *.\n" +
			"A store written before apps keeps its rows in no app, shown as " + noAppLabel + ", until the first\n" +
			"command run for an app adopts them; `lf apps rename` moves an app's rows to another name.",
		Flags: []ucli.Flag{outputFlag("table", "table", "json", "yaml")},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 0 {
				return diag.Usagef("apps takes no arguments (did you mean 'lf apps rename OLD NEW'?)")
			}
			format, err := outputFormat(c, "table", "json", "yaml")
			if err != nil {
				return err
			}
			st, err := env.OpenExistingAllApps(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			apps, err := st.Apps(c.Context)
			if err != nil {
				return diag.Internal(err)
			}
			descs, err := project.AppDescriptions(c.Context, st, apps)
			if err != nil {
				return err
			}
			current, _ := env.App(c.Context, st) // an app that cannot be told marks none
			if format == "table" && len(apps) == 0 {
				fmt.Fprintln(env.Stderr, "no apps: the store holds no methodology, risk scorer or run yet")
			}
			return env.writeReport(format, appsReport{apps, descs, current, "store " + env.storeShown(st)})
		},
		Subcommands: []*ucli.Command{appsRenameCommand(env), appsPortfolioCommand(env)},
	}
}

// appsRenameCommand is `lf apps rename OLD NEW`.
func appsRenameCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "rename",
		Usage:     "move every methodology, risk scorer, run and value of app OLD to app NEW (\"\" names rows from before apps)",
		ArgsUsage: "OLD NEW",
		Action: func(c *ucli.Context) error {
			if c.NArg() != 2 {
				return diag.Usagef("apps rename takes two arguments: OLD NEW")
			}
			from, to := c.Args().Get(0), c.Args().Get(1)
			if from == noAppLabel {
				from = store.NoApp
			}
			if err := project.CheckApp(to); err != nil {
				return diag.Usagef("NEW: %v", err)
			}
			st, err := env.OpenExistingAllApps(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			moved, err := st.RenameApp(c.Context, from, to)
			switch {
			case errors.Is(err, store.ErrAppExists):
				return diag.Usagef("app %q already holds methodologies, risk scorers or runs; rename it first, or pick another name", to)
			case err != nil:
				return diag.Internal(err)
			case !moved:
				return diag.Usagef("no app %s in the store %s; see 'lf apps'", appLabel(from), env.storeShown(st))
			}
			fmt.Fprintf(env.Stdout, "renamed app %s to %s\n", appLabel(from), appLabel(to))
			return nil
		},
	}
}

func appLabel(app string) string {
	if app == store.NoApp {
		return noAppLabel
	}
	return strconv.Quote(app)
}

// appsReport is the result of lf apps.
type appsReport struct {
	apps    []store.AppInfo
	descs   map[string]*model.AIApp // each app's ai_apps entry, when it has one
	current string
	caption string // the store shown
}

func (a appsReport) Data() any {
	out := make([]output.Fields, 0, len(a.apps))
	for _, x := range a.apps {
		out = append(out, output.Fields{
			{Key: "app", Value: x.App},
			{Key: "current", Value: x.App == a.current},
			{Key: "methodologies", Value: x.Methodologies},
			{Key: "risk_scorers", Value: x.RiskScorers},
			{Key: "runs", Value: x.Runs},
			{Key: "latest_run_at", Value: storedTime(x.LatestRunAt)},
		})
		if d := a.descs[x.App]; d != nil {
			out[len(out)-1] = append(out[len(out)-1], output.Field{Key: "display_name", Value: d.DisplayName}, output.Field{Key: "key_info", Value: d.KeyInfo})
		}
	}
	return out
}

func (a appsReport) View() any {
	rows := make([][]string, 0, len(a.apps))
	for _, x := range a.apps {
		name := x.App
		if name == store.NoApp {
			name = noAppLabel
		}
		if x.App == a.current {
			name = "* " + name
		}
		latest := "-"
		if x.LatestRunAt != "" {
			latest = storedTime(x.LatestRunAt)
		}
		row := []string{name, strconv.Itoa(x.Methodologies), strconv.Itoa(x.RiskScorers), strconv.Itoa(x.Runs), latest}
		if len(a.descs) > 0 {
			display, ki := "-", keyInfoOf(nil)
			if d := a.descs[x.App]; d != nil {
				display, ki = d.DisplayName, keyInfoOf(d.KeyInfo)
			}
			row = append(row, display, orDash(ki.LifecycleStage), yesNo(ki.HasPIIAccess))
		}
		rows = append(rows, row)
	}
	header := []string{"APP", "METHODOLOGIES", "RISK SCORERS", "RUNS", "LATEST RUN"}
	if len(a.descs) > 0 { // the apps' descriptions, when one has an ai_apps entry
		header = append(header, "NAME", "STAGE", "PII")
	}
	return output.Sections{lines(a.caption), &output.TableView{Header: header, Rows: rows}}
}
