package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/progress"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// agentsFormula is the short form of the scoring formulas shown by `lf agents show`.
const agentsFormula = `score = clamp(sum of weight x component, 0, 100), rounded; events of the 7 days before T,
each weighted 2^(-age / half-life) (half-life 24 h by default), at hourly resolution.
  injection        100 x sum_i c_i / i^1.5 / Z over the 100 strongest decayed confidences c (Z = sum 1/i^1.5, i = 1..100)
  toolDrift        100 x sum over tools of recent-share x clamp((z - 1) / 2); z = (last-6h rate - baseline avg) / max(stddev, 0.5); new tool = 1
  excessiveAgency  100 x (worst session + decayed mean session) / 2; session = 1 - exp(-(high-impact calls + 5 x (tools - 1)) / 10)
  anomaly          100 x max over features of clamp((z - 3) / 3); z = (x - peers' median) / (1.4826 MAD); 0 with < 3 peers
  policyViolation  100 x decayed denied / decayed requests`

// tenantFlag picks the tenant of an agent id that exists in several.
func tenantFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "tenant", Usage: "tenant `ID` (needed only when the agent id exists in several tenants)"}
}

func agentsCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "agents",
		Usage: "per-agent risk scores from agent events: ingest, recalc, show, baseline, release, decide",
		Description: "Agent events (JSONL, one request or tool call per line) are folded into the store; recalc\n" +
			"scores every agent 0-100 from five explained components and stores a snapshot. See\n" +
			"docs/agent-risk.md for the formulas. `lf overview agents` lists the scores.",
		Subcommands: []*ucli.Command{
			agentsIngestCommand(env),
			agentsRecalcCommand(env),
			agentsShowCommand(env),
			agentsBaselineCommand(env),
			agentsReleaseCommand(env),
			agentsDecideCommand(env),
		},
	}
}

func agentsIngestCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "ingest",
		Usage:     "load agent events (JSONL or a JSON array) into the store; ingesting the same events twice counts them once",
		ArgsUsage: "FILE... (- for standard input)",
		Description: "Each FILE holds agent events as JSONL (one JSON object per line, blank lines ignored)\n" +
			"or as one JSON array of objects. One event is one request or tool call an AI gateway saw:\n" +
			"\n" +
			"  timestamp        RFC 3339 time, required (e.g. 2026-04-08T14:00:44Z; a fraction or an offset is allowed)\n" +
			"  tenant_id        string, required\n" +
			"  agent_id         string, required\n" +
			"  agent_name       string, optional display name\n" +
			"  session_id       string, optional (events without one: one pseudo-session per hour)\n" +
			"  method           string, optional (e.g. tools/call)\n" +
			"  tool, resource   strings, optional: the tool called and what it touched\n" +
			"  high_impact      bool, optional (a tenant's risk config can also list highImpactTools)\n" +
			"  decision         allow | deny, optional (default allow)\n" +
			"  rule             string, optional: the policy rule that decided\n" +
			"  injection_score  number 0..1, optional: the prompt-injection classifier's confidence\n" +
			"  request_id       string, optional: keeps otherwise identical events apart\n" +
			"\n" +
			"Example line:\n" +
			`  {"timestamp":"2026-04-08T14:00:44Z","tenant_id":"acme","agent_id":"agt_docs","tool":"write_file","decision":"allow"}` + "\n" +
			"\n" +
			"Unknown fields are ignored. A bad event is reported as file:line: /field: message and\n" +
			"nothing of the command's files is stored (exit 3). Ingest is idempotent: an event already\n" +
			"stored (same content hash) is counted once, within the dedup window of its tenant: the 8 days\n" +
			"(7-day score window + 1 day) before the tenant's latest event, at most now. Older events are\n" +
			"not stored and are counted as expired. See docs/agent-risk.md#events.",
		Flags: []ucli.Flag{
			outputFlag("table", "table", "json"),
			&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error (also LF_QUIET=1)"},
		},
		Action: func(c *ucli.Context) error { return agentsIngest(c, env) },
	}
}

