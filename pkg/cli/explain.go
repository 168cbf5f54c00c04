package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
)

var explainFormats = []string{"table", "json", "yaml", "markdown"}

func explainCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "explain",
		Usage: "show why a score is what it is",
		Subcommands: []*ucli.Command{{
			Name:      "risk-scorer",
			Aliases:   []string{"risk-scorers"},
			Usage:     "explain a risk scorer's score: its function, every value in scope, the aggregation",
			ArgsUsage: "KEY",
			Description: "Shows the methodology's function with the scorer's config substituted, every value of the\n" +
				"metric in the chosen runs with the risk the function gave it (in the order they were\n" +
				"aggregated), the values left out and why, and the aggregation that made the score: the\n" +
				"same numbers lf overview risk-scorers prints, to the last digit.",
			Flags: []ucli.Flag{
				outputFlag("table", explainFormats...),
				atFlag("explain the score as of `TIME`"),
			},
			Action: func(c *ucli.Context) error {
				if c.NArg() != 1 {
					return diag.Usagef("explain risk-scorer needs exactly one KEY argument")
				}
				format, err := outputFormat(c, explainFormats...)
				if err != nil {
					return err
				}
				at, err := parseWhen("at", c.String("at"), time.Now())
				if err != nil {
					return err
				}
				st, err := env.OpenExistingStore(c.Context)
				if err != nil {
					return err
				}
				defer st.Close()
				e, err := project.Explain(c.Context, st, c.Args().First(), at)
				if err != nil {
					return err
				}
				return env.writeReport(format, explainReport{e: e, at: at, app: st.App()})
			},
		}},
	}
}

// explainReport is the result of lf explain risk-scorer.
type explainReport struct {
	e   *risk.Explanation
	at  time.Time
	app string
}

func (r explainReport) Data() any {
	at := any(nil)
	if !r.at.IsZero() {
		at = formatWhen(r.at)
	}
	return output.Fields{{Key: "app", Value: r.app}, {Key: "at", Value: at}, {Key: "explanation", Value: r.e}}
}

func (r explainReport) View() any {
	e := r.e
	when := "now"
	if !r.at.IsZero() {
		when = "as of " + formatWhen(r.at)
	}
	m := e.Methodology
	doc := []string{
		fmt.Sprintf("# risk scorer %s (%s), %s", e.Key, e.Domain, when),
		fmt.Sprintf("methodology %s: risk = %s", m.Key, m.Function),
	}
	if len(m.Parameters) > 0 {
		var ps []string
		for _, p := range m.Parameters {
			ps = append(ps, p.String())
		}
		doc = append(doc, "config: "+strings.Join(ps, ", "), "with the config: risk = "+m.Substituted)
	}
	doc = append(doc, fmt.Sprintf("metric %s as %s; runs: %s", e.Metric, m.Variable, runsCell(e.Runs)))
	parts := output.Sections{lines(doc...)}
	if len(e.Values) > 0 {
		rows := make([][]string, 0, len(e.Values))
		for _, v := range e.Values {
			rows = append(rows, []string{v.Run.EvaluationKey + "/" + v.Run.ID, v.TaskSpecificationKey, v.ScorerKey, v.Metric, num(v.Value), num(v.Risk)})
		}
		parts = append(parts, table([]string{"RUN", "TASK", "SCORER KEY", "METRIC", "VALUE", "RISK"}, rows))
	}
	if len(e.Excluded) > 0 {
		rows := make([][]string, 0, len(e.Excluded))
		for _, v := range e.Excluded {
			rows = append(rows, []string{v.Run.EvaluationKey + "/" + v.Run.ID, v.TaskSpecificationKey, v.ScorerKey, v.Metric, num(v.Value), v.Reason})
		}
		parts = append(parts, lines("excluded:"), table([]string{"RUN", "TASK", "SCORER KEY", "METRIC", "VALUE", "WHY"}, rows))
	}
	tail := []string{"aggregation: " + e.Aggregation.Formula}
	switch {
	case e.Error != "":
		tail = append(tail, fmt.Sprintf("level %s: %s", e.Level, e.Error))
	case e.Score == nil:
		tail = append(tail, "score - (no_data)")
	default:
		tail = append(tail, fmt.Sprintf("score %s, level %s", num(*e.Score), e.Level))
	}
	return append(parts, lines(tail...))
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
