package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
)

var historyFormats = []string{"table", "json", "yaml", "markdown"}

func historyCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "history",
		Usage: "show how scores changed over time",
		Subcommands: []*ucli.Command{{
			Name:      "risk-scorer",
			Aliases:   []string{"risk-scorers"},
			Usage:     "the history of a risk scorer: one point per moment a run entered its scope",
			ArgsUsage: "KEY... | --all",
			Description: "Each point is the moment (created_at) one or more runs became the latest of their\n" +
				"evaluation key in the scorer's scope, and the score, level, values and runs the scorer\n" +
				"had from then on: what lf overview risk-scorers --at that moment prints. A run added\n" +
				"late with an earlier created_at takes its place in time.",
			Flags: []ucli.Flag{
				&ucli.BoolFlag{Name: "all", Usage: "the history of every risk scorer"},
				&ucli.StringFlag{Name: "domain", Usage: "only risk scorers of `DOMAIN` (with --all)"},
				outputFlag("table", historyFormats...),
			},
			Action: func(c *ucli.Context) error {
				f := project.OverviewFilter{Keys: c.Args().Slice(), Domain: c.String("domain")}
				switch {
				case c.Bool("all") && c.NArg() > 0:
					return diag.Usagef("history risk-scorer takes KEY arguments or --all, not both")
				case !c.Bool("all") && c.NArg() == 0:
					return diag.Usagef("history risk-scorer needs a KEY argument, or --all")
				case c.String("domain") != "" && !c.Bool("all"):
					return diag.Usagef("--domain goes with --all")
				}
				v, err := env.openView(c, false, historyFormats...)
				if err != nil {
					return err
				}
				defer v.st.Close()
				hs, err := project.Histories(c.Context, v.st, f)
				if err != nil {
					return err
				}
				if c.Bool("all") && len(hs) == 0 {
					return diag.Invalidf("no risk scorers%s to show the history of", appSuffix(v.st))
				}
				return env.writeReport(v.format, historyReport{app: v.st.App(), hs: hs})
			},
		}},
	}
}

// historyReport is the result of lf history risk-scorer.
type historyReport struct {
	app string
	hs  []risk.History
}

func (r historyReport) Data() any {
	return output.Fields{{Key: "app", Value: r.app}, {Key: "risk_scorers", Value: r.hs}}
}

func (r historyReport) View() any {
	rows := [][]string{}
	for _, h := range r.hs {
		if h.Error != "" {
			rows = append(rows, []string{h.Key, "-", "-", "error: " + h.Error, "-", "-", "-"})
			continue
		}
		if len(h.Points) == 0 {
			rows = append(rows, []string{h.Key, "-", "-", "no run in scope", "-", "-", "-"})
		}
		var prev *risk.Point
		for i := range h.Points {
			p := &h.Points[i]
			score := "-"
			if p.Score != nil {
				score = fmt.Sprintf("%.2f", *p.Score)
			}
			level := string(p.Level)
			if p.Error != "" {
				level += ": " + p.Error
			}
			rows = append(rows, []string{h.Key, p.At, score, level, trendOf(prev, p), fmt.Sprint(p.Values), runsCell(p.Changed)})
			prev = p
		}
	}
	return &output.TableView{Header: []string{"KEY", "AT", "SCORE", "LEVEL", "TREND", "VALUES", "NEW RUNS"}, Rows: rows}
}

// trendOf says how p moved from prev: rising, falling or steady, with the
// change of score; "-" for the first point or when either has no score.
func trendOf(prev, p *risk.Point) string {
	if prev == nil || prev.Score == nil || p.Score == nil {
		return "-"
	}
	return risk.TrendOf(*prev.Score, *p.Score).String()
}
