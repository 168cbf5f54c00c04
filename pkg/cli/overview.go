package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
)

func overviewCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "overview",
		Usage: "show scores and levels",
		Subcommands: append([]*ucli.Command{{
			Name:    "risk-scorers",
			Aliases: []string{"risk-scorer"},
			Usage:   "score every risk scorer from the latest evaluation runs in its scope",
			Description: "Each risk scorer applies its methodology, with its config, to the values of its metric in the\n" +
				"latest completed run of each evaluation key in scope, aggregates them (mean, max or min),\n" +
				"clamps to 0..10 and maps the score to a level: low <= 2 < medium <= 4 < high <= 9 < critical.\n" +
				"A scorer with no value in scope has score null and level no_data.",
			Flags: append([]ucli.Flag{
				&ucli.StringSliceFlag{Name: "key", Usage: "only the risk scorer `KEY` (repeatable)"},
				&ucli.StringFlag{Name: "domain", Usage: "only risk scorers of `DOMAIN`"},
				outputFlag("table", append([]string{"table", "json", "yaml"}, ciFormats...)...),
				failOnFlag("exit 1 when any risk scorer is at `LEVEL` or above (low, medium, high, critical), is error or has no data (no_data: only then)"),
				allowNoDataFlag(),
				atFlag("score as of `TIME`: the latest run of each evaluation key created at or before it"),
			}, append(riseFlags(), trendFlags()...)...),
			Action: func(c *ucli.Context) error {
				failOn, err := parseFailOn(c.String("fail-on"), c.Bool("allow-no-data"))
				if err != nil {
					return err
				}
				v, err := env.openView(c, false, append([]string{"table", "json", "yaml"}, ciFormats...)...)
				if err != nil {
					return err
				}
				defer v.st.Close()
				format, st, at := v.format, v.st, v.at
				filter := project.OverviewFilter{Keys: c.StringSlice("key"), Domain: c.String("domain"), At: at}
				res, err := project.Overview(c.Context, st, filter)
				if err != nil {
					return err
				}
				rise, err := parseRise(c, st, filter)
				if err != nil {
					return err
				}
				trends, err := overviewTrends(c, st, filter, res)
				if err != nil {
					return err
				}
				if trends != nil && (format == "table" || format == "json" || format == "yaml") {
					err = env.writeReport(format, trendReport{res: res, trends: trends, caption: env.shows(st)})
				} else {
					err = writeScorersRise(env, res, format, failOn, rise, env.shows(st))
				}
				if err != nil {
					return err
				}
				if err := blindGate(c.Context, st, at, failOn); err != nil {
					return err
				}
				return gates(res, failOn, rise)
			},
		}}, overviewSubcommands(env)...),
	}
}

// parseFailOn and gate wrap risk.ParseGate and risk.Gate.Check, which
// overview and run share, with their exit codes.
func parseFailOn(s string, allowNoData bool) (risk.Gate, error) {
	g, err := risk.ParseGate(s)
	if err != nil {
		return g, diag.Usagef("%v", err)
	}
	if allowNoData && g.Level == risk.NoData {
		return g, diag.Usagef("--fail-on no_data fails on no_data only: it cannot go with --allow-no-data (or overview.allow_no_data)")
	}
	g.AllowNoData = allowNoData
	return g, nil
}

func failOnFlag(usage string) ucli.Flag {
	return &ucli.StringFlag{Name: "fail-on", Usage: usage}
}

// allowNoDataFlag is the explicit opt-out of the rule that a gate fails
// on risk scorers with no data.
func allowNoDataFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "allow-no-data", Usage: "risk scorers with no value in scope (no_data), or no risk scorer at all, do not trip --fail-on"}
}

// gate returns an ExitGate error when a result trips failOn.
func gate(res []risk.Result, failOn risk.Gate) error {
	if err := failOn.Check(res); err != nil {
		return diag.Gatef("%v", err)
	}
	return nil
}

func writeOverview(env *Env, res []risk.Result, format, caption string) error {
	if res == nil {
		res = []risk.Result{}
	}
	if format == "table" && len(res) == 0 {
		fmt.Fprintln(env.Stderr, "no risk scorers: add some with `lf add -f FILE`")
	}
	return env.writeReport(format, overviewReport{res, caption})
}

// overviewReport is the result of lf overview risk-scorers; its table
// starts with the caption naming the app and store it shows.
type overviewReport struct {
	res     []risk.Result
	caption string
}

func (o overviewReport) Data() any { return o.res }

func (o overviewReport) View() any {
	rows := make([][]string, 0, len(o.res))
	for _, r := range o.res {
		score := "-"
		if r.Score != nil {
			score = fmt.Sprintf("%.2f", *r.Score)
		}
		level := string(r.Level)
		if r.Error != "" {
			level += ": " + r.Error
		}
		rows = append(rows, []string{r.Key, r.DisplayName, r.Domain, r.RiskScoringMethodologyKey, score, level, fmt.Sprint(r.Values), runsCell(r.Runs)})
	}
	t := &output.TableView{Header: []string{"KEY", "NAME", "DOMAIN", "METHODOLOGY", "SCORE", "LEVEL", "VALUES", "RUNS"}, Rows: rows}
	if o.caption == "" {
		return t
	}
	return output.Sections{lines(o.caption), t}
}

func runsCell(runs []risk.RunRef) string {
	if len(runs) == 0 {
		return "-"
	}
	var parts []string
	for i, r := range runs {
		if i == 2 {
			parts = append(parts, fmt.Sprintf("+%d more", len(runs)-2))
			break
		}
		parts = append(parts, r.EvaluationKey+"/"+r.ID)
	}
	return strings.Join(parts, ", ")
}
