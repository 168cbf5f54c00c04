-- Alert rules per tenant, as canonical JSON (the API's camelCase shape).
CREATE TABLE IF NOT EXISTS alert_rules (
    tenant_id  TEXT NOT NULL,
    id         TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

-- Whether an agent is currently above a rule's threshold, so that a rule
-- fires once per upward crossing and re-arms when the agent drops back.
CREATE TABLE IF NOT EXISTS alert_state (
    tenant_id TEXT NOT NULL,
    rule_id   TEXT NOT NULL,
    agent_id  TEXT NOT NULL,
    above     INTEGER NOT NULL,
    since     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, rule_id, agent_id)
);

-- Every delivery attempt of an alert: one row per attempt, with the HTTP
-- status code or the error, so a failing target can be diagnosed afterwards.
CREATE TABLE IF NOT EXISTS alert_deliveries (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id   TEXT NOT NULL,
    rule_id     TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    alert_id    TEXT NOT NULL,
    channel     TEXT NOT NULL,
    target      TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    status      TEXT NOT NULL, -- delivered | retrying | failed
    status_code INTEGER NOT NULL DEFAULT 0,
    error       TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS alert_deliveries_tenant
    ON alert_deliveries (tenant_id, seq);
