// Package backend names what lf's domain needs from a store, as Go
// interfaces grouped by table group, and the value types they exchange. A
// store backend (pkg/store/sqlite today, PostgreSQL next) implements
// Backend and passes the conformance suite in pkg/store/storetest; the
// domain reaches it through pkg/store. See docs/store.md.
package backend

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/model"
)

// EntityReader reads methodologies and risk scorers.
type EntityReader interface {
	Entities(ctx context.Context, kind model.Kind) ([]Entity, error)
	Methodologies(ctx context.Context) (map[string]*model.Methodology, error)
	RiskScorers(ctx context.Context) ([]*model.RiskScorer, error)
	// RiskScorersOf is RiskScorers for the scorers of keys only (a key
	// that names none is left out).
	RiskScorersOf(ctx context.Context, keys []string) ([]*model.RiskScorer, error)
}

// RunReader reads evaluation runs and their metric values (scoring reads
// LatestRuns and Values).
type RunReader interface {
	Runs(ctx context.Context) ([]RunRow, error)
	Run(ctx context.Context, evaluationKey, id string) (*model.EvaluationRun, error)
	LatestRuns(ctx context.Context, keys []string) ([]model.RunRef, error)
	Values(ctx context.Context, run model.RunRef, metric string) ([]model.MetricValue, error)
}

// RunRecorder writes the runs evaluations produce: whole (RecordRun) or
// streamed in batches (BeginRun).
type RunRecorder interface {
	RecordRun(ctx context.Context, run model.EvaluationRun) error
	BeginRun(ctx context.Context, run model.EvaluationRun) (RunWriter, error)
}

// AgentReader reads agent aggregates, scores, history and risk configs.
type AgentReader interface {
	Agents(ctx context.Context, tenantID string) ([]AgentRow, error)
	CountAgents(ctx context.Context, tenantID string) (int, error)
	AgentExists(ctx context.Context, tenantID, agentID string) (bool, error)
	AgentTenants(ctx context.Context) ([]string, error)
	TenantsOfAgent(ctx context.Context, agentID string) ([]string, error)
	AgentScoreList(ctx context.Context, tenantID string) ([]AgentScoreRow, error)
	AgentScore(ctx context.Context, tenantID, agentID string) (AgentScoreRow, bool, error)
	AgentHistory(ctx context.Context, tenantID, agentID, after, upTo string) ([]HistoryPoint, error)
	AgentScoreAt(ctx context.Context, tenantID, agentID, at string) (int, bool, error)
	AgentBaseline(ctx context.Context, tenantID, agentID string) (string, bool, error)
	RiskConfig(ctx context.Context, tenantID string) (string, bool, error)
	RiskConfigs(ctx context.Context) ([]TenantBody, error)
	HasRiskConfig(ctx context.Context, tenantID string) (bool, error)
}

// AlertReader reads alert rules and delivery attempts.
type AlertReader interface {
	AlertRules(ctx context.Context, tenantID string) ([]string, error)
	AlertDeliveries(ctx context.Context, tenantID string, limit int) ([]AlertDelivery, error)
	// OutboxAlerts returns up to limit alerts of the outbox whose lease
	// ended at or before due, oldest first.
	OutboxAlerts(ctx context.Context, due time.Time, limit int) ([]OutboxAlert, error)
}

// Reader is everything a store can be asked.
type Reader interface {
	EntityReader
	RunReader
	RunHistory
	AgentReader
	AlertReader
}

// Maintainer keeps a store in shape.
type Maintainer interface {
	CollectGarbage(ctx context.Context) (GCResult, error)
	Compact(ctx context.Context) error
	Size() int64
	Close() error
}

