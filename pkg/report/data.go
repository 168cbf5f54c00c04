package report

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// Data is what the HTML report shows, read from the store.
type Data struct {
	Title       string
	GeneratedAt time.Time
	Tenant      string
	Scorers     []risk.Result
	// Domains of the scorers, sorted: the rows of the heat map.
	Domains   []string
	AgentLeak []LeakRun
	Agents    []Agent
	// AgentsOnly: the report holds one tenant's agents and nothing of the
	// store at large (no risk scorers, no AgentLeak runs).
	AgentsOnly bool
	// AgentsTotal is how many scored agents there are; Agents holds the
	// MaxAgents highest scores of them.
	AgentsTotal int
	// At is the moment the risk scorers and AgentLeak runs are shown as of
	// (zero: now); see Options.At.
	At time.Time
	// Trends: the history of each scorer and domain, and each scorer's
	// explanation (scorers.go).
	Trends
	// Compliance is the stored frameworks evaluated over Scorers and
	// sealed at GeneratedAt (nil without frameworks).
	Compliance *frameworks.Report
}

// LeakRun is one recorded AgentLeak scan.
type LeakRun struct {
	EvaluationKey string
	ID            string
	CreatedAt     string
	Traces        []LeakTrace
	// Channels is the mean risk index per channel over the run's traces,
	// highest first.
	Channels []ChannelRI
	// Verdicts counts traces by verdict, worst first.
	Verdicts []Count
	Blocked  int
	Leaked   int
	// Types counts leaked findings by data type over the run's traces, most
	// first (runs recorded before lf kept leaks_<type> have none).
	Types []Count
	// Frameworks counts, per compliance framework, the traces that put one
	// of its controls at risk, in the frameworks' report order (none for
	// runs recorded without compliance).
	Frameworks []Count
}

// LeakTrace is one trace's scores in a recorded scan (values are never stored).
type LeakTrace struct {
	Task         string
	RiskIndex    float64
	PrivacyScore int
	Verdict      string
	Blocked      bool
	Leaked       int
}

// ChannelRI is a channel's risk index.
type ChannelRI struct {
	Channel string
	RI      float64
}

// Count is a labelled count.
type Count struct {
	Label string
	N     int
}

// Agent is an agent's latest score, its components and its score history.
type Agent struct {
	agentrisk.AgentRisk
	History []agentrisk.HistoryPoint
}

// Options select what Build reads.
type Options struct {
	// Tenant limits agents to one tenant ("" = every tenant).
	Tenant string
	// LeakRuns is how many of the latest AgentLeak runs to show (default 5).
	LeakRuns int
	// HistoryPoints is how many of an agent's latest snapshots to draw (default 48).
	HistoryPoints int
	Now           time.Time
	// AgentsOnly leaves out what belongs to the store rather than to the
	// tenant: risk scorers and AgentLeak runs (a tenant's report).
	AgentsOnly bool
	// MaxAgents bounds the agents shown in detail, highest scores first
	// (0 = all), so the report's cost does not grow with the tenant.
	MaxAgents int
	// At shows the risk scorers (scores, history, explanations) and the
	// AgentLeak runs as of a moment: what a store holding only the runs
	// created up to it shows (zero: now). Agents show their latest scores.
	At time.Time
}

