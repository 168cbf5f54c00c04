package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
)

// alertsCommand is lf alerts: the alert rules in the store and their
// delivery attempts.
func alertsCommand(env *Env) *ucli.Command {
	tenant := &ucli.StringFlag{Name: "tenant", Usage: "only tenant `ID`"}
	return &ucli.Command{
		Name:  "alerts",
		Usage: "alert rules and their delivery attempts (lf set alert-rules -f FILE loads rules; lf serve fires them)",
		Subcommands: []*ucli.Command{
			{
				Name:   "rules",
				Usage:  "list the alert rules in the store (secrets are never shown)",
				Flags:  []ucli.Flag{tenant, outputFlag("table", "table", "json")},
				Action: func(c *ucli.Context) error { return listAlertRules(c, env) },
			},
			{
				Name:   "deliveries",
				Usage:  "list recorded delivery attempts, newest first",
				Flags:  []ucli.Flag{tenant, &ucli.IntFlag{Name: "limit", Value: 50, Usage: "at most `N` attempts (0: all)"}, outputFlag("table", "table", "json")},
				Action: func(c *ucli.Context) error { return listAlertDeliveries(c, env) },
			},
		},
	}
}

// listAlertRules is lf alerts rules: the stored rules, without secrets.
func listAlertRules(c *ucli.Context, env *Env) error {
	format, err := outputFormat(c, "table", "json")
	if err != nil {
		return err
	}
	st, err := env.OpenExistingAllApps(c.Context)
	if err != nil {
		return err
	}
	defer st.Close()
	rules, err := alerts.ListRules(c.Context, st, c.String("tenant"))
	if err != nil {
		return diag.Internal(err)
	}
	out := make([]alerts.PublicRule, 0, len(rules))
	for _, r := range rules {
		out = append(out, r.Public())
	}
	rows := [][]string{}
	for _, r := range rules {
		target := r.URL
		if r.Channel == alerts.ChannelEmail {
			target = strings.Join(r.To, ", ")
		}
		state := "on"
		if r.Disabled {
			state = "off"
		}
		rows = append(rows, []string{r.TenantID, r.ID, r.Condition(), r.Channel, target, state})
	}
	return env.writeReport(format, commandOutput{out, output.Sections{
		table([]string{"TENANT", "RULE", "CONDITION", "CHANNEL", "TARGET", "STATE"}, rows),
	}})
}

// listAlertDeliveries is lf alerts deliveries: recorded delivery attempts,
// newest first.
func listAlertDeliveries(c *ucli.Context, env *Env) error {
	format, err := outputFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if c.Int("limit") < 0 {
		return diag.Usagef("--limit must be 0 or more")
	}
	st, err := env.OpenExistingAllApps(c.Context)
	if err != nil {
		return err
	}
	defer st.Close()
	ds, err := alerts.ListDeliveries(c.Context, st, c.String("tenant"), c.Int("limit"))
	if err != nil {
		return diag.Internal(err)
	}
	rows := [][]string{}
	for _, d := range ds {
		code := ""
		if d.StatusCode != 0 {
			code = strconv.Itoa(d.StatusCode)
		}
		rows = append(rows, []string{d.Time.Format("2006-01-02T15:04:05Z"), d.TenantID, d.RuleID, d.AgentID, d.Channel, strconv.Itoa(d.Attempt), d.Status, code, d.Error})
	}
	return env.writeReport(format, commandOutput{ds, output.Sections{
		table([]string{"TIME", "TENANT", "RULE", "AGENT", "CHANNEL", "ATTEMPT", "STATUS", "CODE", "ERROR"}, rows),
	}})
}

// setAlertRules loads an alert_rules file into the store, replacing rules
// with the same tenant and id. The webhook allow-list of lf serve is checked
// again when the server starts and at every delivery.
func setAlertRules(ctx context.Context, env *Env, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return diag.Invalidf("%v", err)
	}
	rules, diags := alerts.ParseRulesFile(env.Rel(path), data, nil)
	if diags.HasErrors() {
		return diag.Invalid(diags)
	}
	st, err := env.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range rules {
		if err := alerts.PutRule(ctx, st, r); err != nil {
			return diag.Internal(err)
		}
	}
	fmt.Fprintf(env.Stdout, "%d alert rule%s set\n", len(rules), plural(len(rules)))
	return nil
}

func exportAlertRules(ctx context.Context, env *Env, w io.Writer) error {
	st, err := env.OpenExistingAllApps(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rules, err := alerts.ListRules(ctx, st, "")
	if err != nil {
		return diag.Internal(err)
	}
	for i := range rules {
		rules[i].CreatedAt = time.Time{} // not part of the file format
	}
	b, err := output.YAMLOf(map[string]any{"alert_rules": rules})
	if err != nil {
		return diag.Internal(err)
	}
	_, err = w.Write(b)
	return err
}
