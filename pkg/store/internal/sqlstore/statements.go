package sqlstore

// The statements both backends run, by table group. A statement only one
// backend runs (an engine's own upsert or bulk path, its locks, its upkeep)
// stays in that backend; TestNoStatementInBothBackends keeps them from
// being copied there again.

// Schema migrations (each backend's schema/NN_name.sql).
var (
	MigrationsTable = variant(`CREATE TABLE IF NOT EXISTS schema_migrations (
			version TEXT COLLATE "C" PRIMARY KEY, applied_at TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS schema_migrations (
			version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`)
	MigrationVersions = stmt(`SELECT version FROM schema_migrations`)
	RecordMigration   = stmt(`INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`)
	// AppliedMigrations and MigrationTimes list the applied versions in
	// order (lf store copy compares them).
	AppliedMigrations = stmt(`SELECT version FROM schema_migrations ORDER BY version`)
	MigrationTimes    = stmt(`SELECT version, applied_at FROM schema_migrations ORDER BY version`)
)

// Entities and apps.
var (
	EntitiesOfKind = stmt(`SELECT key, body, yaml FROM entities WHERE app = $1 AND kind = $2 ORDER BY key`)
	EntityOfKey    = stmt(`SELECT key, body, yaml FROM entities WHERE app = $1 AND kind = $2 AND key = $3`)
	DeleteEntity   = stmt(`DELETE FROM entities WHERE app = $1 AND kind = $2 AND key = $3`)
	AppKindCounts  = stmt(`SELECT app, kind, count(*) FROM entities GROUP BY app, kind`)
	AppRunCounts   = stmt(`SELECT app, count(*), max(created_at) FROM evaluation_runs GROUP BY app`)
	AppHasRows     = stmt(`SELECT EXISTS (SELECT 1 FROM entities WHERE app = $1)
		OR EXISTS (SELECT 1 FROM evaluation_runs WHERE app = $1)`)
)

// AppTables are the tables whose rows belong to an app (50_apps.sql), and
// RenameApp the statement moving the rows of each from app $2 to app $1.
var (
	AppTables = []string{"entities", "evaluation_runs", "metric_values", "run_value_blocks", "latest_runs", "risk_partials"}
	RenameApp = func() []*Stmt {
		out := make([]*Stmt, len(AppTables))
		for i, t := range AppTables {
			out[i] = stmt(`UPDATE ` + t + ` SET app = $1 WHERE app = $2`)
		}
		return out
	}()
)

