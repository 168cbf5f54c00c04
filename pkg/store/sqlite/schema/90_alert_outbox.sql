-- Alerts fired and not yet delivered or given up (the outbox): written in
-- the transaction that claims the rule's crossing, removed when the
-- delivery ends. An alert taken for delivery is leased until lease_until;
-- one still here after that (its process died) is delivered again.
CREATE TABLE IF NOT EXISTS alert_outbox (
    alert_id    TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL,
    rule_id     TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    body        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    lease_until TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS alert_outbox_lease ON alert_outbox (lease_until);
