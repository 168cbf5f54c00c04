package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

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
			"and a sparkline of its score history. It opens offline from a file URL.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "out", Value: "report.html", Usage: "write the report to `FILE` (- for standard output)"},
			&ucli.StringFlag{Name: "tenant", Usage: "only the agents of tenant `ID`"},
		},
		Action: func(c *ucli.Context) error {
			st, err := env.OpenStore(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			d, err := report.Build(c.Context, st, report.Options{Tenant: c.String("tenant")})
			if err != nil {
				return diag.Internal(err)
			}
			var buf bytes.Buffer
			if err := report.WriteHTML(&buf, d); err != nil {
				return diag.Internal(err)
			}
			out := c.String("out")
			if out == "-" {
				_, err := env.Stdout.Write(buf.Bytes())
				return err
			}
			// Write beside the target and rename, so a reader never sees half a report.
			tmp, err := os.CreateTemp(filepath.Dir(out), ".lf-report-*.html")
			if err != nil {
				return diag.Usagef("report: %v", err)
			}
			if _, err := tmp.Write(buf.Bytes()); err != nil {
				tmp.Close()
				os.Remove(tmp.Name())
				return diag.Usagef("report: %v", err)
			}
			if err := tmp.Close(); err != nil {
				os.Remove(tmp.Name())
				return diag.Usagef("report: %v", err)
			}
			if err := os.Rename(tmp.Name(), out); err != nil {
				os.Remove(tmp.Name())
				return diag.Usagef("report: %v", err)
			}
			_ = os.Chmod(out, 0o644)
			fmt.Fprintf(env.Stderr, "wrote %s (%s, %s, %s)\n", out, count(len(d.Scorers), "scorer", "scorers"), count(len(d.AgentLeak), "AgentLeak run", "AgentLeak runs"), count(len(d.Agents), "agent", "agents"))
			return nil
		},
	}
}