// Runs and their metric values.
var (
	// RunList lists an app's runs with their value counts and the metadata
	// of imported runs: JSON is read with each engine's own functions.
	RunList = variant(`SELECT r.evaluation_key, r.id, r.created_at, r.status, r.yaml,
		coalesce(v.n, 0)::bigint,
		coalesce(b.j #>> '{metadata,tool}', ''),
		coalesce(b.j #>> '{metadata,source_file}', ''),
		coalesce(b.j #>> '{metadata,original_names,evaluation_key}', ''),
		coalesce(b.j #>> '{metadata,original_names,id}', '')
		FROM evaluation_runs r
		CROSS JOIN LATERAL (SELECT r.body::jsonb AS j) b
		LEFT JOIN (SELECT evaluation_key, run_id, sum(n) AS n FROM (
				SELECT evaluation_key, run_id, count(*) AS n FROM metric_values WHERE app = $1 GROUP BY evaluation_key, run_id
				UNION ALL
				SELECT evaluation_key, run_id, sum(n_values) AS n FROM run_value_blocks WHERE app = $1 GROUP BY evaluation_key, run_id) u
			GROUP BY evaluation_key, run_id) v
			ON v.evaluation_key = r.evaluation_key AND v.run_id = r.id
		WHERE r.app = $1
		ORDER BY r.evaluation_key, r.id`,
		`SELECT r.evaluation_key, r.id, r.created_at, r.status, r.yaml,
		(SELECT count(*) FROM metric_values v WHERE v.app = r.app AND v.evaluation_key = r.evaluation_key AND v.run_id = r.id)
		+ (SELECT coalesce(sum(b.n_values), 0) FROM run_value_blocks b WHERE b.app = r.app AND b.evaluation_key = r.evaluation_key AND b.run_id = r.id),
		coalesce(json_extract(r.body, '$.metadata.tool'), ''),
		coalesce(json_extract(r.body, '$.metadata.source_file'), ''),
		coalesce(json_extract(r.body, '$.metadata.original_names.evaluation_key'), ''),
		coalesce(json_extract(r.body, '$.metadata.original_names.id'), '')
		FROM evaluation_runs r WHERE r.app = ?1 ORDER BY r.evaluation_key, r.id`)
	RunBody   = stmt(`SELECT body FROM evaluation_runs WHERE app = $1 AND evaluation_key = $2 AND id = $3`)
	RunYAML   = stmt(`SELECT yaml FROM evaluation_runs WHERE app = $1 AND evaluation_key = $2 AND id = $3`)
	RunValues = stmt(`SELECT task_specification_key, scorer_key, metric_key, value FROM metric_values
		WHERE app = $1 AND evaluation_key = $2 AND run_id = $3 ORDER BY task_specification_key, scorer_key, metric_key`)
	RunBlocks    = stmt(`SELECT data FROM run_value_blocks WHERE app = $1 AND evaluation_key = $2 AND run_id = $3 ORDER BY block`)
	MetricValues = stmt(`SELECT task_specification_key, scorer_key, value FROM metric_values
		WHERE app = $1 AND evaluation_key = $2 AND run_id = $3 AND metric_key = $4`)
	LatestRunsAll = stmt(`SELECT evaluation_key, id FROM latest_runs WHERE app = $1 ORDER BY evaluation_key`)
	InsertRun     = stmt(`INSERT INTO evaluation_runs (app, evaluation_key, id, created_at, status, body, yaml) VALUES ($1, $2, $3, $4, $5, $6, $7)`)
	DeleteRunRow  = stmt(`DELETE FROM evaluation_runs WHERE app = $1 AND evaluation_key = $2 AND id = $3`)
	DeleteValues  = stmt(`DELETE FROM metric_values WHERE app = $1 AND evaluation_key = $2 AND run_id = $3`)
	DeleteLatest  = stmt(`DELETE FROM latest_runs WHERE app = $1 AND evaluation_key = $2`)
	// DeleteAllLatest empties latest_runs (lf store copy rebuilds it).
	DeleteAllLatest = stmt(`DELETE FROM latest_runs`)
	AbandonedRuns   = stmt(`SELECT app, evaluation_key, id, writer_pid, writer_host, heartbeat_at
		FROM evaluation_runs WHERE writer_pid <> 0`)
)

// Streamed runs (RunWriter).
var (
	BeginRunWriter = stmt(`UPDATE evaluation_runs SET writer_pid = $1, writer_host = $2, heartbeat_at = $3
		WHERE app = $4 AND evaluation_key = $5 AND id = $6`)
	RunHeartbeat     = stmt(`UPDATE evaluation_runs SET heartbeat_at = $1 WHERE app = $2 AND evaluation_key = $3 AND id = $4`)
	InsertValueBlock = stmt(`INSERT INTO run_value_blocks (app, evaluation_key, run_id, block, n_values, data) VALUES ($1, $2, $3, $4, $5, $6)`)
	// FinishRun gives run ($2, $3, $4) its final status $1, in its column
	// and in its JSON body.
	FinishRun = variant(`UPDATE evaluation_runs SET status = $1, body = jsonb_set(body::jsonb, '{status}', to_jsonb($1::text))::text,
		writer_pid = 0, writer_host = '', heartbeat_at = '' WHERE app = $2 AND evaluation_key = $3 AND id = $4`,
		`UPDATE evaluation_runs SET status = ?1, body = json_set(body, '$.status', ?1),
		writer_pid = 0, writer_host = '', heartbeat_at = '' WHERE app = ?2 AND evaluation_key = ?3 AND id = ?4`)
)

// Agent risk (20_agentrisk.sql, 60_agentrisk_hashsets.sql,
// 70_agentrisk_hashchunks.sql).
const (
	selectAgents    = `SELECT tenant_id, agent_id, agent_name, agg, first_event_at, last_event_at, baseline_reset_at FROM agentrisk_agents`
	selectScoreList = `SELECT s.tenant_id, s.agent_id, a.agent_name, s.tier, s.score, s.calculated_at
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id`
	selectScores = `SELECT tenant_id, agent_id, score, tier, tier_since FROM agentrisk_scores`
)

