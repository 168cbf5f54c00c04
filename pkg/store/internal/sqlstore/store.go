package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/runbatch"
)

// Store is the half of a backend's store handle that both backends share:
// the reads and the writes that stand alone, run through the handle's
// database (not a transaction). A backend's Store embeds it.
type Store struct {
	q   Querier
	app string
	loc string
}

// NewStore returns the shared half of a handle on the database q that
// reads and writes app; loc is the store's location, for messages.
func NewStore(q Querier, app, loc string) Store { return Store{q: q, app: app, loc: loc} }

// Errf wraps err as "store LOC: what: err", the form of the store's errors.
func Errf(loc, what string, err error) error { return fmt.Errorf("store %s: %s: %w", loc, what, err) }

func (s *Store) errf(what string, err error) error { return Errf(s.loc, what, err) }

// Entities lists the stored entities of a kind, sorted by key.
func (s *Store) Entities(ctx context.Context, kind model.Kind) ([]backend.Entity, error) {
	return Entities(ctx, s.q, s.app, kind)
}

// Methodologies returns the stored methodologies by key.
func (s *Store) Methodologies(ctx context.Context) (map[string]*model.Methodology, error) {
	return Methodologies(Entities(ctx, s.q, s.app, model.KindMethodology))
}

// RiskScorers returns the stored risk scorers sorted by key.
func (s *Store) RiskScorers(ctx context.Context) ([]*model.RiskScorer, error) {
	return RiskScorers(Entities(ctx, s.q, s.app, model.KindRiskScorer))
}

// RiskScorersOf returns the stored risk scorers among keys, sorted by key
// (a key stored under no scorer is left out), reading only those.
func (s *Store) RiskScorersOf(ctx context.Context, keys []string) ([]*model.RiskScorer, error) {
	var es []backend.Entity
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		e := backend.Entity{Kind: model.KindRiskScorer}
		err := s.q.QueryRow(ctx, EntityOfKey, s.app, string(model.KindRiskScorer), k).Scan(&e.Key, &e.Body, &e.YAML)
		switch {
		case noRows(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("store: %w", err)
		}
		es = append(es, e)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Key < es[j].Key })
	return RiskScorers(es, nil)
}

// Runs lists the stored runs sorted by evaluation key and id.
func (s *Store) Runs(ctx context.Context) ([]backend.RunRow, error) { return Runs(ctx, s.q, s.app) }

// Run loads one run with its results; nil when there is none.
func (s *Store) Run(ctx context.Context, evaluationKey, id string) (*model.EvaluationRun, error) {
	return LoadRun(ctx, s.q, s.app, evaluationKey, id)
}

// Apps lists the apps holding entities or runs, with what they hold.
func (s *Store) Apps(ctx context.Context) ([]backend.AppInfo, error) {
	kinds, err := KindCounts(s.q.Query(ctx, AppKindCounts))
	if err != nil {
		return nil, s.errf("apps", err)
	}
	runs, err := RunCounts(s.q.Query(ctx, AppRunCounts))
	if err != nil {
		return nil, s.errf("apps", err)
	}
	return Apps(kinds, runs), nil
}

// HasApp tells whether app holds entities or runs.
func (s *Store) HasApp(ctx context.Context, app string) (bool, error) {
	some, err := HasRows(ctx, s.q, app)
	if err != nil {
		return false, s.errf("apps", err)
	}
	return some, nil
}

// HasRows tells whether app holds entities or runs.
func HasRows(ctx context.Context, q Querier, app string) (bool, error) {
	var some bool
	err := q.QueryRow(ctx, AppHasRows, app).Scan(&some)
	return some, err
}

// MoveApp moves every row of app from to app to (the caller checked that
// to holds none) and tells whether there was any.
func MoveApp(ctx context.Context, q Querier, loc, from, to string) (bool, error) {
	moved := false
	for _, st := range RenameApp {
		n, err := q.Exec(ctx, st, to, from)
		if err != nil {
			return false, Errf(loc, fmt.Sprintf("rename app %q to %q", from, to), err)
		}
		moved = moved || n > 0
	}
	return moved, nil
}

// AbandonedWriters lists the runs still marked running whose writer is
// gone (backend.Abandoned), seen from this host now.
func AbandonedWriters(ctx context.Context, q Querier) ([]Writer, error) {
	host, _ := os.Hostname()
	return Abandoned(host, time.Now())(q.Query(ctx, AbandonedRuns))
}

