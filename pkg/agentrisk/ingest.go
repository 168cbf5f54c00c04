package agentrisk

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/store"
)

// eventHash is the content hash that makes ingest idempotent: the same event
// (all fields, timestamp to the nanosecond) from JSONL or a JSON array, in any
// file, hashes the same. The bytes hashed are those of stores before schema
// 60, so that their hashes (the legacy set) still match.
func eventHash(ev *Event) []byte {
	var h hasher
	sum := h.sum(ev)
	return sum[:]
}

type evHash [16]byte

// hasher reuses its buffer: hashing allocates nothing.
type hasher struct{ buf []byte }

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
	full := sha256.Sum256(b)
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
	err := e.st.Update(ctx, func(tx store.Tx) error {
		in, err := newIngester(ctx, tx)
		if err != nil {
			return err
		}
		defer in.close()
		var failed error
		for _, src := range srcs {
			d := scanEvents(src.Name, src.R, true, func(ev *Event) error {
				if diags.HasErrors() {
					return nil // keep reading to report every problem, store nothing
				}
				if err := in.add(ev); err != nil {
					failed = err
					return err
				}
				return nil
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
	return res, diags, nil
}

func (e *Engine) ingest(ctx context.Context, events []Event) (IngestResult, error) {
	for i := range events {
		if events[i].TenantID == "" || events[i].AgentID == "" {
			return IngestResult{}, fmt.Errorf("agentrisk: event %d has no tenant_id or agent_id", i)
		}
		if events[i].Timestamp.IsZero() {
			return IngestResult{}, fmt.Errorf("agentrisk: event %d has no timestamp", i)
		}
	}
	var res IngestResult
	err := e.st.Update(ctx, func(tx store.Tx) error {
		in, err := newIngester(ctx, tx)
		if err != nil {
			return err
		}
		defer in.close()
		for i := range events {
			if err := in.add(&events[i]); err != nil {
				return err
			}
		}
		res, err = in.finish()
		return err
	})
	if err != nil {
		return IngestResult{}, err
	}
	return res, nil
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

// nowHour is the current Unix hour (a variable for tests).
var nowHour = func() int64 { return unixHour(time.Now()) }

func unixHour(t time.Time) int64 {
	s := t.Unix()
	if s < 0 {
		return (s - 3599) / 3600
	}
	return s / 3600
}

// ingester folds events into the aggregates of their agents inside one
// transaction: each agent's aggregate is read once, merged in memory and
// written once at the end; so is the hash set of each (tenant, hour).
type ingester struct {
	ctx     context.Context
	ins     store.EventIngest
	agents  map[agentKey]*agentFold
	tenants map[string]*tenantIngest
	hours   map[tenantHour]*hourSet
	seen    hashTable // every hash of the loaded hour sets and of this ingest
	h       hasher
	legacy  store.LegacyHashes
	hasLeg  bool
	now     int64
	res     IngestResult
}

type tenantHour struct {
	tenant string
	hour   int64
}

type tenantIngest struct {
	horizon int64 // events of earlier hours are expired
	latest  int64 // latest hour with a hash set (before and during this ingest)
	has     bool
}

type hourSet struct {
	stored []byte // as loaded
	added  []byte // hashes of this ingest's new events
}

type agentFold struct {
	a           *agg
	m           *merger
	name        string
	first, last time.Time
}

func newIngester(ctx context.Context, tx store.Tx) (*ingester, error) {
	ins, err := tx.EventIngest(ctx)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	in := &ingester{
		ctx: ctx, ins: ins, now: nowHour(),
		agents: map[agentKey]*agentFold{}, tenants: map[string]*tenantIngest{}, hours: map[tenantHour]*hourSet{},
	}
	if in.legacy, in.hasLeg, err = ins.LegacyHashes(ctx); err != nil {
		ins.Close()
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	return in, nil
}

func (in *ingester) close() { in.ins.Close() }

func (in *ingester) tenant(id string) (*tenantIngest, error) {
	if t := in.tenants[id]; t != nil {
		return t, nil
	}
	t := &tenantIngest{horizon: math.MinInt64}
	latest, ok, err := in.ins.LatestHashHour(in.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	if ok {
		t.latest, t.has = latest, true
		t.horizon = min(latest, in.now) - DedupHours + 1
	}
	if in.hasLeg && !in.legacy.Kept {
		// The hashes of the events before the hour sets are gone.
		t.horizon = max(t.horizon, in.legacy.Until+1)
	}
	in.tenants[id] = t
	return t, nil
}

func (in *ingester) hourSet(tenant string, hour int64) (*hourSet, error) {
	k := tenantHour{tenant, hour}
	if s := in.hours[k]; s != nil {
		return s, nil
	}
	b, err := in.ins.HashSet(in.ctx, tenant, hour)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	s := &hourSet{stored: b}
	for i := 0; i+16 <= len(b); i += 16 {
		in.seen.insert(evHash(b[i : i+16]))
	}
	in.hours[k] = s
	return s, nil
}

func (in *ingester) add(ev *Event) error {
	in.res.Events++
	if ev.Timestamp.After(in.res.Latest) {
		in.res.Latest = ev.Timestamp
	}
	t, err := in.tenant(ev.TenantID)
	if err != nil {
		return err
	}
	hour := unixHour(ev.Timestamp)
	if hour < t.horizon {
		in.res.Expired++
		return nil
	}
	hs, err := in.hourSet(ev.TenantID, hour)
	if err != nil {
		return err
	}
	h := in.h.sum(ev)
	if !in.seen.insert(h) {
		in.res.Duplicates++
		return nil
	}
	if in.hasLeg && in.legacy.Kept && hour <= in.legacy.Until {
		old, err := in.ins.LegacySeen(in.ctx, h[:])
		if err != nil {
			return fmt.Errorf("agentrisk: ingest: %w", err)
		}
		if old {
			in.res.Duplicates++
			return nil
		}
	}
	hs.added = append(hs.added, h[:]...)
	in.res.New++
	k := agentKey{ev.TenantID, ev.AgentID}
	f := in.agents[k]
	if f == nil {
		if f, err = in.load(k); err != nil {
			return err
		}
		in.agents[k] = f
	}
	if _, ok := f.a.sessIdx[ev.SessionID]; !ok && ev.SessionID != "" {
		ev.SessionID = strings.Clone(ev.SessionID) // the agg keeps it; the event may alias its line
	}
	f.m.add(ev)
	if f.first.IsZero() || ev.Timestamp.Before(f.first) {
		f.first = ev.Timestamp
	}
	if !ev.Timestamp.Before(f.last) {
		f.last = ev.Timestamp
		if ev.AgentName != "" {
			f.name = strings.Clone(ev.AgentName)
		}
	}
	if f.name == "" {
		f.name = strings.Clone(ev.AgentName)
	}
	return nil
}

func (in *ingester) load(k agentKey) (*agentFold, error) {
	f := &agentFold{}
	row, ok, err := in.ins.Agent(in.ctx, k.tenant, k.agent)
	switch {
	case err != nil:
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	case !ok:
		f.a = newAgg()
	default:
		if f.a, err = decodeAgg(row.Agg, true); err != nil {
			return nil, fmt.Errorf("%w (tenant %s, agent %s)", err, k.tenant, k.agent)
		}
		f.name, f.first, f.last = row.AgentName, parseTime(row.FirstEventAt), parseTime(row.LastEventAt)
	}
	f.m = f.a.merger()
	return f, nil
}

func (in *ingester) finish() (IngestResult, error) {
	keys := make([]agentKey, 0, len(in.agents))
	for k := range in.agents {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].tenant != keys[j].tenant {
			return keys[i].tenant < keys[j].tenant
		}
		return keys[i].agent < keys[j].agent
	})
	in.res.Touched = make([]AgentRef, 0, len(keys))
	for _, k := range keys {
		f := in.agents[k]
		f.m.finish()
		row := store.AgentRow{
			TenantID: k.tenant, AgentID: k.agent, AgentName: f.name, Agg: f.a.encode(),
			FirstEventAt: store.FormatTime(f.first), LastEventAt: store.FormatTime(f.last),
		}
		if err := in.ins.PutAgent(in.ctx, row); err != nil {
			return in.res, fmt.Errorf("agentrisk: ingest: %w", err)
		}
		in.res.Touched = append(in.res.Touched, AgentRef{k.tenant, k.agent})
	}
	in.res.Agents = len(keys)
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
		if len(s.added) == 0 {
			continue
		}
		t := in.tenants[k.tenant]
		if !t.has || k.hour > t.latest {
			t.latest, t.has = k.hour, true
		}
	}
	keys := make([]tenantHour, 0, len(in.hours))
	for k, s := range in.hours {
		if len(s.added) > 0 {
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
		s := in.hours[k]
		b := make([]byte, 0, len(s.stored)+len(s.added))
		b = append(append(b, s.stored...), s.added...)
		if err := in.ins.PutHashSet(in.ctx, k.tenant, k.hour, b); err != nil {
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

// hashTable is a set of event hashes: open addressing on the hash's own
// (uniformly random) bits, no per-entry allocation.
type hashTable struct {
	slots []evHash
	n     int
	zero  bool // the all-zero hash, which marks empty slots
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

func (t *hashTable) grow() {
	old := t.slots
	t.slots = make([]evHash, max(1024, 2*len(old)))
	t.n = 0
	for _, h := range old {
		if h != (evHash{}) {
			t.insert(h)
		}
	}
}
