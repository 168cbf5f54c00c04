package agentrisk

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

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

func (e *Engine) ingest(ctx context.Context, events []Event) (IngestResult, error) {
	res := IngestResult{Events: len(events)}
	for i := range events {
		if events[i].TenantID == "" || events[i].AgentID == "" {
			return res, fmt.Errorf("agentrisk: event %d has no tenant_id or agent_id", i)
		}
		if events[i].Timestamp.IsZero() {
			return res, fmt.Errorf("agentrisk: event %d has no timestamp", i)
		}
	}
	err := e.st.Tx(ctx, func(tx *sql.Tx) error {
		ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO agentrisk_seen (hash) VALUES (?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		groups := map[agentKey][]int{}
		for i := range events {
			r, err := ins.ExecContext(ctx, eventHash(&events[i]))
			if err != nil {
				return fmt.Errorf("agentrisk: ingest: %w", err)
			}
			if n, _ := r.RowsAffected(); n == 0 {
				res.Duplicates++
				continue
			}
			res.New++
			k := agentKey{events[i].TenantID, events[i].AgentID}
			groups[k] = append(groups[k], i)
		}
		res.Agents = len(groups)
		keys := make([]agentKey, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].tenant != keys[j].tenant {
				return keys[i].tenant < keys[j].tenant
			}
			return keys[i].agent < keys[j].agent
		})
		for _, k := range keys {
			if err := mergeAgent(ctx, tx, k, events, groups[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return IngestResult{Events: len(events)}, err
	}
	return res, nil
}

func mergeAgent(ctx context.Context, tx *sql.Tx, k agentKey, events []Event, idx []int) error {
	var (
		blob        []byte
		name        string
		first, last string
		a           *agg
	)
	err := tx.QueryRowContext(ctx, `SELECT agg, agent_name, first_event_at, last_event_at FROM agentrisk_agents WHERE tenant_id = ? AND agent_id = ?`, k.tenant, k.agent).
		Scan(&blob, &name, &first, &last)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		a = newAgg()
	case err != nil:
		return fmt.Errorf("agentrisk: ingest: %w", err)
	default:
		if a, err = decodeAgg(blob, true); err != nil {
			return fmt.Errorf("%w (tenant %s, agent %s)", err, k.tenant, k.agent)
		}
	}
	m := a.merger()
	var lastT time.Time
	if last != "" {
		lastT, _ = time.Parse(store.TimeFormat, last)
	}
	for _, i := range idx {
		ev := &events[i]
		m.add(ev)
		ts := store.FormatTime(ev.Timestamp)
		if first == "" || ts < first {
			first = ts
		}
		if !ev.Timestamp.Before(lastT) {
			lastT = ev.Timestamp
			if ev.AgentName != "" {
				name = ev.AgentName
			}
		}
		if name == "" {
			name = ev.AgentName
		}
	}
	m.finish()
	_, err = tx.ExecContext(ctx, `INSERT INTO agentrisk_agents (tenant_id, agent_id, agent_name, agg, first_event_at, last_event_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, agent_id) DO UPDATE SET agent_name = excluded.agent_name, agg = excluded.agg,
			first_event_at = excluded.first_event_at, last_event_at = excluded.last_event_at`,
		k.tenant, k.agent, name, a.encode(), first, store.FormatTime(lastT))
	if err != nil {
		return fmt.Errorf("agentrisk: ingest: %w", err)
	}
	return nil
}