// Entities lists the entities of a kind, sorted by key.
func Entities(ctx context.Context, q Querier, app string, kind model.Kind) ([]backend.Entity, error) {
	out, err := EntityRows(kind)(q.Query(ctx, EntitiesOfKind, app, string(kind)))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// Runs lists the runs of app sorted by evaluation key and id.
func Runs(ctx context.Context, q Querier, app string) ([]backend.RunRow, error) {
	out, err := RunRows(q.Query(ctx, RunList, app))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// LoadRun loads one run with its results; nil when there is none.
func LoadRun(ctx context.Context, q Querier, app, evaluationKey, id string) (*model.EvaluationRun, error) {
	var body string
	err := q.QueryRow(ctx, RunBody, app, evaluationKey, id).Scan(&body)
	switch {
	case noRows(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("store: %w", err)
	}
	blocks, err := LoadRunBlocks(ctx, q, app, evaluationKey, id)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, RunValues, app, evaluationKey, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer Close(rows)
	if len(blocks) == 0 {
		return Run(body, evaluationKey, id, rows)
	}
	// A streamed run: its values are in blocks (and none in rows).
	vals, err := Collect(rows, func(v *runbatch.Value) []any { return []any{&v.Task, &v.Scorer, &v.Metric, &v.Value} })
	if err == nil {
		vals, err = runbatch.AppendValues(vals, blocks)
	}
	if err != nil {
		return nil, fmt.Errorf("store: run %s/%s: %w", evaluationKey, id, err)
	}
	return Run(body, evaluationKey, id, &runbatch.ValueRows{Values: vals})
}

// LoadRunBlocks reads the blocks of a run's values (run_value_blocks), in
// order.
func LoadRunBlocks(ctx context.Context, q Querier, app, evaluationKey, id string) ([][]byte, error) {
	rows, err := q.Query(ctx, RunBlocks, app, evaluationKey, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer Close(rows)
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// ScanValues reads the values of metric in run (what scoring reads): rows
// are MetricValues's result, err the error of its query; the values of a
// streamed run come from its blocks. wrap wraps the errors of rows.
func ScanValues(ctx context.Context, q Querier, app string, run model.RunRef, metric string, rows Rows, err error, wrap func(error) error) ([]model.MetricValue, error) {
	if err != nil {
		return nil, wrap(err)
	}
	defer Close(rows)
	var out []model.MetricValue
	for rows.Next() {
		var v model.MetricValue
		if err := rows.Scan(&v.TaskSpecificationKey, &v.ScorerKey, &v.Value); err != nil {
			return nil, wrap(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(err)
	}
	blocks, err := LoadRunBlocks(ctx, q, app, run.EvaluationKey, run.ID)
	if err != nil || len(blocks) == 0 {
		return out, err
	}
	if out, err = runbatch.AppendMetricValues(out, blocks, metric); err != nil {
		return nil, fmt.Errorf("store: run %s/%s: %w", run.EvaluationKey, run.ID, err)
	}
	return out, nil
}

// RunHead is the JSON body stored with run: the run without its results.
func RunHead(run model.EvaluationRun) (string, error) {
	run.Results = nil
	body, err := json.Marshal(run)
	if err != nil {
		return "", fmt.Errorf("store: encode run: %w", err)
	}
	return string(body), nil
}

// forTenant picks the statement for every tenant (tenantID "") or one, and
// its arguments: a statement with a condition like "$1 = ” OR tenant_id =
// $1" would keep PostgreSQL's generic plan from using the index.
func forTenant(all, one *Stmt, tenantID string) (*Stmt, []any) {
	if tenantID == "" {
		return all, nil
	}
	return one, []any{tenantID}
}

// Agents returns the aggregates of a tenant's agents ("" for every tenant),
// ordered by tenant and agent.
func (s *Store) Agents(ctx context.Context, tenantID string) ([]backend.AgentRow, error) {
	st, args := forTenant(AgentsAll, AgentsOfTenant, tenantID)
	out, err := AgentRows(s.q.Query(ctx, st, args...))
	if err != nil {
		return nil, s.errf("agents", err)
	}
	return out, nil
}

// count runs a count(*) query.
func (s *Store) count(ctx context.Context, what string, st *Stmt, args ...any) (int, error) {
	var n int64
	if err := s.q.QueryRow(ctx, st, args...).Scan(&n); err != nil {
		return 0, s.errf(what, err)
	}
	return int(n), nil
}

// CountAgents counts the agents of a tenant.
func (s *Store) CountAgents(ctx context.Context, tenantID string) (int, error) {
	return s.count(ctx, "agents", CountAgents, tenantID)
}

// HasRiskConfig tells whether a tenant has a stored risk config.
func (s *Store) HasRiskConfig(ctx context.Context, tenantID string) (bool, error) {
	n, err := s.count(ctx, "risk configs", CountRiskConfigs, tenantID)
	return n > 0, err
}

// AgentExists tells whether events of the agent were ingested.
func (s *Store) AgentExists(ctx context.Context, tenantID, agentID string) (bool, error) {
	n, err := s.count(ctx, "agents", CountAgent, tenantID, agentID)
	return n > 0, err
}

// AgentTenants lists the tenants that have agents.
func (s *Store) AgentTenants(ctx context.Context) ([]string, error) {
	return s.strings(ctx, AgentTenants)
}

// TenantsOfAgent lists the tenants that have an agent with this id.
func (s *Store) TenantsOfAgent(ctx context.Context, agentID string) ([]string, error) {
	return s.strings(ctx, TenantsOfAgent, agentID)
}

func (s *Store) strings(ctx context.Context, st *Stmt, args ...any) ([]string, error) {
	out, err := Strings(s.q.Query(ctx, st, args...))
	if err != nil {
		return nil, s.errf("agents", err)
	}
	return out, nil
}

// AgentScoreList returns the latest scores of a tenant's agents ("" for
// every tenant), highest first, then by tenant and agent.
func (s *Store) AgentScoreList(ctx context.Context, tenantID string) ([]backend.AgentScoreRow, error) {
	st, args := forTenant(ScoreListAll, ScoreListTenant, tenantID)
	out, err := ScoreList(s.q.Query(ctx, st, args...))
	if err != nil {
		return nil, s.errf("agent scores", err)
	}
	return out, nil
}

// AgentScore returns an agent's latest score with its name; ok is false
// when the agent has none.
func (s *Store) AgentScore(ctx context.Context, tenantID, agentID string) (r backend.AgentScoreRow, ok bool, err error) {
	r.TenantID, r.AgentID = tenantID, agentID
	err = s.q.QueryRow(ctx, AgentScore, tenantID, agentID).
		Scan(&r.Score, &r.Tier, &r.TierSince, &r.CalculatedAt, &r.OverrideTier, &r.Components, &r.Baseline, &r.AgentName)
	switch {
	case noRows(err):
		return r, false, nil
	case err != nil:
		return r, false, s.errf("agent score", err)
	}
	return r, true, nil
}

// AgentHistory returns an agent's snapshots with after < time <= upTo,
// oldest first.
func (s *Store) AgentHistory(ctx context.Context, tenantID, agentID, after, upTo string) ([]backend.HistoryPoint, error) {
	out, err := History(s.q.Query(ctx, AgentHistory, tenantID, agentID, after, upTo))
	if err != nil {
		return nil, s.errf("agent history", err)
	}
	return out, nil
}

// AgentScoreAt returns the score of an agent's last snapshot at or before
// at; ok is false when there is none.
func (s *Store) AgentScoreAt(ctx context.Context, tenantID, agentID, at string) (score int, ok bool, err error) {
	err = s.q.QueryRow(ctx, AgentScoreAt, tenantID, agentID, at).Scan(&score)
	switch {
	case noRows(err):
		return 0, false, nil
	case err != nil:
		return 0, false, s.errf("agent history", err)
	}
	return score, true, nil
}

// AgentBaseline returns the JSON baseline stored with an agent's score; ok
// is false when the agent has no score.
func (s *Store) AgentBaseline(ctx context.Context, tenantID, agentID string) (body string, ok bool, err error) {
	return s.text(ctx, "agent baseline", AgentBaseline, tenantID, agentID)
}

// text reads one text value; ok is false when there is no row.
func (s *Store) text(ctx context.Context, what string, st *Stmt, args ...any) (string, bool, error) {
	return text(ctx, s.q, s.loc, what, st, args...)
}

func text(ctx context.Context, q Querier, loc, what string, st *Stmt, args ...any) (string, bool, error) {
	var v string
	err := q.QueryRow(ctx, st, args...).Scan(&v)
	switch {
	case noRows(err):
		return "", false, nil
	case err != nil:
		return "", false, Errf(loc, what, err)
	}
	return v, true, nil
}

// RiskConfigOf reads a tenant's stored risk config through q (a database
// or a transaction); ok is false when none. Errors say what.
func RiskConfigOf(ctx context.Context, q Querier, loc, what, tenantID string) (string, bool, error) {
	return text(ctx, q, loc, what, RiskConfig, tenantID)
}

// SetAgentOverride sets the tier an admin forced on an agent until its next
// recalculation.
func (s *Store) SetAgentOverride(ctx context.Context, tenantID, agentID, tier string) error {
	if _, err := s.q.Exec(ctx, SetAgentOverride, tier, tenantID, agentID); err != nil {
		return s.errf("agent override", err)
	}
	return nil
}

// RiskConfig returns a tenant's stored risk config; ok is false when none.
func (s *Store) RiskConfig(ctx context.Context, tenantID string) (string, bool, error) {
	return s.text(ctx, "risk config", RiskConfig, tenantID)
}

// PutRiskConfig creates or replaces a tenant's risk config.
func (s *Store) PutRiskConfig(ctx context.Context, tenantID, body string, at time.Time) error {
	if _, err := s.q.Exec(ctx, PutRiskConfig, tenantID, body, backend.FormatTime(at)); err != nil {
		return s.errf("risk config", err)
	}
	return nil
}

// RiskConfigs returns every stored risk config, ordered by tenant.
func (s *Store) RiskConfigs(ctx context.Context) ([]backend.TenantBody, error) {
	out, err := TenantBodies(s.q.Query(ctx, RiskConfigs))
	if err != nil {
		return nil, s.errf("risk configs", err)
	}
	return out, nil
}

// AlertRules returns the stored JSON of the rules of a tenant ("" for every
// tenant), ordered by tenant and id.
func (s *Store) AlertRules(ctx context.Context, tenantID string) ([]string, error) {
	st, args := forTenant(AlertRulesAll, AlertRulesTenant, tenantID)
	out, err := Strings(s.q.Query(ctx, st, args...))
	if err != nil {
		return nil, s.errf("alert rules", err)
	}
	return out, nil
}

// RecordAlertDelivery appends a delivery attempt.
func (s *Store) RecordAlertDelivery(ctx context.Context, d backend.AlertDelivery) error {
	if _, err := s.q.Exec(ctx, RecordDelivery, d.TenantID, d.RuleID, d.AgentID, d.AlertID, d.Channel, d.Target,
		d.Attempt, d.Status, d.StatusCode, d.Error, backend.FormatTime(d.Time)); err != nil {
		return s.errf("record alert delivery", err)
	}
	return nil
}

// AlertDeliveries returns the recorded attempts of a tenant ("" for all),
// newest first, at most limit (0 for all).
func (s *Store) AlertDeliveries(ctx context.Context, tenantID string, limit int) ([]backend.AlertDelivery, error) {
	st, args := forTenant(DeliveriesAll, DeliveriesTenant, tenantID)
	if limit > 0 {
		st, _ = forTenant(DeliveriesAllLimit, DeliveriesTenantLimit, tenantID)
		args = append(args, limit)
	}
	out, err := Deliveries(s.q.Query(ctx, st, args...))
	if err != nil {
		return nil, s.errf("alert deliveries", err)
	}
	return out, nil
}

// OutboxAlerts returns up to limit outbox alerts whose lease ended at or
// before due, oldest first.
func (s *Store) OutboxAlerts(ctx context.Context, due time.Time, limit int) ([]backend.OutboxAlert, error) {
	rows, err := s.q.Query(ctx, OutboxDue, backend.FormatTime(due), limit)
	if err != nil {
		return nil, s.errf("outbox", err)
	}
	defer Close(rows)
	var out []backend.OutboxAlert
	for rows.Next() {
		var a backend.OutboxAlert
		var created, lease string
		if err := rows.Scan(&a.AlertID, &a.TenantID, &a.RuleID, &a.AgentID, &a.Body, &created, &lease); err != nil {
			return nil, s.errf("outbox", err)
		}
		a.CreatedAt, _ = time.Parse(backend.TimeFormat, created)
		a.LeaseUntil, _ = time.Parse(backend.TimeFormat, lease)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, s.errf("outbox", err)
	}
	return out, nil
}

// ClaimOutboxAlert leases an alert until until if its lease ended at or
// before due (one UPDATE: of two claims at once, one changes the row).
func (s *Store) ClaimOutboxAlert(ctx context.Context, alertID string, due, until time.Time) (bool, error) {
	n, err := s.q.Exec(ctx, ClaimOutboxAlert, backend.FormatTime(until), alertID, backend.FormatTime(due))
	if err != nil {
		return false, s.errf("claim outbox alert", err)
	}
	return n == 1, nil
}

// DeleteOutboxAlert removes an alert whose delivery ended.
func (s *Store) DeleteOutboxAlert(ctx context.Context, alertID string) error {
	if _, err := s.q.Exec(ctx, DeleteOutboxAlert, alertID); err != nil {
		return s.errf("delete outbox alert", err)
	}
	return nil
}
