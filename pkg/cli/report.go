package cli

import (
	"bytes"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/report"
)

func reportCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "report",
		Usage: "write a self-contained HTML risk report from the store",
		Description: "One HTML file with everything inline (styles, SVG charts; no script, no font, no network):\n" +
			"every risk scorer with its level, score and runs, a level heat map by domain, the latest\n" +
			"AgentLeak scans (risk index per channel, verdicts), and each agent's score, tier, components\n" +
			"and a sparkline of its score history; each scorer's history as a small chart (and each domain's),\n" +
			"and under its row the explanation of its score (lf explain risk-scorer KEY); the stored compliance\n" +
			"frameworks as a matrix of requirements coloured by status, each linking to its evidence, with the\n" +
			"evidence digest. It opens offline from a file URL. With --at, the risk scorers and scans are shown\n" +
			"as of that moment. SOURCE_DATE_EPOCH fixes the report time.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "out", Value: "report.html", Usage: "write the report to `FILE` (- for standard output)"},
			&ucli.StringFlag{Name: "tenant", Usage: "only the agents of tenant `ID`"},
			atFlag("the risk scorers (scores, history, explanations) and AgentLeak scans as of `TIME`: the runs created up to then"),
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return diag.Usagef("report takes no arguments (got %q); name the file with --out", c.Args().First())
			}
			out := c.String("out")
			if err := checkOut(out); err != nil {
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
			now, err := reportNow()
			if err != nil {
				return err
			}
			d, err := report.Build(c.Context, st, report.Options{Tenant: c.String("tenant"), At: at, Now: now})
			if err != nil {
				return diag.Internal(err)
			}
			d.Title = "lf risk report: " + env.shows(st)
			var buf bytes.Buffer
			if err := report.WriteHTML(&buf, d); err != nil {
				return diag.Internal(err)
			}
			if out == "-" {
				_, err := env.Stdout.Write(buf.Bytes())
				return err
			}
			if err := writeFileAtomic(out, buf.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(env.Stderr, "wrote %s (%s, %s, %s)\n", out, count(len(d.Scorers), "scorer", "scorers"), count(len(d.AgentLeak), "AgentLeak run", "AgentLeak runs"), count(len(d.Agents), "agent", "agents"))
			return nil
		},
	}
}

// reportNow is the report time: SOURCE_DATE_EPOCH when set (so that the
// evidence digest can be reproduced), else now.
func reportNow() (time.Time, error) {
	at, err := compliance.ReportTime()
	if err != nil {
		return time.Time{}, diag.Usagef("%v", err)
	}
	t, err := time.Parse("2006-01-02T15:04:05+00:00", at)
	if err != nil {
		return time.Time{}, diag.Internal(err)
	}
	return t.UTC(), nil
}