func agentsIngest(c *ucli.Context, env *Env) error {
	format, err := outputFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return diag.Usagef("ingest needs at least one events FILE (- for stdin)")
	}
	// Progress in bytes read, on a terminal, for ingests longer than a second.
	bar := progress.New(env.Stderr, progress.Options{Description: "reading events", Bytes: true, Total: -1, Quiet: c.Bool("quiet") || progress.Quiet(env.Getenv)})
	defer bar.Finish()
	var total int64
	var srcs []agentrisk.Source
	for _, path := range c.Args().Slice() {
		if path == "-" {
			srcs = append(srcs, agentrisk.Source{Name: "<stdin>", R: env.Stdin})
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			return diag.Invalidf("%v", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			total += st.Size()
		}
		srcs = append(srcs, agentrisk.Source{Name: env.Rel(path), R: bar.Reader(f)})
	}
	if total > 0 {
		bar.SetTotal(total)
	}
	return withEngine(c.Context, env, func(e *agentrisk.Engine) error {
		res, err := agentrisk.Ingest(c.Context, e, srcs)
		bar.Finish()
		if err != nil {
			return err
		}
		expired := ""
		if res.Expired > 0 {
			expired = fmt.Sprintf(", %d older than the dedup window (not stored)", res.Expired)
		}
		return env.writeReport(format, commandOutput{res, output.Sections{
			lines(fmt.Sprintf("ingested %s: %d new, %d already stored%s, %s", count(res.Events, "event", "events"), res.New, res.Duplicates, expired, count(res.Agents, "agent", "agents"))),
		}})
	})
}

func agentsRecalcCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "recalc",
		Usage: "recalculate risk scores at time T (default now), store a snapshot per agent and record an agent_risk evaluation run",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "at", Usage: "score time `T` (RFC 3339; default: now)"},
			tenantFlag(),
			&ucli.StringFlag{Name: "agent", Usage: "only agent `ID`"},
			outputFlag("table", "table", "json"),
		},
		Action: func(c *ucli.Context) error { return agentsRecalc(c, env) },
	}
}

func agentsRecalc(c *ucli.Context, env *Env) error {
	format, err := outputFormat(c, "table", "json")
	if err != nil {
		return err
	}
	at, err := parseAt(c.String("at"))
	if err != nil {
		return err
	}
	return withEngine(c.Context, env, func(e *agentrisk.Engine) error {
		tenant, agent := c.String("tenant"), c.String("agent")
		if agent != "" && tenant == "" {
			if tenant, err = resolveTenant(c.Context, e, agent); err != nil {
				return err
			}
		}
		changes, err := agentrisk.Recalc(c.Context, e, agentrisk.RecalcOptions{Tenant: tenant, Agent: agent, At: at, Record: true})
		if err != nil {
			return err
		}
		if changes == nil {
			changes = []agentrisk.Change{}
		}
		rows := make([][]string, 0, len(changes))
		for _, ch := range changes {
			old := "-"
			if ch.OldTier != "" {
				old = fmt.Sprintf("%d %s", ch.OldScore, ch.OldTier)
			}
			rows = append(rows, []string{ch.TenantID, ch.AgentID, ch.AgentName, old, strconv.Itoa(ch.NewScore), string(ch.NewTier)})
		}
		return env.writeReport(format, commandOutput{changes, output.Sections{
			table([]string{"TENANT", "AGENT", "NAME", "BEFORE", "SCORE", "TIER"}, rows),
			lines(fmt.Sprintf("%s recalculated at %s", count(len(changes), "agent", "agents"), output.Time(at))),
		}})
	})
}

func agentsShowCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "show",
		Usage:     "an agent's score, tier, trend, 1h/24h windows and explained components",
		ArgsUsage: "AGENT",
		Flags:     []ucli.Flag{tenantFlag(), outputFlag("table", "table", "json")},
		Action: func(c *ucli.Context) error {
			return agentReadAction(c, env, func(e *agentrisk.Engine, tenant, agent, format string) error {
				r, err := e.GetForAgent(c.Context, tenant, agent)
				if err != nil {
					return agentErr(err)
				}
				return env.writeReport(format, commandOutput{r, agentRiskView(r)})
			})
		},
	}
}

func agentsBaselineCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:        "baseline",
		Usage:       "an agent's tool-use baseline: calls, mean and standard deviation per hour and common patterns of each tool; `baseline reset AGENT` forgets it",
		ArgsUsage:   "AGENT",
		Flags:       []ucli.Flag{tenantFlag(), outputFlag("table", "table", "json")},
		Subcommands: []*ucli.Command{agentsBaselineResetCommand(env)},
		Action: func(c *ucli.Context) error {
			return agentReadAction(c, env, func(e *agentrisk.Engine, tenant, agent, format string) error {
				b, err := e.Baseline(c.Context, tenant, agent)
				if err != nil {
					return agentErr(err)
				}
				return env.writeReport(format, commandOutput{b, baselineView(b)})
			})
		},
	}
}

func baselineView(b agentrisk.Baseline) output.Sections {
	rows := make([][]string, 0, len(b.Baseline.Tools))
	for _, t := range b.Baseline.Tools {
		rows = append(rows, []string{t.ToolName, strconv.Itoa(t.CallCount), yamlsrc.FormatFloat(t.AvgCallsPerHour), yamlsrc.FormatFloat(t.StddevCallsPerHour), strings.Join(t.CommonPatterns, " ")})
	}
	upd := "never"
	if !b.Baseline.UpdatedAt.IsZero() {
		upd = output.Time(b.Baseline.UpdatedAt)
	}
	return output.Sections{
		table([]string{"TOOL", "CALLS", "AVG/H", "STDDEV/H", "COMMON PATTERNS"}, rows),
		lines(fmt.Sprintf("agent %s: %s over %s, updated %s", b.AgentID, count(b.Baseline.TotalCalls, "call", "calls"), count(b.Baseline.WindowDays, "day", "days"), upd)),
	}
}

func agentsBaselineResetCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "reset",
		Usage:     "forget an agent's baseline: only history from now on counts towards it",
		ArgsUsage: "AGENT",
		Flags:     []ucli.Flag{tenantFlag(), &ucli.StringFlag{Name: "at", Usage: "reset time `T` (RFC 3339; default now)"}, outputFlag("table", "table", "json")},
		Action: func(c *ucli.Context) error {
			at, err := parseAt(c.String("at"))
			if err != nil {
				return err
			}
			return agentAction(c, env, func(e *agentrisk.Engine, tenant, agent, format string) error {
				if err := e.ResetBaseline(c.Context, tenant, agent, at); err != nil {
					return agentErr(err)
				}
				return env.writeReport(format, commandOutput{
					map[string]any{"tenantId": tenant, "agentId": agent, "baselineResetAt": at},
					output.Sections{lines(fmt.Sprintf("baseline of %s (tenant %s) reset at %s; the next recalc learns it again from there", agent, tenant, output.Time(at)))},
				})
			})
		},
	}
}

func agentsReleaseCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "release",
		Usage:     "admin release: lift an agent's critical block until its next recalculation",
		ArgsUsage: "AGENT",
		Flags:     []ucli.Flag{tenantFlag(), outputFlag("table", "table", "json")},
		Action: func(c *ucli.Context) error {
			return agentAction(c, env, func(e *agentrisk.Engine, tenant, agent, format string) error {
				if err := e.Release(c.Context, tenant, agent); err != nil {
					return agentErr(err)
				}
				return env.writeReport(format, commandOutput{
					map[string]any{"tenantId": tenant, "agentId": agent, "overrideTier": agentrisk.TierNormal},
					output.Sections{lines(fmt.Sprintf("agent %s (tenant %s) released: effective tier normal until the next recalculation", agent, tenant))},
				})
			})
		},
	}
}

func agentsDecideCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "decide",
		Usage: "run the rate-limit and risk enforcement stages on a file of cases (the conformance format)",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "cases `FILE`: cases: [{name, config, agent, request, expect?}]", Required: true},
			&ucli.BoolFlag{Name: "check", Usage: "compare with each case's expect and exit 1 on a mismatch"},
			outputFlag("table", "table", "json"),
		},
		Action: func(c *ucli.Context) error { return agentsDecide(c, env) },
	}
}

