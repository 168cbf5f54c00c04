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
	err := e.st.Update(ctx, func(tx store.Tx) error {
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

// ingester folds events into the aggregates of their agents inside one
// transaction: each agent's aggregate is read once, merged in memory and
// written once at the end.
type ingester struct {
	ctx    context.Context
	ins    store.EventIngest
	agents map[agentKey]*agentFold
	res    IngestResult
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
	return &ingester{ctx: ctx, ins: ins, agents: map[agentKey]*agentFold{}}, nil
}

func (in *ingester) close() { in.ins.Close() }

func (in *ingester) add(ev *Event) error {
	in.res.Events++
	if ev.Timestamp.After(in.res.Latest) {
		in.res.Latest = ev.Timestamp
	}
	isNew, err := in.ins.Seen(in.ctx, eventHash(ev))
	if err != nil {
		return fmt.Errorf("agentrisk: ingest: %w", err)
	}
	if !isNew {
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
	}
	in.res.Agents = len(keys)
	return in.res, nil
}
