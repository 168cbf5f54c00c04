-- Idempotent agent-event ingest without an ever-growing table of random keys
-- (issue 14): the 16-byte content hashes of a tenant's events of one hour
-- (Unix hour, seconds / 3600) are one blob, loaded and rewritten as a whole
-- by the ingests that touch that hour, and deleted once the hour has left
-- the dedup window (pkg/agentrisk/ingest.go).
CREATE TABLE IF NOT EXISTS agentrisk_seen_hours (
    tenant_id TEXT NOT NULL,
    hour      INTEGER NOT NULL,
    hashes    BLOB NOT NULL,             -- 16-byte hashes concatenated
    PRIMARY KEY (tenant_id, hour)
);

-- Stores from before: agentrisk_seen holds the hashes of every event ever
-- ingested, with no time, so they cannot be split into hours. They stay the
-- legacy set, consulted for events up to until_hour (the hour of the latest
-- event stored before this migration, at most the hour of the migration),
-- and are deleted once the dedup window has passed it (kept becomes 0).
CREATE TABLE IF NOT EXISTS agentrisk_seen_legacy (
    until_hour INTEGER NOT NULL,
    kept       INTEGER NOT NULL DEFAULT 1
);
INSERT INTO agentrisk_seen_legacy (until_hour)
    SELECT min(CAST(strftime('%s', last) AS INTEGER), CAST(strftime('%s', 'now') AS INTEGER)) / 3600
    FROM (SELECT max(last_event_at) AS last FROM agentrisk_agents)
    WHERE last IS NOT NULL AND EXISTS (SELECT 1 FROM agentrisk_seen);
