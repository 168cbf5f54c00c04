package agentrisk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/store"
)

// eventHash is the content hash that makes ingest idempotent: the same event
// (all fields, timestamp to the nanosecond) from JSONL or a JSON array, in any
// file, hashes the same.
func eventHash(ev *Event) []byte {
	var h hasher
	sum := h.sum(ev)
	return sum[:]
}

// legacyEventHash is the hash stores kept before schema 60 (the legacy set).
func legacyEventHash(ev *Event) []byte {
	var h hasher
	h.sum(ev)
	sum := h.legacy()
	return sum[:]
}

type evHash [16]byte

// hasher hashes an event's fields, length-prefixed, into 128 bits: two
// 64-bit xxHash sums with different seeds. It is not a cryptographic hash:
// the sets are per tenant, so a tenant that crafted a collision could only
// make one of its own events look like another of its own. Stores before
// schema 60 kept the first 16 bytes of the SHA-256 of the same bytes
// (legacy). The buffer is reused: hashing allocates nothing.
type hasher struct {
	buf []byte
	d   *xxhash.Digest
}

// seed2 seeds the second half of the hash.
const seed2 = 0x9e3779b97f4a7c15

func (h *hasher) sum(ev *Event) evHash {
	b := h.buf[:0]
	str := func(s string) {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(ev.TenantID)
	str(ev.AgentID)
	b = binary.LittleEndian.AppendUint64(b, uint64(ev.Timestamp.UnixNano()))
	str(ev.AgentName)
	str(ev.SessionID)
	str(ev.Method)
	str(ev.Tool)
	str(ev.Resource)
	str(ev.Decision)
	str(ev.Rule)
	str(ev.RequestID)
	if ev.HighImpact {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	if ev.InjectionScore != nil {
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(*ev.InjectionScore))
	} else {
		b = append(b, 0)
	}
	h.buf = b
	if h.d == nil {
		h.d = xxhash.NewWithSeed(seed2)
	}
	h.d.ResetWithSeed(seed2)
	h.d.Write(b)
	var out evHash
	binary.LittleEndian.PutUint64(out[:8], xxhash.Sum64(b))
	binary.LittleEndian.PutUint64(out[8:], h.d.Sum64())
	return out
}

// legacy is the pre-schema-60 hash of the event last given to sum.
func (h *hasher) legacy() evHash {
	full := sha256.Sum256(h.buf)
	return evHash(full[:16])
}

type agentKey struct{ tenant, agent string }

// AgentRef names one agent.
type AgentRef struct{ TenantID, AgentID string }

// Source is one stream of events for IngestSources, named for messages.
type Source struct {
	Name string
	R    io.Reader
}

// IngestSources parses the sources (JSONL or JSON arrays) and ingests their
// events in one transaction, streaming: only the per-agent aggregates and
// the hash sets of the hours the events fall in are held in memory, not the
// events. With any problem in any source nothing is stored and the located
// diagnostics are returned.
func (e *Engine) IngestSources(ctx context.Context, srcs []Source) (IngestResult, diag.List, error) {
	var res IngestResult
	var diags diag.List
	errBad := errors.New("bad input")
	var done *ingester
	err := e.st.Update(ctx, func(tx store.Tx) error {
		in, err := newIngester(ctx, tx, &e.hours)
		if err != nil {
			return err
		}
		defer in.close()
		done = in
		var failed error
		for _, src := range srcs {
			d := scanEvents(src.Name, src.R, true, func(ev *Event) error {
				if diags.HasErrors() {
					return nil // keep reading to report every problem, store nothing
				}
				err := in.add(ev)
				var fe *FutureEventError
				if err != nil && !errors.As(err, &fe) { // a future event is bad input, located by scanEvents
					failed = err
				}
				return err
			})
			if failed != nil {
				return failed
			}
			diags = append(diags, d...)
		}
		if diags.HasErrors() {
			return errBad
		}
		res, err = in.finish()
		return err
	})
	if errors.Is(err, errBad) {
		diags.Sort()
		return IngestResult{}, diags, nil
	}
	if err != nil {
		return IngestResult{}, nil, err
	}
	e.hours.keep(done.hours, done.now)
	return res, diags, nil
}

func (e *Engine) ingest(ctx context.Context, events []Event) (IngestResult, error) {
	res, _, err := e.ingestEvents(ctx, events, false)
	return res, err
}

// IngestWritten is Ingest that also returns the rows the ingest wrote: the
// aggregate of each agent with new events as this ingest stored it (one row
// per agent, sorted by tenant and agent, the baseline reset time included,
// as Tx.AgentAggregate reads it), so that a caller that scores them at once
// (the live path) need not read them back. A later ingest may have changed
// them since.
func (e *Engine) IngestWritten(ctx context.Context, events []Event) (IngestResult, []Written, error) {
	return e.ingestEvents(ctx, events, true)
}

func (e *Engine) ingestEvents(ctx context.Context, events []Event, keep bool) (IngestResult, []Written, error) {
	for i := range events {
		if events[i].TenantID == "" || events[i].AgentID == "" {
			return IngestResult{}, nil, fmt.Errorf("agentrisk: event %d has no tenant_id or agent_id", i)
		}
		if events[i].Timestamp.IsZero() {
			return IngestResult{}, nil, fmt.Errorf("agentrisk: event %d has no timestamp", i)
		}
	}
	var res IngestResult
	var rows []Written
	var done *ingester
	err := e.st.Update(ctx, func(tx store.Tx) error {
		in, err := newIngester(ctx, tx, &e.hours)
		if err != nil {
			return err
		}
		defer in.close()
		done = in
		in.keep, in.expect = keep, len(events)
		in.aggs, in.cached = &e.aggs, map[agentKey]*cachedAgg{}
		in.folder = e.aggs.takeFolder()
		defer e.aggs.putFolder(in.folder)
		for i := range events {
			if err := in.add(&events[i]); err != nil {
				var fe *FutureEventError
				if errors.As(err, &fe) {
					fe.Index = i
					return &diag.Error{Code: diag.ExitInvalid, Err: fe, Diags: diag.List{{Pointer: fmt.Sprintf("/%d%s", i, fe.EventPointer()), Msg: fe.Error()}}}
				}
				return err
			}
		}
		res, err = in.finish()
		rows = in.kept
		return err
	})
	if err != nil {
		return IngestResult{}, nil, err
	}
	e.hours.keep(done.hours, done.now) // committed: its sets are the store's
	e.aggs.keep(done.cached)           // and its aggregates
	return res, rows, nil
}

// Dedup window. Ingest is idempotent for the events of a tenant's last
// DedupHours hours: the hours from the tenant's latest event (at most the
// current hour: a clock far ahead does not push the window) back over the
// 7-day score window plus a margin of a day for late events. The hash sets
// of older hours are deleted, and an event older than the window is not
// stored (IngestResult.Expired): it could no longer be told from a
// duplicate, and no score at or after the tenant's latest event counts it.
const (
	DedupHours       = windowHours + DedupMarginHours
	DedupMarginHours = 24
)

// nowTime is the clock ingest checks timestamps against, and nowHour the
// current Unix hour (variables for tests).
var (
	nowTime = time.Now
	nowHour = func() int64 { return unixHour(nowTime()) }
)

func unixHour(t time.Time) int64 {
	s := t.Unix()
	if s < 0 {
		return (s - 3599) / 3600
	}
	return s / 3600
}

// ingester folds events into the aggregates of their agents inside one
// transaction, in two steps. Each event is checked against the hash set of
// its tenant and hour (loaded once) and, when new, reduced to a compact
// record (agent, hour, tool, session, resource pattern, flags) with its
// strings interned. Then (at the end, or whenever maxRecords records are
// held) the records are grouped by agent and each agent's aggregate is read
// once, merged and written once: one agent's maps at a time stay in the
// CPU's cache, where folding the events in their file order would jump
// between ten thousand agents' maps.
type ingester struct {
	ctx     context.Context
	ins     store.EventIngest
	cache   *hourCache // of the engine: sets of open hours between ingests
	tenants map[string]*tenantIngest
	hours   map[tenantHour]*hourSet
	h       hasher
	legacy  store.LegacyHashes
	hasLeg  bool
	now     int64
	wall    time.Time // the clock when the ingest began (future events)
	res     IngestResult

	agents   []agentState
	tools    dict
	sessions dict
	patterns dict
	patOf    map[[2]string]uint32 // (tool, resource) -> pattern
	recs     [][]record           // chunks of recordChunk
	folder   *folder
	held     int

	keep bool      // keep the rows written (IngestWritten)
	kept []Written // those rows, in (tenant, agent) order once finished

	aggs   *aggCache               // of the engine (nil: decode every stored aggregate)
	cached map[agentKey]*cachedAgg // the aggregates this ingest wrote, for aggs once committed

	pool       tablePool // of hash tables not in use
	lastTenant *tenantIngest
	order      []*tenantIngest // the tenants in order of first event
	batch      batchSize       // of the events held
	expect     int             // the number of events, when known (Ingest): buffers are sized for it
}

// maxRecords bounds the records held between folds (24 bytes each), kept
// in chunks so that growing never copies them.
var maxRecords = 1 << 21

const recordChunk = 1 << 15

type record struct {
	agent, sess, pat, tool uint32 // sess, pat noPattern: none
	hour                   int32
	q                      uint16
	flags                  uint8
}

const (
	recHighImpact = 1 << iota
	recDeny
	recInj
	noPattern = ^uint32(0)
)

type agentState struct {
	t           *tenantIngest
	key         agentKey
	name        string    // of the latest event with a name
	namedAt     time.Time // that event's time
	first, last time.Time
	sess        uint32 // its last session
	sessName    string // and its id
	written     bool   // its aggregate was written by an earlier fold
	kept        int    // its row in ingester.kept, -1 for none
}

// dict interns strings as small integers.
type dict struct {
	idx   map[string]uint32
	names []string
}

func (d *dict) id(s string) uint32 {
	if i, ok := d.idx[s]; ok {
		return i
	}
	if d.idx == nil {
		d.idx = map[string]uint32{}
	}
	s = strings.Clone(s)
	i := uint32(len(d.names))
	d.names = append(d.names, s)
	d.idx[s] = i
	return i
}

type tenantHour struct {
	tenant string
	hour   int64
}

type tenantIngest struct {
	id      string
	agents  map[string]uint32 // index in ingester.agents
	horizon int64             // events of earlier hours are expired
	latest  int64             // latest hour with a hash set (before and during this ingest)
	has     bool
	skew    time.Duration // its maxClockSkewSeconds, read on its first event after wall
	hasSkew bool
	lastSet *hourSet // its hour set used last: a new one starts at its size
	setHour int64    // and that set's hour
	held    heldEvents

	// What the store held before this ingest: hash sets up to setsUpTo
	// (when hasSets), agents (when hasAgents). Ingest does not ask for the
	// sets of later hours nor, in a tenant without agents, for agents it
	// did not write.
	setsUpTo           int64
	hasSets, hasAgents bool
}

// hourSet is the hash set of a tenant's hour. While the tenant's events
// are in another hour it waits packed (its hashes one after another, as
// stored), and its table goes back to the pool for the next hour's: events
// mostly come in time order, so a million events need a few dozen tables
// rather than one per tenant and hour.
//
// The store keeps an hour's hashes in numbered chunks (store.EventIngest):
// an ingest adds the hashes it stored as the next chunk of the hour, so
// that a request into the current hour writes its own hashes only. An hour
// is rewritten as one chunk (compacted) when it would have more than
// maxChunks chunks, and when an ingest writes to an hour before the
// previous one (a closed hour: late events).
type hourSet struct {
	seen     hashTable // the stored hashes and the new ones, unless packed
	packed   []byte
	isPacked bool
	dirty    bool   // new ones were added
	last     int64  // the highest chunk number stored (-1: none)
	chunks   int    // the number of chunks stored (an estimate once others compacted)
	added    []byte // the new hashes, when they go into a chunk of their own
}

// maxChunks bounds the chunks of an hour: at 20 requests a second, the
// current hour is compacted about every 13 s, each request's share of the
// rewrite 1/256 of the hour's set; an ingest without the set cached reads
// at most 256 rows for it.
var maxChunks = 256

func (s *hourSet) size() int {
	if s.isPacked {
		return len(s.packed) / 16
	}
	return s.seen.n
}

// load fills the set with the stored hashes b, sized for n.
func (s *hourSet) load(b []byte, n int, pool *tablePool) {
	s.seen = hashTable{pool: pool}
	s.seen.reserve(n)
	for i := 0; i+16 <= len(b); i += 16 {
		s.seen.insert(evHash(b[i : i+16]))
	}
}

func (s *hourSet) pack(pool *tablePool) {
	if s.isPacked {
		return
	}
	s.packed, s.isPacked = s.seen.appendTo(nil), true
	pool.put(s.seen.slots)
	s.seen = hashTable{}
}

func (s *hourSet) unpack(pool *tablePool) {
	b := s.packed
	s.packed, s.isPacked = nil, false
	s.load(b, len(b)/16, pool)
}

// hashes is the set as stored.
func (s *hourSet) hashes() []byte {
	if s.isPacked {
		return s.packed
	}
	return s.seen.appendTo(nil)
}

// tablePool keeps the slots of hash tables not in use, by size.
type tablePool struct{ free map[int][][]evHash }

func (p *tablePool) get(size int) []evHash {
	if l := p.free[size]; len(l) > 0 {
		s := l[len(l)-1]
		p.free[size] = l[:len(l)-1]
		clear(s)
		return s
	}
	return make([]evHash, size)
}

func (p *tablePool) put(s []evHash) {
	if len(s) == 0 {
		return
	}
	if p.free == nil {
		p.free = map[int][][]evHash{}
	}
	p.free[len(s)] = append(p.free[len(s)], s)
}

func newIngester(ctx context.Context, tx store.Tx, cache *hourCache) (*ingester, error) {
	ins, err := tx.EventIngest(ctx)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	in := &ingester{
		ctx: ctx, ins: ins, now: nowHour(), wall: nowTime(), cache: cache,
		tenants: map[string]*tenantIngest{}, hours: map[tenantHour]*hourSet{},
		patOf: map[[2]string]uint32{}, folder: &folder{},
	}
	if in.legacy, in.hasLeg, err = ins.LegacyHashes(ctx); err != nil {
		ins.Close()
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	return in, nil
}

func (in *ingester) close() {
	in.ins.Close()
	if in.expect > 0 && len(in.order) > 0 {
		releaseHeld(in.order[0].held)
	}
}

// heldFree keeps the buffers of the first tenant's events held by a
// request (Ingest), about 80 KB for 500 events, from request to request
// (a few, for requests that run at the same time). They are free once the
// ingest is done: what outlives it of an event's strings was copied (dict,
// agent names).
var heldFree struct {
	sync.Mutex
	bufs []heldEvents
}

const maxHeldFree = 4

// requestHeld returns empty buffers for n events and arena bytes of strings.
func requestHeld(n, arena int) heldEvents {
	heldFree.Lock()
	defer heldFree.Unlock()
	for i := len(heldFree.bufs) - 1; i >= 0; i-- {
		if b := heldFree.bufs[i]; cap(b.evs) >= n && cap(b.arena) >= arena {
			heldFree.bufs = slices.Delete(heldFree.bufs, i, i+1)
			return b
		}
	}
	return heldEvents{evs: make([]pending, 0, n), arena: make([]byte, 0, arena)}
}

func releaseHeld(b heldEvents) {
	heldFree.Lock()
	defer heldFree.Unlock()
	if len(heldFree.bufs) < maxHeldFree {
		heldFree.bufs = append(heldFree.bufs, heldEvents{evs: b.evs[:0], arena: b.arena[:0]})
	}
}

func (in *ingester) tenant(id string) (*tenantIngest, error) {
	if t := in.lastTenant; t != nil && t.id == id {
		return t, nil
	}
	if t := in.tenants[id]; t != nil {
		in.lastTenant = t
		return t, nil
	}
	id = strings.Clone(id)
	t := &tenantIngest{id: id, horizon: math.MinInt64, agents: map[string]uint32{}}
	latest, ok, err := in.ins.LatestHashHour(in.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	if ok {
		t.latest, t.has = latest, true
		t.horizon = min(latest, in.now) - DedupHours + 1
	}
	t.setsUpTo, t.hasSets = latest, ok
	// A tenant with hash sets has agents (reading them is always right);
	// only one without needs asking, a new one in particular.
	t.hasAgents = ok
	if !ok {
		if t.hasAgents, err = in.ins.HasAgents(in.ctx, id); err != nil {
			return nil, fmt.Errorf("agentrisk: ingest: %w", err)
		}
	}
	if in.hasLeg && !in.legacy.Kept {
		// The hashes of the events before the hour sets are gone.
		t.horizon = max(t.horizon, in.legacy.Until+1)
	}
	if len(in.order) == 0 && in.expect > 0 {
		// Most requests are of one tenant: its buffers at their size.
		t.held = requestHeld(min(in.expect, batchEvents), min(in.expect*64, batchArena))
	}
	in.tenants[id] = t
	in.lastTenant = t
	in.order = append(in.order, t)
	return t, nil
}

func (in *ingester) hourSet(t *tenantIngest, hour int64) (*hourSet, error) {
	if t.lastSet != nil && t.setHour == hour {
		return t.lastSet, nil
	}
	hint := 0 // a new set starts at the size of the tenant's last one
	if t.lastSet != nil {
		hint = t.lastSet.size()
		t.lastSet.pack(&in.pool)
	}
	k := tenantHour{t.id, hour}
	s := in.hours[k]
	switch {
	case s == nil:
		var err error
		if s, err = in.loadSet(t, k, hint); err != nil {
			return nil, fmt.Errorf("agentrisk: ingest: %w", err)
		}
		in.hours[k] = s
	case s.isPacked:
		s.unpack(&in.pool)
	}
	t.lastSet, t.setHour = s, hour
	return s, nil
}

// loadSet returns the set of a tenant's hour as stored: the engine's cached
// set brought up to date with the chunks stored since (see hourCache), or
// every chunk read; a new set starts sized for hint hashes.
func (in *ingester) loadSet(t *tenantIngest, k tenantHour, hint int) (*hourSet, error) {
	stored := t.hasSets && k.hour <= t.setsUpTo
	if cacheable(k.hour, in.now) {
		if c := in.cache.take(k); c != nil && stored {
			b, last, n, err := in.ins.HashChunks(in.ctx, t.id, k.hour, c.last)
			if err != nil {
				return nil, err
			}
			if n > 0 { // still there: add what others stored since
				c.seen.pool = &in.pool
				c.seen.reserve(c.seen.n + len(b)/16)
				for i := 0; i+16 <= len(b); i += 16 {
					c.seen.insert(evHash(b[i : i+16]))
				}
				c.last, c.chunks = last, c.chunks+n-1
				return c, nil
			}
		}
	}
	s := &hourSet{last: -1}
	var b []byte
	if stored {
		var n int
		var err error
		if b, s.last, n, err = in.ins.HashChunks(in.ctx, t.id, k.hour, -1); err != nil {
			return nil, err
		}
		if s.chunks = n; n == 0 {
			s.last = -1
		}
	}
	s.load(b, max(len(b)/16, hint), &in.pool)
	return s, nil
}

// add counts one event, drops it when expired, and holds it in the batch
// (see batch), processing the batch when it is full.
func (in *ingester) add(ev *Event) error {
	in.res.Events++
	if ev.Timestamp.After(in.res.Latest) {
		in.res.Latest = ev.Timestamp
	}
	t, err := in.tenant(ev.TenantID)
	if err != nil {
		return err
	}
	if ev.Timestamp.After(in.wall) { // only an event after the clock reads the tenant's skew
		if err := in.notFuture(t, ev); err != nil {
			return err
		}
	}
	hour := unixHour(ev.Timestamp)
	if hour < t.horizon {
		in.res.Expired++
		return nil
	}
	h := in.h.sum(ev)
	if in.hasLeg && in.legacy.Kept && hour <= in.legacy.Until {
		// Checked against the legacy hashes (stores converted from before
		// schema 60) one by one, in order after the events held.
		if err := in.flush(); err != nil {
			return err
		}
		return in.addNow(t, hour, ev, h)
	}
	in.batch.arena += t.held.hold(ev, h)
	if in.batch.n++; in.batch.n >= batchEvents || in.batch.arena >= batchArena {
		return in.flush()
	}
	return nil
}

// addNow drops ev when it is already stored, and otherwise holds its
// record, folding the records held when they reach maxRecords.
func (in *ingester) addNow(t *tenantIngest, hour int64, ev *Event, h evHash) error {
	fresh, err := in.fresh(t, hour, ev, h)
	if err != nil || !fresh {
		return err
	}
	in.res.New++
	r := in.recordOf(in.agent(t, ev), hour, ev)
	if len(in.recs) == 0 || len(in.recs[len(in.recs)-1]) == cap(in.recs[len(in.recs)-1]) {
		size := recordChunk
		if in.expect > 0 {
			size = min(size, in.expect) // a request of 500 events: 12 KB, not 768
		}
		in.recs = append(in.recs, make([]record, 0, size))
	}
	last := &in.recs[len(in.recs)-1]
	*last = append(*last, r)
	if in.held++; in.held >= maxRecords {
		return in.fold()
	}
	return nil
}

// flush processes the events held, tenant by tenant, each tenant's in
// their order, and empties the batch.
func (in *ingester) flush() error {
	if in.batch.n == 0 {
		return nil
	}
	var ev Event
	for _, t := range in.order {
		b := &t.held
		for i := range b.evs {
			p := &b.evs[i]
			b.event(t, p, &ev)
			if err := in.addNow(t, unixHour(p.ts), &ev, p.hash); err != nil {
				return err
			}
		}
		b.evs, b.arena = b.evs[:0], b.arena[:0]
	}
	in.batch = batchSize{}
	return nil
}

// fresh reports whether ev is new: not in its hour's set of hashes (which
// it is then added to) nor, for hours the legacy hashes still cover, among
// those. A duplicate is counted.
func (in *ingester) fresh(t *tenantIngest, hour int64, ev *Event, h evHash) (bool, error) {
	hs, err := in.hourSet(t, hour)
	if err != nil {
		return false, err
	}
	if !hs.seen.insert(h) {
		in.res.Duplicates++
		return false, nil
	}
	if in.hasLeg && in.legacy.Kept && hour <= in.legacy.Until {
		lh := in.h.legacy()
		old, err := in.ins.LegacySeen(in.ctx, lh[:])
		if err != nil {
			return false, fmt.Errorf("agentrisk: ingest: %w", err)
		}
		if old {
			in.res.Duplicates++
			return false, nil
		}
	}
	hs.dirty = true
	if hs.last >= 0 && hour >= in.now-1 {
		hs.added = append(hs.added, h[:]...) // see writeSet
	}
	return true, nil
}

// agent returns the index of ev's agent, adding it on its first event, and
// updates the agent's first and last times and its latest name.
func (in *ingester) agent(t *tenantIngest, ev *Event) uint32 {
	ai, ok := t.agents[ev.AgentID]
	if !ok {
		ai = uint32(len(in.agents))
		k := agentKey{t.id, strings.Clone(ev.AgentID)}
		t.agents[k.agent] = ai
		in.agents = append(in.agents, agentState{t: t, key: k, sess: noPattern, kept: -1})
	}
	a := &in.agents[ai]
	if a.first.IsZero() || ev.Timestamp.Before(a.first) {
		a.first = ev.Timestamp
	}
	if ev.Timestamp.After(a.last) {
		a.last = ev.Timestamp
	}
	if ev.AgentName != "" && (a.name == "" || !ev.Timestamp.Before(a.namedAt)) {
		a.namedAt = ev.Timestamp
		if ev.AgentName != a.name {
			a.name = strings.Clone(ev.AgentName)
		}
	}
	return ai
}

// recordOf is the compact record of ev for agent ai: session, tool and
// resource pattern as dictionary ids, flags and injection score.
func (in *ingester) recordOf(ai uint32, hour int64, ev *Event) record {
	a := &in.agents[ai]
	r := record{agent: ai, hour: int32(hour), tool: in.tools.id(ev.Tool), pat: noPattern}
	// Events of one session tend to come together: the agent's last
	// session spares most lookups in the dictionary of sessions.
	switch {
	case ev.SessionID == "":
		r.sess = noPattern
	case a.sess != noPattern && ev.SessionID == a.sessName:
		r.sess = a.sess
	default:
		r.sess = in.sessions.id(ev.SessionID)
		a.sess, a.sessName = r.sess, in.sessions.names[r.sess]
	}
	if ev.Tool != "" && ev.Resource != "" {
		pk := [2]string{ev.Tool, ev.Resource}
		p, ok := in.patOf[pk]
		if !ok {
			p = in.patterns.id(resourcePattern(ev.Tool, ev.Resource))
			in.patOf[[2]string{strings.Clone(ev.Tool), strings.Clone(ev.Resource)}] = p
		}
		r.pat = p
	}
	if ev.HighImpact {
		r.flags |= recHighImpact
	}
	if ev.Decision == "deny" {
		r.flags |= recDeny
	}
	if s := ev.InjectionScore; s != nil && *s > 0 {
		r.q, r.flags = uint16(*s*1000+0.5), r.flags|recInj
	}
	return r
}

// fold merges the records held into their agents' aggregates, agent by
// agent in (tenant, agent) order, and writes them.
func (in *ingester) fold() error {
	if in.held == 0 {
		return nil
	}
	// Counting sort of the records by agent, keeping their order.
	start := make([]int, len(in.agents)+1)
	for _, c := range in.recs {
		for _, r := range c {
			start[r.agent+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	sorted := make([]record, in.held)
	next := append([]int(nil), start[:len(in.agents)]...)
	for _, c := range in.recs {
		for _, r := range c {
			sorted[next[r.agent]] = r
			next[r.agent]++
		}
	}
	in.recs, in.held = nil, 0
	order := make([]uint32, 0, len(in.agents))
	for i := range in.agents {
		if start[i+1] > start[i] {
			order = append(order, uint32(i))
		}
	}
	sort.Slice(order, func(i, j int) bool {
		ki, kj := in.agents[order[i]].key, in.agents[order[j]].key
		if ki.tenant != kj.tenant {
			return ki.tenant < kj.tenant
		}
		return ki.agent < kj.agent
	})
	for _, ai := range order {
		if err := in.foldAgent(ai, sorted[start[ai]:start[ai+1]]); err != nil {
			return err
		}
	}
	return nil
}

func (in *ingester) foldAgent(ai uint32, recs []record) error {
	st := &in.agents[ai]
	k := st.key
	var row store.AgentRow
	var ok bool
	var hit *agg
	var buf []byte
	if st.t.hasAgents || st.written {
		var err error
		if row, ok, hit, buf, err = in.readAgent(k); err != nil {
			return fmt.Errorf("agentrisk: ingest: %w", err)
		}
	}
	// The agent's name is that of its latest event with a name (the stored
	// one counts as of the stored last event; a tie goes to this ingest).
	name, first, last := st.name, st.first, st.last
	a, buf, err := in.aggOf(k, &row, ok, hit, buf)
	if err != nil {
		return err
	}
	if ok {
		f, l := parseTime(row.FirstEventAt), parseTime(row.LastEventAt)
		if f.Before(first) {
			first = f
		}
		if row.AgentName != "" && (name == "" || l.After(st.namedAt)) {
			name = row.AgentName
		}
		if l.After(last) {
			last = l
		}
	}
	in.folder.fold(a, recs, &recordNames{in.tools.names, in.sessions.names, in.patterns.names})
	if !st.written {
		st.written = true
		in.res.Touched = append(in.res.Touched, AgentRef{k.tenant, k.agent})
	}
	put := store.AgentRow{
		TenantID: k.tenant, AgentID: k.agent, AgentName: name, Agg: a.encodeTo(buf),
		FirstEventAt: store.FormatTime(first), LastEventAt: store.FormatTime(last),
	}
	if err := in.ins.PutAgent(in.ctx, put); err != nil {
		return fmt.Errorf("agentrisk: ingest: %w", err)
	}
	w := Written{AgentRow: put}
	if in.aggs != nil {
		if a.sessIdx == nil {
			a.indexSessions() // as decoding with maps builds it
		}
		ent := &cachedAgg{blob: put.Agg, a: a}
		in.cached[k] = ent
		if in.keep {
			ent.lent.Store(true)
			w.ent = ent
		}
	}
	if in.keep {
		w.BaselineResetAt = row.BaselineResetAt // PutAgent keeps the stored one
		if st.kept < 0 {
			st.kept = len(in.kept)
			in.kept = append(in.kept, w)
		} else {
			in.kept[st.kept] = w
		}
	}
	return nil
}

// aggOf is the aggregate to merge an agent's records into: a new one when
// the agent has no stored row (ok false), else the stored one, taken from
// this ingest's or the engine's cache when the stored bytes are the cached
// encoding (aggCache), decoded otherwise. It also returns a buffer free for
// the merged encoding (nil: none): that of an entry of the engine's cache,
// which no one else holds (the live path released it; the store got it in a
// transaction that committed).
func (in *ingester) aggOf(k agentKey, row *store.AgentRow, ok bool, hit *agg, buf []byte) (*agg, []byte, error) {
	if hit != nil {
		return hit, buf, nil // validated by the store (readAgent)
	}
	if in.aggs == nil {
		if !ok {
			return in.folder.newAgg(), nil, nil
		}
		a, err := decodeAggAliased(row.Agg)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (tenant %s, agent %s)", err, k.tenant, k.agent)
		}
		return a, nil, nil
	}
	if !ok {
		return newAgg(), nil, nil
	}
	if c := in.cached[k]; c != nil && bytes.Equal(c.blob, row.Agg) {
		return c.a, nil, nil // its encoding may still be in the store's hands
	}
	if c := in.aggs.take(k, row.Agg); c != nil {
		return c.a, c.blob[:0], nil
	}
	a, err := decodeAgg(row.Agg, true) // its own strings: it is kept
	if err != nil {
		return nil, nil, fmt.Errorf("%w (tenant %s, agent %s)", err, k.tenant, k.agent)
	}
	return a, nil, nil
}

// agentChecker is a store's ingest that compares an agent's stored
// aggregate with an encoding the caller holds without copying it out
// (SQLite's; on PostgreSQL the rows are read ahead in windows anyway).
type agentChecker interface {
	AgentIfChanged(ctx context.Context, tenantID, agentID string, known []byte) (store.AgentRow, bool, bool, error)
}

// readAgent reads k's stored row. With the engine's cache and a store that
// compares in place, an aggregate cached (by this ingest or the engine)
// whose encoding is the stored one comes back at once as hit, the row
// without its aggregate, with the entry's buffer when it is free (see
// aggOf); otherwise the row is read whole, as Agent reads it.
func (in *ingester) readAgent(k agentKey) (row store.AgentRow, ok bool, hit *agg, buf []byte, err error) {
	chk, can := in.ins.(agentChecker)
	if in.aggs != nil && can {
		mine := in.cached[k]
		c := mine
		if c == nil {
			c = in.aggs.peek(k)
		}
		if c != nil {
			var same bool
			row, same, ok, err = chk.AgentIfChanged(in.ctx, k.tenant, k.agent, c.blob)
			switch {
			case err != nil || !same:
				return row, ok, nil, nil, err // the row with its aggregate, or none
			case mine != nil:
				return row, true, c.a, nil, nil // its encoding may still be in the store's hands
			case in.aggs.takeIf(k, c):
				return row, true, c.a, c.blob[:0], nil
			}
			// Taken by another ingest meanwhile: read the row whole.
		}
	}
	row, ok, err = in.ins.Agent(in.ctx, k.tenant, k.agent)
	return row, ok, nil, nil, err
}

func (in *ingester) finish() (IngestResult, error) {
	if err := in.flush(); err != nil {
		return in.res, err
	}
	if err := in.fold(); err != nil {
		return in.res, err
	}
	sort.Slice(in.res.Touched, func(i, j int) bool {
		a, b := in.res.Touched[i], in.res.Touched[j]
		if a.TenantID != b.TenantID {
			return a.TenantID < b.TenantID
		}
		return a.AgentID < b.AgentID
	})
	in.res.Agents = len(in.res.Touched)
	sort.Slice(in.kept, func(i, j int) bool {
		a, b := in.kept[i], in.kept[j]
		if a.TenantID != b.TenantID {
			return a.TenantID < b.TenantID
		}
		return a.AgentID < b.AgentID
	})
	if err := in.writeHashSets(); err != nil {
		return in.res, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	return in.res, nil
}

// writeHashSets stores the hour sets that gained hashes and prunes the hours
// that left the window of their tenant; once every event the legacy set
// covers is out of the window, it is dropped.
func (in *ingester) writeHashSets() error {
	latest := map[string]int64{}
	for k, s := range in.hours {
		if !s.dirty {
			continue
		}
		t := in.tenants[k.tenant]
		if !t.has || k.hour > t.latest {
			t.latest, t.has = k.hour, true
		}
	}
	keys := make([]tenantHour, 0, len(in.hours))
	for k, s := range in.hours {
		if s.dirty {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].tenant != keys[j].tenant {
			return keys[i].tenant < keys[j].tenant
		}
		return keys[i].hour < keys[j].hour
	})
	for id, t := range in.tenants {
		if t.has {
			latest[id] = min(t.latest, in.now)
		}
	}
	for _, k := range keys {
		if k.hour < latest[k.tenant]-DedupHours+1 {
			continue // pruned below anyway
		}
		if err := in.writeSet(k, in.hours[k]); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(latest))
	for id := range latest {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	newest := int64(math.MinInt64)
	for _, id := range ids {
		if err := in.ins.PruneHashSets(in.ctx, id, latest[id]-DedupHours+1); err != nil {
			return err
		}
		newest = max(newest, latest[id])
	}
	if in.hasLeg && in.legacy.Kept && newest-DedupHours+1 > in.legacy.Until {
		return in.ins.DropLegacyHashes(in.ctx)
	}
	return nil
}

// writeSet stores the hashes the set of k gained: as the next chunk of its
// hour, or as the hour's one chunk when it has none yet, would have more
// than maxChunks, or is closed (before the previous hour).
func (in *ingester) writeSet(k tenantHour, s *hourSet) error {
	next := s.last + 1
	var err error
	switch {
	case s.last < 0:
		err = in.ins.AddHashChunk(in.ctx, k.tenant, k.hour, 0, s.hashes())
		s.chunks = 1
	case s.chunks+1 > maxChunks || k.hour < in.now-1:
		err = in.ins.PutHashSet(in.ctx, k.tenant, k.hour, next, s.hashes())
		s.chunks = 1
	default:
		err = in.ins.AddHashChunk(in.ctx, k.tenant, k.hour, next, s.added)
		s.chunks++
	}
	s.last, s.dirty, s.added = next, false, nil
	return err
}

// hashTable is a set of event hashes: open addressing on the hash's own
// (uniformly random) bits, no per-entry allocation.
type hashTable struct {
	slots []evHash
	n     int
	zero  bool       // the all-zero hash, which marks empty slots
	pool  *tablePool // where slots come from and go back to (nil: none)
}

// insert adds h and tells whether it was absent.
func (t *hashTable) insert(h evHash) bool {
	if h == (evHash{}) {
		was := t.zero
		t.zero = true
		return !was
	}
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := binary.LittleEndian.Uint64(h[:8]) & mask; ; i = (i + 1) & mask {
		switch t.slots[i] {
		case h:
			return false
		case evHash{}:
			t.slots[i] = h
			t.n++
			return true
		}
	}
}

func (t *hashTable) grow() { t.reserve(max(12, 2*t.n)) }

// reserve sizes the table for n hashes.
func (t *hashTable) reserve(n int) {
	size := 16
	for size*3 < n*4+4 {
		size *= 2
	}
	if size <= len(t.slots) {
		return
	}
	old := t.slots
	if t.pool != nil {
		t.slots = t.pool.get(size)
	} else {
		t.slots = make([]evHash, size)
	}
	t.n = 0
	for _, h := range old {
		if h != (evHash{}) {
			t.insert(h)
		}
	}
	if t.pool != nil {
		t.pool.put(old)
	}
}

// appendTo appends the hashes to b.
func (t *hashTable) appendTo(b []byte) []byte {
	b = slices.Grow(b, 16*(t.n+1))
	if t.zero {
		b = append(b, make([]byte, 16)...)
	}
	for i := range t.slots {
		if t.slots[i] != (evHash{}) {
			b = append(b, t.slots[i][:]...)
		}
	}
	return b
}

// Events are held in a batch between the scan and their processing, so
// that they can be processed tenant by tenant: the hash set of a tenant's
// hour and the state of its agents stay in the CPU's cache while its events
// go through, where the events in file order jump between every tenant's
// sets and every agent. Each tenant holds its own events (what processing
// needs of them: hash, time, flags, and the strings of the record in an
// arena), which are then read in the order they were written.
type batchSize struct{ n, arena int }

type heldEvents struct {
	evs   []pending
	arena []byte
}

// A batch is processed once it holds batchEvents events or batchArena
// bytes of strings.
const (
	batchEvents = 1 << 16
	batchArena  = 16 << 20
)

type pending struct {
	hash                         evHash
	ts                           time.Time
	agent, name, sess, tool, res strRef
	highImpact, deny             bool
	score                        float64
	hasScore                     bool
}

type strRef struct{ off, n uint32 }

// hold adds ev to the events held and returns the bytes its strings took.
func (b *heldEvents) hold(ev *Event, h evHash) int {
	n := len(b.arena)
	p := pending{
		hash: h, ts: ev.Timestamp,
		agent: b.str(ev.AgentID), name: b.str(ev.AgentName), sess: b.str(ev.SessionID),
		tool: b.str(ev.Tool), res: b.str(ev.Resource),
		highImpact: ev.HighImpact, deny: ev.Decision == "deny",
	}
	if ev.InjectionScore != nil {
		p.score, p.hasScore = *ev.InjectionScore, true
	}
	b.evs = append(b.evs, p)
	return len(b.arena) - n
}

func (b *heldEvents) str(s string) strRef {
	r := strRef{uint32(len(b.arena)), uint32(len(s))}
	b.arena = append(b.arena, s...)
	return r
}

// event fills ev with what the record and the agent's state need of p; its
// strings alias the arena.
func (b *heldEvents) event(t *tenantIngest, p *pending, ev *Event) {
	*ev = Event{
		Timestamp: p.ts, TenantID: t.id, AgentID: b.view(p.agent), AgentName: b.view(p.name),
		SessionID: b.view(p.sess), Tool: b.view(p.tool), Resource: b.view(p.res), HighImpact: p.highImpact,
	}
	if p.deny {
		ev.Decision = "deny"
	}
	if p.hasScore {
		ev.InjectionScore = &p.score
	}
}

func (b *heldEvents) view(r strRef) string {
	if r.n == 0 {
		return ""
	}
	return unsafe.String(&b.arena[r.off], int(r.n))
}

// FutureEventError is an event dated further into the future than its
// tenant's maxClockSkewSeconds allow: stored, it would move the tenant's
// dedup window and the window of its scores ahead of the real events, which
// would then be dropped as too old. Ingest refuses it (and stores nothing).
type FutureEventError struct {
	Timestamp time.Time     // the event's
	Now       time.Time     // the clock it was checked against
	Skew      time.Duration // the tenant's maxClockSkewSeconds
	TenantID  string
	Index     int // of the event in the events given to Ingest (-1: read from a source)
}

func (e *FutureEventError) Error() string {
	return fmt.Sprintf("timestamp %s is %s ahead of this machine's clock (%s): tenant %s accepts events at most %s in the future (maxClockSkewSeconds %d in its risk config); check the sender's clock",
		e.Timestamp.Format(time.RFC3339Nano), aheadBy(e.Timestamp.Sub(e.Now)), e.Now.UTC().Format(time.RFC3339), e.TenantID,
		aheadBy(e.Skew), int64(e.Skew/time.Second))
}

// EventPointer is where the problem lies within the event.
func (e *FutureEventError) EventPointer() string { return "/timestamp" }

// aheadBy writes a duration for people: 4m10s, 3h0m0s, 412 days.
func aheadBy(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int64(d/(24*time.Hour)))
	}
	return d.Truncate(time.Second).String()
}

// notFuture refuses ev, dated after the clock, when it lies beyond its
// tenant's allowed clock skew (read once per tenant and ingest, in the
// ingest's transaction).
func (in *ingester) notFuture(t *tenantIngest, ev *Event) error {
	if !t.hasSkew {
		body, ok, err := in.ins.RiskConfig(in.ctx, t.id)
		if err != nil {
			return fmt.Errorf("agentrisk: ingest: %w", err)
		}
		cfg, err := storedRiskConfig(t.id, body, ok)
		if err != nil {
			return err
		}
		t.skew, t.hasSkew = time.Duration(cfg.MaxClockSkewSeconds)*time.Second, true
	}
	if ev.Timestamp.Sub(in.wall) > t.skew {
		return &FutureEventError{Timestamp: ev.Timestamp, Now: in.wall, Skew: t.skew, TenantID: t.id, Index: -1}
	}
	return nil
}