var (
	AgentsAll        = stmt(selectAgents + ` ORDER BY tenant_id, agent_id`)
	AgentsOfTenant   = stmt(selectAgents + ` WHERE tenant_id = $1 ORDER BY tenant_id, agent_id`)
	CountAgents      = stmt(`SELECT count(*) FROM agentrisk_agents WHERE tenant_id = $1`)
	CountAgent       = stmt(`SELECT count(*) FROM agentrisk_agents WHERE tenant_id = $1 AND agent_id = $2`)
	CountRiskConfigs = stmt(`SELECT count(*) FROM agentrisk_configs WHERE tenant_id = $1`)
	AgentTenants     = stmt(`SELECT DISTINCT tenant_id FROM agentrisk_agents ORDER BY tenant_id`)
	TenantsOfAgent   = stmt(`SELECT tenant_id FROM agentrisk_agents WHERE agent_id = $1 ORDER BY tenant_id`)
	ScoreListAll     = stmt(selectScoreList + ` ORDER BY s.score DESC, s.tenant_id, s.agent_id`)
	ScoreListTenant  = stmt(selectScoreList + ` WHERE s.tenant_id = $1 ORDER BY s.score DESC, s.tenant_id, s.agent_id`)
	AgentScore       = stmt(`SELECT s.score, s.tier, s.tier_since, s.calculated_at, s.override_tier, s.components, s.baseline, a.agent_name
		FROM agentrisk_scores s JOIN agentrisk_agents a ON a.tenant_id = s.tenant_id AND a.agent_id = s.agent_id
		WHERE s.tenant_id = $1 AND s.agent_id = $2`)
	AgentHistory = stmt(`SELECT calculated_at, score FROM agentrisk_history
		WHERE tenant_id = $1 AND agent_id = $2 AND calculated_at > $3 AND calculated_at <= $4 ORDER BY calculated_at`)
	AgentScoreAt = stmt(`SELECT score FROM agentrisk_history WHERE tenant_id = $1 AND agent_id = $2 AND calculated_at <= $3
		ORDER BY calculated_at DESC LIMIT 1`)
	AgentBaseline    = stmt(`SELECT baseline FROM agentrisk_scores WHERE tenant_id = $1 AND agent_id = $2`)
	SetAgentOverride = stmt(`UPDATE agentrisk_scores SET override_tier = $1 WHERE tenant_id = $2 AND agent_id = $3`)
	RiskConfig       = stmt(`SELECT body FROM agentrisk_configs WHERE tenant_id = $1`)
	PutRiskConfig    = stmt(`INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (tenant_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`)
	RiskConfigs         = stmt(`SELECT tenant_id, body FROM agentrisk_configs ORDER BY tenant_id`)
	DeleteRiskConfigs   = stmt(`DELETE FROM agentrisk_configs`)
	InsertRiskConfig    = stmt(`INSERT INTO agentrisk_configs (tenant_id, body, updated_at) VALUES ($1, $2, $3)`)
	AgentAggregate      = stmt(`SELECT agg, agent_name, first_event_at, last_event_at, baseline_reset_at FROM agentrisk_agents WHERE tenant_id = $1 AND agent_id = $2`)
	ResetAgentAggregate = stmt(`UPDATE agentrisk_agents SET agg = $1, baseline_reset_at = $2 WHERE tenant_id = $3 AND agent_id = $4`)
	ResetScoreBaseline  = stmt(`UPDATE agentrisk_scores SET baseline = $1 WHERE tenant_id = $2 AND agent_id = $3`)
	AgentScoresAll      = stmt(selectScores)
	AgentScoresOfTenant = stmt(selectScores + ` WHERE tenant_id = $1`)
	PutScore            = stmt(`INSERT INTO agentrisk_scores (tenant_id, agent_id, score, tier, tier_since, calculated_at, components, baseline, override_tier)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '')
		ON CONFLICT (tenant_id, agent_id) DO UPDATE SET score = excluded.score, tier = excluded.tier, tier_since = excluded.tier_since,
			calculated_at = excluded.calculated_at, components = excluded.components, baseline = excluded.baseline, override_tier = ''`)
	PutHistory = stmt(`INSERT INTO agentrisk_history (tenant_id, agent_id, calculated_at, score) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, agent_id, calculated_at) DO UPDATE SET score = excluded.score`)
)