// Build reads the report's data from the store.
func Build(ctx context.Context, st *store.Store, o Options) (*Data, error) {
	if o.LeakRuns <= 0 {
		o.LeakRuns = 5
	}
	if o.HistoryPoints <= 0 {
		o.HistoryPoints = 48
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	d := &Data{Title: "lf risk report", GeneratedAt: o.Now, Tenant: o.Tenant, AgentsOnly: o.AgentsOnly, At: o.At}
	var err error
	if !o.AgentsOnly {
		if err := storeWide(ctx, st, o, d); err != nil {
			return nil, err
		}
	}
	if d.Agents, d.AgentsTotal, err = agents(ctx, st, o); err != nil {
		return nil, err
	}
	return d, nil
}

// storeWide reads what the report shows of the whole store: the risk
// scorers, their domains and the latest AgentLeak runs.
func storeWide(ctx context.Context, st *store.Store, o Options, d *Data) error {
	res, err := project.Overview(ctx, st, project.OverviewFilter{At: o.At})
	if err != nil {
		return err
	}
	d.Scorers = res
	if d.Trends, err = trends(ctx, st, o.At); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, r := range res {
		dom := r.Domain
		if dom == "" {
			dom = "(none)"
		}
		if !seen[dom] {
			seen[dom] = true
			d.Domains = append(d.Domains, dom)
		}
	}
	sort.Strings(d.Domains)
	if d.Compliance, err = frameworksOf(ctx, st, res, o.Now); err != nil {
		return err
	}
	d.AgentLeak, err = leakRuns(ctx, st, o.LeakRuns, o.At)
	return err
}

// leakRuns reads the limit latest AgentLeak runs (created at or before at
// when at is set).
func leakRuns(ctx context.Context, st *store.Store, limit int, at time.Time) ([]LeakRun, error) {
	rows, err := st.Runs(ctx)
	if err != nil {
		return nil, err
	}
	if !at.IsZero() {
		rows = createdBy(rows, at)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].CreatedAt > rows[j].CreatedAt })
	var out []LeakRun
	for _, row := range rows {
		if len(out) == limit {
			break
		}
		if row.Status != "completed" {
			continue
		}
		run, err := st.Run(ctx, row.EvaluationKey, row.ID)
		if err != nil {
			return nil, err
		}
		if run == nil || len(run.Results) == 0 || run.Results[0].ScorerKey != agentleak.ScorerKey {
			continue
		}
		lr := LeakRun{EvaluationKey: run.EvaluationKey, ID: run.ID, CreatedAt: run.CreatedAt.UTC().Format(time.RFC3339)}
		sums := map[string]float64{}
		types := map[string]int{}
		frameworks := map[string]int{}
		verdicts := map[string]int{}
		for _, r := range run.Results {
			m := r.Metrics
			t := LeakTrace{Task: r.TaskSpecificationKey, RiskIndex: m["risk_index"], PrivacyScore: int(m["privacy_score"]), Blocked: m["blocked"] == 1, Leaked: int(m["leaked_secrets"])}
			t.Verdict = verdict(t.PrivacyScore)
			verdicts[t.Verdict]++
			if t.Blocked {
				lr.Blocked++
			}
			lr.Leaked += t.Leaked
			for k, v := range m {
				if ch, ok := strings.CutPrefix(k, "leak_rate_"); ok {
					sums[ch] += v
				}
				if dt, ok := strings.CutPrefix(k, agentleak.LeaksMetricPrefix); ok {
					types[dt] += int(v)
				}
				if fw, ok := strings.CutPrefix(k, agentleak.ComplianceMetricPrefix); ok && v > 0 {
					frameworks[fw]++
				}
			}
			lr.Traces = append(lr.Traces, t)
		}
		for _, ch := range agentleak.Channels {
			if v, ok := sums[ch]; ok {
				lr.Channels = append(lr.Channels, ChannelRI{Channel: ch, RI: v / float64(len(run.Results))})
			}
		}
		sort.SliceStable(lr.Channels, func(i, j int) bool { return lr.Channels[i].RI > lr.Channels[j].RI })
		for dt, n := range types {
			lr.Types = append(lr.Types, Count{Label: dt, N: n})
		}
		for _, f := range compliance.Frameworks {
			if n := frameworks[f.ID]; n > 0 {
				lr.Frameworks = append(lr.Frameworks, Count{Label: f.Name, N: n})
			}
		}
		sort.Slice(lr.Types, func(i, j int) bool {
			if lr.Types[i].N != lr.Types[j].N {
				return lr.Types[i].N > lr.Types[j].N
			}
			return lr.Types[i].Label < lr.Types[j].Label
		})
		for _, v := range []string{agentleak.VerdictFail, agentleak.VerdictHighRisk, agentleak.VerdictConditional, agentleak.VerdictPass} {
			if verdicts[v] > 0 {
				lr.Verdicts = append(lr.Verdicts, Count{Label: v, N: verdicts[v]})
			}
		}
		out = append(out, lr)
	}
	return out, nil
}

// verdict maps a stored privacy score to AgentLeak's verdict (the thresholds
// of agentleak's scoring: 90, 70, 40).
func verdict(score int) string {
	switch {
	case score >= 90:
		return agentleak.VerdictPass
	case score >= 70:
		return agentleak.VerdictConditional
	case score >= 40:
		return agentleak.VerdictHighRisk
	}
	return agentleak.VerdictFail
}

// agents reads the scored agents, highest score first, at most MaxAgents
// of them in detail, and how many there are.
func agents(ctx context.Context, st *store.Store, o Options) ([]Agent, int, error) {
	e := agentrisk.NewEngine(st)
	list, err := e.ListAll(ctx, o.Tenant)
	if err != nil {
		return nil, 0, fmt.Errorf("agents: %w", err)
	}
	total := len(list)
	if o.MaxAgents > 0 && len(list) > o.MaxAgents {
		list = list[:o.MaxAgents] // ListAll sorts by score, highest first
	}
	var out []Agent
	for _, s := range list {
		tenant := s.TenantID
		if tenant == "" {
			tenant = o.Tenant
		}
		r, err := e.GetForAgent(ctx, tenant, s.AgentID)
		if err != nil {
			return nil, 0, fmt.Errorf("agent %s/%s: %w", tenant, s.AgentID, err)
		}
		r.TenantID = tenant
		h, err := e.History(ctx, tenant, s.AgentID, o.HistoryPoints)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, Agent{AgentRisk: r, History: h})
	}
	return out, total, nil
}
