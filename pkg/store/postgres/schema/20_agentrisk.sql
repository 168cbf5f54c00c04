-- Agent risk (pkg/agentrisk): seen-event hashes, one aggregate per agent,
-- the latest score of each agent, score history and tenants' risk configs.
-- Aggregates are the domain's encoding, stored as given (bytea).
CREATE TABLE IF NOT EXISTS agentrisk_seen (
    hash BYTEA PRIMARY KEY
);

CREATE TABLE IF NOT EXISTS agentrisk_agents (
    tenant_id         TEXT COLLATE "C" NOT NULL,
    agent_id          TEXT COLLATE "C" NOT NULL,
    agent_name        TEXT COLLATE "C" NOT NULL DEFAULT '',
    agg               BYTEA NOT NULL,
    first_event_at    TEXT COLLATE "C" NOT NULL,
    last_event_at     TEXT COLLATE "C" NOT NULL,
    baseline_reset_at TEXT COLLATE "C" NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, agent_id)
);

CREATE TABLE IF NOT EXISTS agentrisk_scores (
    tenant_id     TEXT COLLATE "C" NOT NULL,
    agent_id      TEXT COLLATE "C" NOT NULL,
    score         INTEGER NOT NULL,
    tier          TEXT COLLATE "C" NOT NULL,
    tier_since    TEXT COLLATE "C" NOT NULL,
    calculated_at TEXT COLLATE "C" NOT NULL,
    components    TEXT COLLATE "C" NOT NULL,
    baseline      TEXT COLLATE "C" NOT NULL,
    override_tier TEXT COLLATE "C" NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, agent_id)
);

CREATE TABLE IF NOT EXISTS agentrisk_history (
    tenant_id     TEXT COLLATE "C" NOT NULL,
    agent_id      TEXT COLLATE "C" NOT NULL,
    calculated_at TEXT COLLATE "C" NOT NULL,
    score         INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, calculated_at)
);

CREATE TABLE IF NOT EXISTS agentrisk_configs (
    tenant_id  TEXT COLLATE "C" PRIMARY KEY,
    body       TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
);
