package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

// EventIngest folds events into agents inside a Tx: it loads and writes the
// per-(tenant, hour) hash sets that make ingest idempotent and the agents'
// aggregates. Writes are buffered (reads see them) and sent in one pipelined
// batch before the transaction commits, so an ingest of a million events
// costs one round trip per agent and hour read, not per write.
//
// Reads go ahead: ingest asks for agents in (tenant, agent) order and for a
// tenant's hour sets hour after hour, so a miss reads the next rows in key
// order too, as many as the last read-ahead served (doubling up to a cap,
// back to a few when the access jumps). A million events then cost a few
// hundred queries instead of one per agent and tenant-hour.
type EventIngest struct {
	t            *Tx
	agents       map[[2]string]backend.AgentRow // written aggregates, by tenant and agent
	agentTenants map[string]bool                // the tenants of those
	sets         map[hourKey]bool               // hours with chunk writes buffered
	order        []any                          // keys of agents and chunk writes, in write order

	aheadAgents agentWindow
	aheadSets   map[string]*setWindow // by tenant
}

// agentWindow holds the stored agents of one tenant with ids in [lo, hi]
// (hi "" with all: every id from lo on).
type agentWindow struct {
	tenant, lo, hi string
	all            bool
	rows           map[string]backend.AgentRow
	size, used     int
}

func (w *agentWindow) covers(tenant, agent string) bool {
	return w.rows != nil && tenant == w.tenant && agent >= w.lo && (w.all || agent <= w.hi)
}

// setWindow holds the stored hash sets of one tenant for hours [lo, hi).
type setWindow struct {
	lo, hi     int64
	sets       map[int64]storedSet
	size, used int64
}

// storedSet is an hour's chunks read: their hashes, highest number and count.
type storedSet struct {
	hashes []byte
	last   int64
	n      int
}

// chunkWrite is a buffered chunk write; replace: the hour's other chunks go.
type chunkWrite struct {
	key     hourKey
	chunk   int64
	replace bool
	hashes  []byte
}

const (
	minAhead      = 4
	maxAgentAhead = 1024 // about 1 MB of aggregates
	maxSetAhead   = 32   // hours
)

// nextSize is the read-ahead after a window of size that served used.
func nextSize[T int | int64](size, used, limit T) T {
	if used*2 >= size {
		return min(size*2, limit)
	}
	return max(T(minAhead), size/2)
}

type hourKey struct {
	tenant string
	hour   int64
}

// ingestLock is the advisory lock ingests take: an ingest reads hash sets
// and agents' aggregates, merges events into them and writes them back, so
// two ingests of one tenant at once would lose one's events. Ingests from
// all processes take turns, as SQLite's single writer makes them.
const ingestLock = 0x6c66_696e_6773 // "lfings"

// EventIngest returns the ingest of the transaction (holding the ingest
// lock until it ends); Close it.
func (t *Tx) EventIngest(ctx context.Context) (backend.EventIngest, error) {
	if _, err := t.tx.Exec(ctx, xactLockSQL, int64(ingestLock)); err != nil {
		return nil, t.st.errf("ingest", err)
	}
	in := &EventIngest{t: t, agents: map[[2]string]backend.AgentRow{}, sets: map[hourKey]bool{}, aheadSets: map[string]*setWindow{}}
	t.beforeCommit = append(t.beforeCommit, in.flush)
	return in, nil
}

// flush sends the buffered writes in one batch.
func (in *EventIngest) flush(ctx context.Context) error {
	if len(in.order) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, k := range in.order {
		switch k := k.(type) {
		case [2]string:
			r := in.agents[k]
			b.Queue(sqlstore.PutAgent.Postgres(), r.TenantID, r.AgentID, r.AgentName, r.Agg, r.FirstEventAt, r.LastEventAt)
		case *chunkWrite:
			if k.replace {
				b.Queue(sqlstore.DropHashChunks.Postgres(), k.key.tenant, k.key.hour)
			}
			b.Queue(sqlstore.AddHashChunk.Postgres(), k.key.tenant, k.key.hour, k.chunk, k.hashes)
		}
	}
	in.order = in.order[:0]
	clear(in.agents)
	clear(in.sets)
	// What was read ahead is older than what this batch writes.
	in.aheadAgents = agentWindow{}
	clear(in.aheadSets)
	if err := in.t.tx.SendBatch(ctx, b).Close(); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return nil
}

