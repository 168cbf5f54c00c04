-- Hour sets in chunks (see the SQLite migration of the same version): an
-- ingest appends its new hashes as a chunk of their tenant's hour; chunk
-- numbers grow within an hour and compaction keeps the highest. A set
-- stored before is chunk 0.
ALTER TABLE agentrisk_seen_hours ADD COLUMN chunk BIGINT NOT NULL DEFAULT 0;
ALTER TABLE agentrisk_seen_hours ALTER COLUMN chunk DROP DEFAULT;
ALTER TABLE agentrisk_seen_hours DROP CONSTRAINT agentrisk_seen_hours_pkey;
ALTER TABLE agentrisk_seen_hours ADD PRIMARY KEY (tenant_id, hour, chunk);