func agentsDecide(c *ucli.Context, env *Env) error {
	format, err := outputFormat(c, "table", "json")
	if err != nil {
		return err
	}
	path := c.String("file")
	data, err := os.ReadFile(path)
	if err != nil {
		return diag.Invalidf("%s: %v", path, err)
	}
	cases, diags := agentrisk.ParseDecideCases(env.Rel(path), data)
	if diags.HasErrors() {
		return diag.Invalid(diags)
	}
	results := make([]agentrisk.CaseResult, len(cases))
	failed := 0
	var msgs []string
	for i := range cases {
		results[i] = cases[i].Run()
		if c.Bool("check") {
			if mm := cases[i].Mismatches(results[i]); len(mm) > 0 {
				failed++
				msgs = append(msgs, fmt.Sprintf("case %q: %s", cases[i].Name, strings.Join(mm, "; ")))
			}
		}
	}
	if err := env.writeReport(format, commandOutput{results, output.Sections{decisionsTable(results)}}); err != nil {
		return err
	}
	if !c.Bool("check") {
		return nil
	}
	for _, m := range msgs {
		fmt.Fprintln(env.Stderr, m)
	}
	if failed > 0 {
		return diag.Gatef("%d of %s %s not match their expect", failed, count(len(cases), "case", "cases"), map[bool]string{true: "does", false: "do"}[failed == 1])
	}
	fmt.Fprintf(env.Stderr, "%s match%s\n", count(len(cases), "case", "cases"), map[bool]string{true: "es", false: ""}[len(cases) == 1])
	return nil
}

func decisionsTable(results []agentrisk.CaseResult) *output.TableView {
	rows := make([][]string, 0, len(results))
	for _, r := range results {
		rows = append(rows, []string{r.Name, string(r.Tier), string(r.EffectiveTier), r.Action, r.Reason, yamlsrc.FormatFloat(r.Multiplier), strconv.FormatBool(r.Shadow), strconv.FormatBool(r.LoggedOnly)})
	}
	return table([]string{"CASE", "TIER", "EFFECTIVE", "ACTION", "REASON", "MULT", "SHADOW", "LOGGED ONLY"}, rows)
}

func overviewAgentsCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "agents",
		Usage: "every agent's latest risk score and tier, highest first",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "tenant", Usage: "only tenant `ID`"},
			outputFlag("table", "table", "json"),
		},
		Action: func(c *ucli.Context) error {
			format, err := outputFormat(c, "table", "json")
			if err != nil {
				return err
			}
			return withReadEngine(c.Context, env, func(e *agentrisk.Engine) error {
				tenant := c.String("tenant")
				list, err := e.ListAll(c.Context, tenant)
				if err != nil {
					return agentErr(err)
				}
				rows := make([][]string, 0, len(list))
				for _, s := range list {
					rows = append(rows, []string{s.TenantID, s.AgentID, s.AgentName, string(s.RiskTier), strconv.Itoa(s.Score), output.Time(s.CalculatedAt)})
				}
				if tenant != "" {
					for i := range list {
						list[i].TenantID = "" // the risk.listAll() shape of one tenant, in the data
					}
				}
				return env.writeReport(format, commandOutput{list, output.Sections{
					lines("store " + env.storeShown(e.Store())),
					table([]string{"TENANT", "AGENT", "NAME", "TIER", "SCORE", "CALCULATED AT"}, rows),
				}})
			})
		},
	}
}

func agentRiskView(r agentrisk.AgentRisk) output.Sections {
	head := []string{
		fmt.Sprintf("agent %s (%s), tenant %s", r.AgentID, r.AgentName, r.TenantID),
		fmt.Sprintf("score %d, tier %s, calculated %s, trend %s (%+d vs 24h)", r.Score, r.RiskTier, output.Time(r.CalculatedAt), r.Trend, r.DeltaVs24h),
	}
	if r.OverrideTier != "" {
		head = append(head, fmt.Sprintf("released by an admin: effective tier %s until the next recalculation", r.OverrideTier))
	}
	var windows [][]string
	for _, win := range r.Windows {
		windows = append(windows, []string{win.Label, yamlsrc.FormatFloat(win.AvgScore), strconv.Itoa(win.MinScore), strconv.Itoa(win.MaxScore), strconv.Itoa(win.SampleCount)})
	}
	var comps [][]string
	total := 0.0
	for _, c := range r.Components {
		total += c.Weight * c.Value
		comps = append(comps, []string{c.Name, yamlsrc.FormatFloat(c.Value), yamlsrc.FormatFloat(c.Weight), yamlsrc.FormatFloat(round1(c.Weight * c.Value))})
	}
	tail := []string{fmt.Sprintf("weighted sum %s -> score %d", yamlsrc.FormatFloat(round1(total)), r.Score), ""}
	for _, c := range r.Components {
		tail = append(tail, fmt.Sprintf("%s %s: %s", c.Name, yamlsrc.FormatFloat(c.Value), c.Explanation))
		for _, d := range c.Drivers {
			tail = append(tail, "  - "+d)
		}
	}
	tail = append(tail, "", "formulas (docs/agent-risk.md):", agentsFormula)
	return output.Sections{
		lines(head...),
		table([]string{"WINDOW", "AVG", "MIN", "MAX", "SAMPLES"}, windows),
		table([]string{"COMPONENT", "VALUE", "WEIGHT", "CONTRIBUTION"}, comps),
		lines(tail...),
	}
}