// HashChunks returns the hashes of the chunks of a tenant's hour numbered
// above after, in chunk order, the hour's highest chunk number and how many
// chunks are numbered after or above. All of an hour's chunks (after -1)
// are read ahead with the next hours'.
func (in *EventIngest) HashChunks(ctx context.Context, tenantID string, hour, after int64) ([]byte, int64, int, error) {
	if in.sets[hourKey{tenantID, hour}] {
		if err := in.flush(ctx); err != nil {
			return nil, 0, 0, err
		}
	}
	if after >= 0 {
		s, err := in.readChunks(ctx, tenantID, hour, after)
		return s.hashes, s.last, s.n, err
	}
	w := in.aheadSets[tenantID]
	if w == nil || hour < w.lo || hour >= w.hi {
		size := int64(minAhead)
		if w != nil {
			size = nextSize(w.size, w.used, maxSetAhead)
		}
		w = &setWindow{lo: hour, hi: hour + size, size: size}
		var err error
		if w.sets, err = in.readHours(ctx, tenantID, w.lo, w.hi); err != nil {
			return nil, 0, 0, err
		}
		in.aheadSets[tenantID] = w
	}
	w.used++
	s := w.sets[hour]
	return s.hashes, s.last, s.n, nil
}

// readChunks reads the chunks of one hour numbered after or above (the
// hashes of those above after).
func (in *EventIngest) readChunks(ctx context.Context, tenantID string, hour, after int64) (storedSet, error) {
	rows, err := in.t.tx.Query(ctx, sqlstore.HashChunksFrom.Postgres(), after, tenantID, hour)
	if err != nil {
		return storedSet{}, in.t.st.errf("ingest", err)
	}
	defer rows.Close()
	var s storedSet
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&s.last, &b); err != nil {
			return storedSet{}, in.t.st.errf("ingest", err)
		}
		s.hashes = append(s.hashes, b...)
		s.n++
	}
	if err := rows.Err(); err != nil {
		return storedSet{}, in.t.st.errf("ingest", err)
	}
	return s, nil
}

// readHours reads every chunk of a tenant's hours [lo, hi).
func (in *EventIngest) readHours(ctx context.Context, tenantID string, lo, hi int64) (map[int64]storedSet, error) {
	rows, err := in.t.tx.Query(ctx, `SELECT hour, chunk, hashes FROM agentrisk_seen_hours
		WHERE tenant_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour, chunk`, tenantID, lo, hi)
	if err != nil {
		return nil, in.t.st.errf("ingest", err)
	}
	defer rows.Close()
	sets := map[int64]storedSet{}
	for rows.Next() {
		var h, c int64
		var b []byte
		if err := rows.Scan(&h, &c, &b); err != nil {
			return nil, in.t.st.errf("ingest", err)
		}
		s := sets[h]
		if s.hashes == nil {
			s.hashes = b
		} else {
			s.hashes = append(s.hashes, b...)
		}
		s.last = c
		s.n++
		sets[h] = s
	}
	if err := rows.Err(); err != nil {
		return nil, in.t.st.errf("ingest", err)
	}
	return sets, nil
}

// AddHashChunk stores hashes as chunk number chunk of a tenant's hour.
func (in *EventIngest) AddHashChunk(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error {
	in.queueChunk(&chunkWrite{key: hourKey{tenantID, hour}, chunk: chunk, hashes: hashes})
	return nil
}

// PutHashSet replaces every chunk of a tenant's hour by one, numbered chunk.
func (in *EventIngest) PutHashSet(ctx context.Context, tenantID string, hour, chunk int64, hashes []byte) error {
	in.queueChunk(&chunkWrite{key: hourKey{tenantID, hour}, chunk: chunk, replace: true, hashes: hashes})
	return nil
}

func (in *EventIngest) queueChunk(w *chunkWrite) {
	in.sets[w.key] = true
	in.order = append(in.order, w)
}

// LatestHashHour returns the latest hour with a hash set of the tenant.
func (in *EventIngest) LatestHashHour(ctx context.Context, tenantID string) (int64, bool, error) {
	if err := in.flush(ctx); err != nil {
		return 0, false, err
	}
	var h *int64
	if err := in.t.tx.QueryRow(ctx, sqlstore.LatestHashHour.Postgres(), tenantID).Scan(&h); err != nil {
		return 0, false, in.t.st.errf("ingest", err)
	}
	if h == nil {
		return 0, false, nil
	}
	return *h, true, nil
}

// PruneHashSets deletes the tenant's hash sets of the hours before hour.
func (in *EventIngest) PruneHashSets(ctx context.Context, tenantID string, before int64) error {
	if err := in.flush(ctx); err != nil {
		return err
	}
	delete(in.aheadSets, tenantID)
	if _, err := in.t.tx.Exec(ctx, sqlstore.PruneHashSets.Postgres(), tenantID, before); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return nil
}

// LegacyHashes describes the hashes of a store from before schema 60.
func (in *EventIngest) LegacyHashes(ctx context.Context) (backend.LegacyHashes, bool, error) {
	var l backend.LegacyHashes
	err := in.t.tx.QueryRow(ctx, sqlstore.LegacyHashes.Postgres()).Scan(&l.Until, &l.Kept)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return l, false, nil
	case err != nil:
		return l, false, in.t.st.errf("ingest", err)
	}
	return l, true, nil
}

