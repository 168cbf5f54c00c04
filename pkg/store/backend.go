package store

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/model"
)

// The interfaces below name what the domain needs from a store, grouped by
// table group. *Store (SQLite) implements them all; a second backend
// (PostgreSQL) implements the same method set and runs the conformance suite
// in pkg/store/storetest. See docs/store.md.

// EntityReader reads methodologies and risk scorers.
type EntityReader interface {
	Entities(ctx context.Context, kind model.Kind) ([]Entity, error)
	Methodologies(ctx context.Context) (map[string]*model.Methodology, error)
	RiskScorers(ctx context.Context) ([]*model.RiskScorer, error)
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
	BeginRun(ctx context.Context, run model.EvaluationRun) (*RunWriter, error)
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
}

// Reader is everything a store can be asked.
type Reader interface {
	EntityReader
	RunReader
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

// Backend is a whole store: reads, atomic writes through Update, the
// writes that stand alone, and upkeep.
type Backend interface {
	Reader
	RunRecorder
	Maintainer
	Update(ctx context.Context, fn func(*Tx) error) error
	RecordAlertDelivery(ctx context.Context, d AlertDelivery) error
	PutRiskConfig(ctx context.Context, tenantID, body string, at time.Time) error
	SetAgentOverride(ctx context.Context, tenantID, agentID, tier string) error
}

var _ Backend = (*Store)(nil)