// AppScope is how one store holds many AI apps. Entities, runs, metric
// values and latest runs belong to one app; a handle reads and writes the
// app it was scoped to (ForApp) and never sees another app's rows. Agent
// risk and alert tables are not app-scoped: tenants are their scope.
type AppScope interface {
	// App is the app this handle reads and writes. A freshly opened handle
	// has app "" (NoApp): the rows of a store written before apps.
	App() string
	// ForApp returns a handle on the same store (same connection: closing
	// either closes both) that reads and writes app.
	ForApp(app string) Backend
	// Apps lists every app holding entities or runs, sorted by name,
	// NoApp included when it holds rows.
	Apps(ctx context.Context) ([]AppInfo, error)
	// HasApp tells whether app holds entities or runs (whether Apps would
	// list it), without counting what every app holds.
	HasApp(ctx context.Context, app string) (bool, error)
	// RenameApp moves every entity, run, metric value and latest run of app
	// from to app to, in one transaction, and reports whether there was
	// anything to move. It fails with an error wrapping ErrAppExists, and
	// moves nothing, when to already holds entities or runs.
	RenameApp(ctx context.Context, from, to string) (bool, error)
}

// Backend is a whole store: reads, atomic writes through Update, the
// writes that stand alone, and upkeep. Every method but the agent-risk and
// alert ones, and CollectGarbage, acts on the handle's app (AppScope).
type Backend interface {
	Reader
	RunRecorder
	Maintainer
	AppScope
	RiskPartials
	Update(ctx context.Context, fn func(Tx) error) error
	// Location is where the store is, for messages (a path or a URL).
	Location() string
	RecordAlertDelivery(ctx context.Context, d AlertDelivery) error
	// ClaimOutboxAlert leases an outbox alert until until if its lease
	// ended at or before due, and tells whether it did (of processes
	// claiming one alert at once, one succeeds).
	ClaimOutboxAlert(ctx context.Context, alertID string, due, until time.Time) (bool, error)
	// DeleteOutboxAlert removes an alert whose delivery ended.
	DeleteOutboxAlert(ctx context.Context, alertID string) error
	PutRiskConfig(ctx context.Context, tenantID, body string, at time.Time) error
	SetAgentOverride(ctx context.Context, tenantID, agentID, tier string) error
}

// Tx is one atomic write: what Update's function does through it is
// committed together or not at all. It acts on the app of the handle whose
// Update made it.
type Tx interface {
	Entities(ctx context.Context, kind model.Kind) ([]Entity, error)
	RiskScorers(ctx context.Context) ([]*model.RiskScorer, error)
	Runs(ctx context.Context) ([]RunRow, error)
	PutEntity(ctx context.Context, e Entity) (Outcome, error)
	DeleteEntity(ctx context.Context, kind model.Kind, key string) (bool, error)
	// PutRunYAML stores a run added from a file with its canonical YAML; a
	// run whose stored YAML is the same is left alone (Unchanged).
	PutRunYAML(ctx context.Context, run model.EvaluationRun, yamlText string) (Outcome, error)
	DeleteRun(ctx context.Context, evaluationKey, id string) error
	BulkRuns(ctx context.Context, evaluationKey string) (BulkRuns, error)

	AgentAggregate(ctx context.Context, tenantID, agentID string) (AgentRow, bool, error)
	AgentScores(ctx context.Context, tenantID string) ([]AgentScoreRow, error)
	ResetAgentBaseline(ctx context.Context, tenantID, agentID string, agg []byte, at time.Time, emptyBaseline string) error
	ReplaceRiskConfigs(ctx context.Context, cfgs []TenantBody, at time.Time) error
	EventIngest(ctx context.Context) (EventIngest, error)
	ScoreWriter(ctx context.Context) (ScoreWriter, error)

	AlertRule(ctx context.Context, tenantID, id string) (string, bool, error)
	PutAlertRule(ctx context.Context, tenantID, id, body string, created time.Time) error
	DeleteAlertRule(ctx context.Context, tenantID, id string) (bool, error)
	AlertStates(ctx context.Context) (AlertStates, error)
	// PutOutboxAlert adds a fired alert to the outbox.
	PutOutboxAlert(ctx context.Context, a OutboxAlert) error
}

// RunWriter streams the results of a run in batches; the run is running
// (invisible to scorers) until Finish gives it its final status.
type RunWriter interface {
	Add(ctx context.Context, r model.Result) error
	Written() int
	ID() string
	Finish(ctx context.Context, status string) error
	Abort(ctx context.Context) error
}

