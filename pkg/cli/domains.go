package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
)

var domainFormats = []string{"table", "json", "yaml", "markdown"}

func overviewDomainsCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:    "domains",
		Aliases: []string{"domain"},
		Usage:   "each risk domain at a glance: the worst level of its risk scorers, with counts per level",
		Flags: []ucli.Flag{
			outputFlag("table", domainFormats...),
			atFlag("as of `TIME`"),
		},
		Action: func(c *ucli.Context) error {
			v, err := env.openView(c, false, domainFormats...)
			if err != nil {
				return err
			}
			defer v.st.Close()
			res, err := project.Overview(c.Context, v.st, project.OverviewFilter{At: v.at})
			if err != nil {
				return err
			}
			if v.format == "table" && len(res) == 0 {
				fmt.Fprintln(env.Stderr, "no risk scorers: add some with `lf add -f FILE`")
			}
			return env.writeReport(v.format, domainsReport{app: v.st.App(), ds: risk.Domains(res)})
		},
	}
}

// domainsReport is the result of lf overview domains.
type domainsReport struct {
	app string
	ds  []risk.DomainSummary
}

func (d domainsReport) Data() any {
	return output.Fields{{Key: "app", Value: d.app}, {Key: "domains", Value: d.ds}}
}

func (d domainsReport) View() any {
	rows := make([][]string, 0, len(d.ds))
	for _, x := range d.ds {
		rows = append(rows, []string{
			x.Domain, string(x.Worst), fmt.Sprint(x.Scorers), fmt.Sprint(x.Critical), fmt.Sprint(x.High),
			fmt.Sprint(x.Medium), fmt.Sprint(x.Low), fmt.Sprint(x.NoData), fmt.Sprint(x.Error),
		})
	}
	return &output.TableView{Header: []string{"DOMAIN", "WORST", "SCORERS", "CRITICAL", "HIGH", "MEDIUM", "LOW", "NO_DATA", "ERROR"}, Rows: rows}
}