// LegacySeen tells whether the legacy set holds a hash.
func (in *EventIngest) LegacySeen(ctx context.Context, hash []byte) (bool, error) {
	var seen bool
	if err := in.t.tx.QueryRow(ctx, sqlstore.LegacySeen.Postgres(), hash).Scan(&seen); err != nil {
		return false, in.t.st.errf("ingest", err)
	}
	return seen, nil
}

// DropLegacyHashes deletes the legacy hashes, keeping their until hour.
func (in *EventIngest) DropLegacyHashes(ctx context.Context) error {
	if _, err := in.t.tx.Exec(ctx, sqlstore.DropLegacyHashes.Postgres()); err != nil {
		return in.t.st.errf("ingest", err)
	}
	if _, err := in.t.tx.Exec(ctx, sqlstore.LegacyNotKept.Postgres()); err != nil {
		return in.t.st.errf("ingest", err)
	}
	return nil
}

// Agent returns an agent's row; ok is false for a new agent.
func (in *EventIngest) Agent(ctx context.Context, tenantID, agentID string) (backend.AgentRow, bool, error) {
	written, isWritten := in.agents[[2]string{tenantID, agentID}]
	stored, ok, err := in.storedAgent(ctx, tenantID, agentID)
	if err != nil || !isWritten {
		return stored, ok, err
	}
	// Its baseline reset time is the stored one (PutAgent keeps it).
	written.BaselineResetAt = stored.BaselineResetAt
	return written, true, nil
}

// storedAgent reads an agent's stored row through the read-ahead window.
func (in *EventIngest) storedAgent(ctx context.Context, tenantID, agentID string) (backend.AgentRow, bool, error) {
	w := &in.aheadAgents
	if !w.covers(tenantID, agentID) {
		size := minAhead
		if w.rows != nil {
			size = nextSize(w.size, w.used, maxAgentAhead)
		}
		*w = agentWindow{tenant: tenantID, lo: agentID, size: size, rows: map[string]backend.AgentRow{}}
		rows, err := in.t.tx.Query(ctx, `SELECT agent_id, agg, agent_name, first_event_at, last_event_at, baseline_reset_at
			FROM agentrisk_agents WHERE tenant_id = $1 AND agent_id >= $2 ORDER BY agent_id LIMIT $3`, tenantID, agentID, size)
		if err != nil {
			return backend.AgentRow{}, false, in.t.st.errf("ingest", err)
		}
		n := 0
		for rows.Next() {
			r := backend.AgentRow{TenantID: tenantID}
			if err := rows.Scan(&r.AgentID, &r.Agg, &r.AgentName, &r.FirstEventAt, &r.LastEventAt, &r.BaselineResetAt); err != nil {
				rows.Close()
				return backend.AgentRow{}, false, in.t.st.errf("ingest", err)
			}
			w.rows[r.AgentID] = r
			w.hi = r.AgentID
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return backend.AgentRow{}, false, in.t.st.errf("ingest", err)
		}
		w.all = n < size
	}
	w.used++
	r, ok := w.rows[agentID]
	if !ok {
		return backend.AgentRow{TenantID: tenantID, AgentID: agentID}, false, nil
	}
	return r, true, nil
}

// PutAgent writes an agent's aggregate (its baseline reset time is kept).
func (in *EventIngest) PutAgent(ctx context.Context, r backend.AgentRow) error {
	k := [2]string{r.TenantID, r.AgentID}
	if _, ok := in.agents[k]; !ok {
		in.order = append(in.order, k)
	}
	in.agents[k] = r
	if in.agentTenants == nil {
		in.agentTenants = map[string]bool{}
	}
	in.agentTenants[r.TenantID] = true
	return nil
}

// HasAgents tells whether the tenant has an agent stored or written.
func (in *EventIngest) HasAgents(ctx context.Context, tenantID string) (bool, error) {
	if in.agentTenants[tenantID] {
		return true, nil
	}
	var ok bool
	if err := in.t.tx.QueryRow(ctx, sqlstore.HasAgents.Postgres(), tenantID).Scan(&ok); err != nil {
		return false, in.t.st.errf("ingest", err)
	}
	return ok, nil
}

// RiskConfig returns the tenant's stored risk config body; ok is false when none.
func (in *EventIngest) RiskConfig(ctx context.Context, tenantID string) (string, bool, error) {
	return sqlstore.RiskConfigOf(ctx, pgQuerier{in.t.tx}, in.t.st.loc, "ingest", tenantID)
}

// Close does nothing: the writes go with the transaction's commit.
func (in *EventIngest) Close() {}
