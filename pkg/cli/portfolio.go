package cli

import (
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
)

// appsPortfolioCommand is `lf apps portfolio`: every app's worst level per
// risk domain.
func appsPortfolioCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "portfolio",
		Usage: "every app of the store at a glance: the worst level of its risk scorers per domain",
		Flags: []ucli.Flag{outputFlag("table", domainFormats...), atFlag("as of `TIME`")},
		Action: func(c *ucli.Context) error {
			format, err := outputFormat(c, domainFormats...)
			if err != nil {
				return err
			}
			at, err := parseWhen("at", c.String("at"), time.Now())
			if err != nil {
				return err
			}
			st, err := env.OpenExistingAllApps(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			p, err := project.Portfolio(c.Context, st, at)
			if err != nil {
				return err
			}
			if format == "table" && len(p) == 0 {
				fmt.Fprintln(env.Stderr, "no apps: the store holds no methodology, risk scorer or run yet")
			}
			return env.writeReport(format, portfolioReport(p))
		},
	}
}

// portfolioReport is the result of lf apps portfolio.
type portfolioReport []project.AppDomains

func (p portfolioReport) Data() any { return []project.AppDomains(p) }

func (p portfolioReport) View() any {
	rows := [][]string{}
	for _, a := range p {
		name := a.App
		if name == "" {
			name = noAppLabel
		}
		ki := keyInfoOf(a.KeyInfo)
		app := []string{name, orDash(a.DisplayName), orDash(ki.LifecycleStage), yesNo(ki.HasPIIAccess), string(a.Worst)}
		if len(a.Domains) == 0 {
			rows = append(rows, append(app, "-", "-", "0", "0", "0", "0", "0", "0", "0"))
		}
		for _, d := range a.Domains {
			rows = append(rows, append(app[:len(app):len(app)],
				d.Domain, string(d.Worst), fmt.Sprint(d.Scorers), fmt.Sprint(d.Critical),
				fmt.Sprint(d.High), fmt.Sprint(d.Medium), fmt.Sprint(d.Low), fmt.Sprint(d.NoData), fmt.Sprint(d.Error),
			))
		}
	}
	return &output.TableView{Header: []string{"APP", "NAME", "STAGE", "PII", "APP WORST", "DOMAIN", "WORST", "SCORERS", "CRITICAL", "HIGH", "MEDIUM", "LOW", "NO_DATA", "ERROR"}, Rows: rows}
}