// BulkRuns writes many completed runs of one key fast (generated data).
type BulkRuns interface {
	Run(ctx context.Context, id string, created time.Time) error
	Value(ctx context.Context, id, task, scorer, metric string, v float64) error
	Close(ctx context.Context) error
}

// EventIngest folds agent events into aggregates inside a Tx.
//
// Idempotence: the content hash of every ingested event (16 bytes) goes into
// the hash set of its tenant and hour (Unix hour, seconds / 3600), stored in
// numbered chunks, each the hashes concatenated in no particular order. An
// ingest adds the hashes it stored as a new chunk numbered above the hour's
// highest, and may replace an hour's chunks by one (compaction) numbered at
// least as high as the highest it replaces: chunk numbers only grow within
// an hour, so a reader that holds the union of the chunks up to number n
// stays right by reading the chunks above n. Ingest prunes the sets that
// fell out of the dedup window (see pkg/agentrisk/ingest.go).
//
// Stores from before the hour sets (SQLite schema 60) keep their old hashes
// in one legacy set with no hours, consulted for events up to its Until
// hour until the window has passed it.
type EventIngest interface {
	// HashChunks returns the hashes of the chunks of a tenant's hour
	// numbered above after (every chunk: after -1), in chunk order, the
	// hour's highest chunk number, and how many chunks are numbered after
	// or above (0: none; the hour has no chunk when after is -1).
	HashChunks(ctx context.Context, tenantID string, hour, after int64) (hashes []byte, last int64, n int, err error)
	// AddHashChunk stores hashes as chunk number chunk (above the highest) of a tenant's hour.
	AddHashChunk(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error
	// PutHashSet replaces every chunk of a tenant's hour by one, numbered
	// chunk (at least the highest it replaces).
	PutHashSet(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error
	// LatestHashHour returns the latest hour with a hash set of the tenant; ok is false when it has none.
	LatestHashHour(ctx context.Context, tenantID string) (hour int64, ok bool, err error)
	// PruneHashSets deletes the tenant's hash sets of the hours before hour.
	PruneHashSets(ctx context.Context, tenantID string, before int64) error

	// LegacyHashes describes the legacy set; ok is false when the store never had one.
	LegacyHashes(ctx context.Context) (l LegacyHashes, ok bool, err error)
	// LegacySeen tells whether the legacy set holds a hash.
	LegacySeen(ctx context.Context, hash []byte) (bool, error)
	// DropLegacyHashes deletes the legacy hashes, keeping their Until hour (Kept false).
	DropLegacyHashes(ctx context.Context) error

	Agent(ctx context.Context, tenantID, agentID string) (AgentRow, bool, error)
	PutAgent(ctx context.Context, r AgentRow) error
	// HasAgents tells whether the tenant has an agent stored (before or by
	// this ingest), so that ingest need not ask for each agent of a new one.
	HasAgents(ctx context.Context, tenantID string) (bool, error)
	// RiskConfig returns the tenant's stored risk config body (ok false:
	// none), read in the ingest's transaction.
	RiskConfig(ctx context.Context, tenantID string) (body string, ok bool, err error)
	Close()
}

// LegacyHashes is the hash set of a store from before the hour sets: it
// covers the events up to hour Until; Kept is false once it was dropped
// (events up to Until can then no longer be told apart from duplicates).
type LegacyHashes struct {
	Until int64
	Kept  bool
}

// ScoreWriter writes agents' scores and history snapshots inside a Tx.
type ScoreWriter interface {
	Put(ctx context.Context, r AgentScoreRow) error
	Close()
}

// AlertStates reads and writes whether agents are above rules' thresholds.
type AlertStates interface {
	Above(ctx context.Context, tenantID, ruleID, agentID string) (above, known bool, err error)
	Set(ctx context.Context, tenantID, ruleID, agentID string, above bool, at time.Time) error
	// Swap is Set returning the state it replaced (known false: none was
	// stored), decided atomically: of concurrent Swaps of one agent and
	// rule (replicas recalculating at once), one sees the state before and
	// the others the state it wrote. Alerts fire on Swap's answer, so a
	// crossing fires once however many replicas see it.
	Swap(ctx context.Context, tenantID, ruleID, agentID string, above bool, at time.Time) (prev, known bool, err error)
	Close()
}