// Event ingest: hash sets and aggregates.
var (
	// HashChunksFrom reads the chunks of an hour numbered $1 or above; the
	// chunk numbered $1 is read without its hashes, to tell "nothing new"
	// from "the hour is gone".
	HashChunksFrom = stmt(`SELECT chunk, CASE WHEN chunk > $1 THEN hashes END FROM agentrisk_seen_hours
		WHERE tenant_id = $2 AND hour = $3 AND chunk >= $1 ORDER BY chunk`)
	AddHashChunk = stmt(`INSERT INTO agentrisk_seen_hours (tenant_id, hour, chunk, hashes) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, hour, chunk) DO UPDATE SET hashes = excluded.hashes`)
	DropHashChunks = stmt(`DELETE FROM agentrisk_seen_hours WHERE tenant_id = $1 AND hour = $2`)
	LatestHashHour = stmt(`SELECT max(hour) FROM agentrisk_seen_hours WHERE tenant_id = $1`)
	PruneHashSets  = stmt(`DELETE FROM agentrisk_seen_hours WHERE tenant_id = $1 AND hour < $2`)
	PutAgent       = stmt(`INSERT INTO agentrisk_agents (tenant_id, agent_id, agent_name, agg, first_event_at, last_event_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (tenant_id, agent_id) DO UPDATE SET agent_name = excluded.agent_name, agg = excluded.agg,
			first_event_at = excluded.first_event_at, last_event_at = excluded.last_event_at`)
	HasAgents        = stmt(`SELECT EXISTS (SELECT 1 FROM agentrisk_agents WHERE tenant_id = $1)`)
	LegacyHashes     = stmt(`SELECT until_hour, kept <> 0 FROM agentrisk_seen_legacy`)
	LegacySeen       = stmt(`SELECT EXISTS (SELECT 1 FROM agentrisk_seen WHERE hash = $1)`)
	DropLegacyHashes = stmt(`DELETE FROM agentrisk_seen`)
	LegacyNotKept    = stmt(`UPDATE agentrisk_seen_legacy SET kept = 0`)
)

// Alerts (30_alerts.sql).
const selectDeliveries = `SELECT seq, tenant_id, rule_id, agent_id, alert_id, channel, target, attempt, status, status_code, error, created_at
		FROM alert_deliveries`

var (
	AlertRule    = stmt(`SELECT body FROM alert_rules WHERE tenant_id = $1 AND id = $2`)
	PutAlertRule = stmt(`INSERT INTO alert_rules (tenant_id, id, body, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, id) DO UPDATE SET body = excluded.body`)
	DeleteAlertRule   = stmt(`DELETE FROM alert_rules WHERE tenant_id = $1 AND id = $2`)
	DeleteAlertStates = stmt(`DELETE FROM alert_state WHERE tenant_id = $1 AND rule_id = $2`)
	AlertRulesAll     = stmt(`SELECT body FROM alert_rules ORDER BY tenant_id, id`)
	AlertRulesTenant  = stmt(`SELECT body FROM alert_rules WHERE tenant_id = $1 ORDER BY tenant_id, id`)
	// AlertState reads a crossing state; PostgreSQL locks the row until the
	// transaction ends, so a replica deciding the same crossing waits
	// (SQLite has one writer at a time anyway).
	AlertState = variant(`SELECT above FROM alert_state WHERE tenant_id = $1 AND rule_id = $2 AND agent_id = $3 FOR UPDATE`,
		`SELECT above FROM alert_state WHERE tenant_id = ?1 AND rule_id = ?2 AND agent_id = ?3`)
	SetAlertState = stmt(`INSERT INTO alert_state (tenant_id, rule_id, agent_id, above, since) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant_id, rule_id, agent_id) DO UPDATE SET above = excluded.above,
		since = CASE WHEN alert_state.above = excluded.above THEN alert_state.since ELSE excluded.since END`)
	RecordDelivery = stmt(`INSERT INTO alert_deliveries
		(tenant_id, rule_id, agent_id, alert_id, channel, target, attempt, status, status_code, error, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`)
	DeliveriesAll         = stmt(selectDeliveries + ` ORDER BY seq DESC`)
	DeliveriesAllLimit    = stmt(selectDeliveries + ` ORDER BY seq DESC LIMIT $1`)
	DeliveriesTenant      = stmt(selectDeliveries + ` WHERE tenant_id = $1 ORDER BY seq DESC`)
	DeliveriesTenantLimit = stmt(selectDeliveries + ` WHERE tenant_id = $1 ORDER BY seq DESC LIMIT $2`)
)

// The alert outbox (90_alert_outbox.sql).
var (
	PutOutboxAlert = stmt(`INSERT INTO alert_outbox (alert_id, tenant_id, rule_id, agent_id, body, created_at, lease_until)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`)
	OutboxDue = stmt(`SELECT alert_id, tenant_id, rule_id, agent_id, body, created_at, lease_until FROM alert_outbox
		WHERE lease_until <= $1 ORDER BY created_at, alert_id LIMIT $2`)
	ClaimOutboxAlert  = stmt(`UPDATE alert_outbox SET lease_until = $1 WHERE alert_id = $2 AND lease_until <= $3`)
	DeleteOutboxAlert = stmt(`DELETE FROM alert_outbox WHERE alert_id = $1`)
)
