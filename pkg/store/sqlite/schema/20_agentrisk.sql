-- Agent risk (pkg/agentrisk). Raw events are not kept: ingest folds them into
-- one compact aggregate per agent (hourly per-tool buckets, injection
-- observations, per-session tool counts), so that recalculating 10,000 agents
-- reads 10,000 rows instead of millions of events.

-- Content hashes of every ingested event: ingesting the same event twice is a no-op.
CREATE TABLE IF NOT EXISTS agentrisk_seen (
    hash BLOB PRIMARY KEY
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS agentrisk_agents (
    tenant_id         TEXT NOT NULL,
    agent_id          TEXT NOT NULL,
    agent_name        TEXT NOT NULL DEFAULT '',
    agg               BLOB NOT NULL,              -- see pkg/agentrisk/agg.go
    first_event_at    TEXT NOT NULL,
    last_event_at     TEXT NOT NULL,
    baseline_reset_at TEXT NOT NULL DEFAULT '',   -- history before this no longer counts towards the baseline
    PRIMARY KEY (tenant_id, agent_id)
);

-- The latest calculation of every agent (risk.listAll(), the verdict path).
CREATE TABLE IF NOT EXISTS agentrisk_scores (
    tenant_id     TEXT NOT NULL,
    agent_id      TEXT NOT NULL,
    score         INTEGER NOT NULL,
    tier          TEXT NOT NULL,
    tier_since    TEXT NOT NULL,
    calculated_at TEXT NOT NULL,
    components    TEXT NOT NULL,               -- JSON []Component
    baseline      TEXT NOT NULL,               -- JSON BaselineBody
    override_tier TEXT NOT NULL DEFAULT '',    -- admin release, cleared by the next recalculation
    PRIMARY KEY (tenant_id, agent_id)
);

-- One snapshot per agent and recalculation (risk.getForAgent() windows and trend).
CREATE TABLE IF NOT EXISTS agentrisk_history (
    tenant_id     TEXT NOT NULL,
    agent_id      TEXT NOT NULL,
    calculated_at TEXT NOT NULL,
    score         INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, calculated_at)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS agentrisk_configs (
    tenant_id  TEXT PRIMARY KEY,
    body       TEXT NOT NULL,                  -- JSON RiskConfig
    updated_at TEXT NOT NULL
);