func round1(x float64) float64 {
	return float64(int64(x*10+0.5)) / 10
}

func parseAt(s string) (time.Time, error) {
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, diag.Usagef("--at %q is not RFC 3339 (e.g. 2026-04-16T14:00:00Z)", s)
	}
	return t.UTC(), nil
}

// withReadEngine is withEngine for commands that only read: it never
// creates a store.
func withReadEngine(ctx context.Context, env *Env, fn func(*agentrisk.Engine) error) error {
	st, err := env.OpenExistingAllApps(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(agentrisk.NewEngine(st))
}

func withEngine(ctx context.Context, env *Env, fn func(*agentrisk.Engine) error) error {
	st, err := env.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(agentrisk.NewEngine(st))
}

// agentAction runs fn for the single AGENT argument, resolving its tenant.
func agentAction(c *ucli.Context, env *Env, fn func(e *agentrisk.Engine, tenant, agent, format string) error) error {
	return agentActionIn(c, env, withEngine, fn)
}

// agentReadAction is agentAction for commands that only read: it never
// creates a store.
func agentReadAction(c *ucli.Context, env *Env, fn func(e *agentrisk.Engine, tenant, agent, format string) error) error {
	return agentActionIn(c, env, withReadEngine, fn)
}

func agentActionIn(c *ucli.Context, env *Env, with func(context.Context, *Env, func(*agentrisk.Engine) error) error, fn func(e *agentrisk.Engine, tenant, agent, format string) error) error {
	format, err := outputFormat(c, "table", "json")
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return diag.Usagef("%s needs exactly one AGENT argument", c.Command.Name)
	}
	agent := c.Args().First()
	return with(c.Context, env, func(e *agentrisk.Engine) error {
		tenant := c.String("tenant")
		if tenant == "" {
			var err error
			if tenant, err = resolveTenant(c.Context, e, agent); err != nil {
				return err
			}
		}
		return fn(e, tenant, agent, format)
	})
}

// resolveTenant finds the one tenant that has the agent.
func resolveTenant(ctx context.Context, e *agentrisk.Engine, agent string) (string, error) {
	ts, err := e.AgentTenants(ctx, agent)
	if err != nil {
		return "", diag.Internal(err)
	}
	switch len(ts) {
	case 0:
		return "", diag.Invalidf("unknown agent %q: no events of it in the store (lf agents ingest FILE first)", agent)
	case 1:
		return ts[0], nil
	default:
		return "", diag.Usagef("agent %q exists in tenants %s: pass --tenant", agent, strings.Join(ts, ", "))
	}
}

// agentErr turns unknown tenants and agents into exit 3.
func agentErr(err error) error {
	if errors.Is(err, agentrisk.ErrNotFound) {
		return diag.Invalidf("%v", err)
	}
	return diag.Internal(err)
}

func setRiskConfigs(ctx context.Context, env *Env, path string) error {
	cfgs, err := agentrisk.LoadRiskConfigs(path, env.Rel(path))
	if err != nil {
		return err
	}
	return withEngine(ctx, env, func(e *agentrisk.Engine) error {
		if err := agentrisk.SetRiskConfigs(ctx, e, cfgs); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s set\n", count(len(cfgs), "risk config", "risk configs"))
		return nil
	})
}

func exportRiskConfigs(ctx context.Context, env *Env, w io.Writer) error {
	return withReadEngine(ctx, env, func(e *agentrisk.Engine) error {
		cfgs, err := e.ListRiskConfigs(ctx)
		if err != nil {
			return diag.Internal(err)
		}
		b, err := output.YAMLOf(agentrisk.MarshalConfigFile(cfgs))
		if err != nil {
			return diag.Internal(err)
		}
		_, err = w.Write(b)
		return err
	})
}
