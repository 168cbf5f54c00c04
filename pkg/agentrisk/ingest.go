package agentrisk

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/store"
)

// eventHash is the content hash that makes ingest idempotent: the same event
// (all fields, timestamp to the nanosecond) from JSONL or a JSON array, in any
// file, hashes the same.
func eventHash(ev *Event) []byte {
	h := sha256.New()
	var buf [8]byte
	str := func(s string) {
		binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
		h.Write(buf[:])
		h.Write([]byte(s))
	}
	str(ev.TenantID)
	str(ev.AgentID)
	binary.LittleEndian.PutUint64(buf[:], uint64(ev.Timestamp.UnixNano()))
	h.Write(buf[:])
	str(ev.AgentName)
	str(ev.SessionID)
	str(ev.Method)
	str(ev.Tool)
	str(ev.Resource)
	str(ev.Decision)
	str(ev.Rule)
	str(ev.RequestID)
	if ev.HighImpact {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	if ev.InjectionScore != nil {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(*ev.InjectionScore))
		h.Write([]byte{1})
		h.Write(buf[:])
	} else {
		h.Write([]byte{0})
	}
	sum := h.Sum(nil)
	return sum[:16]
}

type agentKey struct{ tenant, agent string }

// Source is one stream of events for IngestSources, named for messages.
type Source struct {
	Name string
	R    io.Reader
}

// IngestSources parses the sources (JSONL or JSON arrays) and ingests their
// events in one transaction, streaming: only the per-agent aggregates are held
// in memory, not the events. With any problem in any source nothing is stored
// and the located diagnostics are returned.
func (e *Engine) IngestSources(ctx context.Context, srcs []Source) (IngestResult, diag.List, error) {
	var res IngestResult
	var diags diag.List
	errBad := errors.New("bad input")
	err := e.st.Tx(ctx, func(tx *sql.Tx) error {
		in, err := newIngester(ctx, tx)
		if err != nil {
			return err
		}
		defer in.close()
		var failed error
		for _, src := range srcs {
			d := scanEvents(src.Name, src.R, func(ev *Event) error {
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
	err := e.st.Tx(ctx, func(tx *sql.Tx) error {
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

// ingester folds events into the aggregates of their agents inside one
// transaction: each agent's aggregate is read once, merged in memory and
// written once at the end.
type ingester struct {
	ctx    context.Context
	tx     *sql.Tx
	ins    *sql.Stmt
	agents map[agentKey]*agentFold
	res    IngestResult
}

type agentFold struct {
	a           *agg
	m           *merger
	name        string
	first, last time.Time
}

func newIngester(ctx context.Context, tx *sql.Tx) (*ingester, error) {
	// Every event adds a random 128-bit hash to agentrisk_seen, so a large
	// ingest touches pages all over that B-tree; with SQLite's default 2 MB
	// page cache it waits on I/O. 64 MB took 1 M events from 23 s to 15 s.
	// (Only this connection; scoring reads gain nothing from it.)
	if _, err := tx.ExecContext(ctx, `PRAGMA cache_size = -65536`); err != nil {
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO agentrisk_seen (hash) VALUES (?)`)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	return &ingester{ctx: ctx, tx: tx, ins: ins, agents: map[agentKey]*agentFold{}}, nil
}

func (in *ingester) close() { in.ins.Close() }

func (in *ingester) add(ev *Event) error {
	in.res.Events++
	if ev.Timestamp.After(in.res.Latest) {
		in.res.Latest = ev.Timestamp
	}
	r, err := in.ins.ExecContext(in.ctx, eventHash(ev))
	if err != nil {
		return fmt.Errorf("agentrisk: ingest: %w", err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		in.res.Duplicates++
		return nil
	}
	in.res.New++
	k := agentKey{ev.TenantID, ev.AgentID}
	f := in.agents[k]
	if f == nil {
		if f, err = in.load(k); err != nil {
			return err
		}
		in.agents[k] = f
	}
	f.m.add(ev)
	if f.first.IsZero() || ev.Timestamp.Before(f.first) {
		f.first = ev.Timestamp
	}
	if !ev.Timestamp.Before(f.last) {
		f.last = ev.Timestamp
		if ev.AgentName != "" {
			f.name = ev.AgentName
		}
	}
	if f.name == "" {
		f.name = ev.AgentName
	}
	return nil
}

func (in *ingester) load(k agentKey) (*agentFold, error) {
	var (
		blob        []byte
		name        string
		first, last string
	)
	f := &agentFold{}
	err := in.tx.QueryRowContext(in.ctx, `SELECT agg, agent_name, first_event_at, last_event_at FROM agentrisk_agents WHERE tenant_id = ? AND agent_id = ?`, k.tenant, k.agent).
		Scan(&blob, &name, &first, &last)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		f.a = newAgg()
	case err != nil:
		return nil, fmt.Errorf("agentrisk: ingest: %w", err)
	default:
		if f.a, err = decodeAgg(blob, true); err != nil {
			return nil, fmt.Errorf("%w (tenant %s, agent %s)", err, k.tenant, k.agent)
		}
		f.name, f.first, f.last = name, parseTime(first), parseTime(last)
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
	up, err := in.tx.PrepareContext(in.ctx, `INSERT INTO agentrisk_agents (tenant_id, agent_id, agent_name, agg, first_event_at, last_event_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, agent_id) DO UPDATE SET agent_name = excluded.agent_name, agg = excluded.agg,
			first_event_at = excluded.first_event_at, last_event_at = excluded.last_event_at`)
	if err != nil {
		return in.res, fmt.Errorf("agentrisk: ingest: %w", err)
	}
	defer up.Close()
	for _, k := range keys {
		f := in.agents[k]
		f.m.finish()
		if _, err := up.ExecContext(in.ctx, k.tenant, k.agent, f.name, f.a.encode(), store.FormatTime(f.first), store.FormatTime(f.last)); err != nil {
			return in.res, fmt.Errorf("agentrisk: ingest: %w", err)
		}
	}
	in.res.Agents = len(keys)
	return in.res, nil
}
