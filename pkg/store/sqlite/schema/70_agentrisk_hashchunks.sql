-- Hour sets in chunks (issue 14): an ingest appends its new hashes as a
-- chunk of their tenant's hour instead of rewriting the hour's whole set,
-- so that a request into the current hour writes only its own hashes.
-- Chunk numbers grow within an hour (each new chunk is numbered above the
-- highest stored); compacting an hour's chunks into one keeps the highest
-- number (pkg/agentrisk/ingest.go). A set stored before is chunk 0.
CREATE TABLE agentrisk_seen_hours_chunks (
    tenant_id TEXT NOT NULL,
    hour      INTEGER NOT NULL,
    chunk     INTEGER NOT NULL,
    hashes    BLOB NOT NULL,             -- 16-byte hashes concatenated
    PRIMARY KEY (tenant_id, hour, chunk)
);
INSERT INTO agentrisk_seen_hours_chunks (tenant_id, hour, chunk, hashes)
    SELECT tenant_id, hour, 0, hashes FROM agentrisk_seen_hours;
DROP TABLE agentrisk_seen_hours;
ALTER TABLE agentrisk_seen_hours_chunks RENAME TO agentrisk_seen_hours;
