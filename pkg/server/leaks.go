package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/otelspans"
)

// Trace assembly and AgentLeak scans of the spans POST /v1/traces receives.
// State is per process (replicas each scan the traces they received).

// otlpState holds every tenant's unfinished traces and scanned leaks.
type otlpState struct {
	set     *otlpSettings
	mu      sync.Mutex
	tenants map[string]*tenantTraces
	now     func() time.Time
	q       scanQueue // finished traces waiting for their scan (scanqueue.go)
}

// tenantTraces is one tenant's part of otlpState.
type tenantTraces struct {
	pending map[string]*pendingTrace // by trace id
	spans   int                      // spans held in pending
	leaks   []LeakRecord             // scanned traces, oldest first
	queue   []scanJob                // finished traces waiting for their scan (scanqueue.go)
	pool    scannerPool              // the tenant's AgentLeak scanners
}

// pendingTrace is a trace whose root span has not arrived yet.
type pendingTrace struct {
	spans []*otelspans.Span
	last  time.Time // when its latest span arrived
}

// LeakRecord is one scanned trace as GET /tenants/{id}/leaks lists it:
// values redacted.
type LeakRecord struct {
	TraceID       string        `json:"traceId"`
	ScenarioID    string        `json:"scenarioId"`
	Agents        []string      `json:"agents"`
	Spans         int           `json:"spans"`
	Events        int           `json:"events"`
	Ended         string        `json:"ended"` // root (its root span arrived) or idle (idle timeout)
	ScannedAt     time.Time     `json:"scannedAt"`
	RiskIndex     float64       `json:"riskIndex"`
	PrivacyScore  int           `json:"privacyScore"`
	Verdict       string        `json:"verdict"`
	Blocked       bool          `json:"blocked"`
	BlockReasons  []string      `json:"blockReasons,omitempty"`
	LeakedSecrets int           `json:"leakedSecrets"`
	Findings      []LeakFinding `json:"findings"`
	// Compliance is the trace's AgentLeak compliance mapping as `lf
	// agentleak scan -o json` shows it: the summary, or the whole section
	// with ?compliance=full (leaks_compliance.go); never a value.
	Compliance *agentleak.ComplianceResult `json:"compliance,omitempty"`
	// compliance is what the mapping reads of the trace, kept to evaluate
	// the whole section on request.
	compliance *compliance.Input
}

// LeakFinding is one finding of a scanned trace, its value redacted.
type LeakFinding struct {
	EventID  string `json:"eventId"`
	Channel  string `json:"channel"`
	Agent    string `json:"agent"`
	DataType string `json:"dataType"`
	Level    int    `json:"level"`
	Severity string `json:"severity"`
	Detector string `json:"detector"`
	Tier     string `json:"tier"`
	Leaked   bool   `json:"leaked"`
	Value    string `json:"redactedValue"`
}

// LeaksResponse is GET /tenants/{id}/leaks.
type LeaksResponse struct {
	Leaks []LeakRecord `json:"leaks"`
}

func newOTLPState(set *otlpSettings) *otlpState {
	o := &otlpState{set: set, tenants: map[string]*tenantTraces{}, now: time.Now}
	o.q.wake = make(chan struct{}, 1)
	o.q.idle = sync.NewCond(&o.mu)
	return o
}

func (o *otlpState) tenant(t string) *tenantTraces {
	tt := o.tenants[t]
	if tt == nil {
		tt = &tenantTraces{pending: map[string]*pendingTrace{}}
		o.tenants[t] = tt
	}
	return tt
}

// full tells whether the key's tenant holds as many spans (of unfinished
// traces and of finished ones waiting for their scan) as it may.
func (o *otlpState) full(p Principal) bool {
	if p.Admin {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	tt := o.tenants[p.Tenant]
	return tt != nil && tt.spans >= o.set.maxPending
}

// add files a tenant's spans under their traces and queues for their scan
// the traces whose root span (a span without parent) is among them.
func (o *otlpState) add(tenant string, spans []*otelspans.Span) {
	if o.set.noScan {
		return
	}
	now := o.now()
	o.mu.Lock()
	tt := o.tenant(tenant)
	var done []string
	for _, sp := range spans {
		pt := tt.pending[sp.TraceID]
		if pt == nil {
			pt = &pendingTrace{}
			tt.pending[sp.TraceID] = pt
		}
		pt.spans = append(pt.spans, sp)
		pt.last = now
		tt.spans++
		if sp.ParentID == "" {
			done = append(done, sp.TraceID)
		}
	}
	for i, pt := range o.take(tt, done) {
		if pt != nil {
			o.enqueue(scanJob{tenant, tt, done[i], pt, "root"})
		}
	}
	o.mu.Unlock()
}

// take removes the traces ids from pending; o.mu is held.
func (o *otlpState) take(tt *tenantTraces, ids []string) []*pendingTrace {
	out := make([]*pendingTrace, len(ids))
	for i, id := range ids {
		if pt := tt.pending[id]; pt != nil {
			out[i] = pt
			tt.spans -= len(pt.spans)
			delete(tt.pending, id)
		}
	}
	return out
}

// sweep queues for their scan the traces that had no new span for the
// idle timeout.
func (o *otlpState) sweep() {
	cut := o.now().Add(-o.set.idle)
	o.mu.Lock()
	defer o.mu.Unlock()
	for tenant, tt := range o.tenants {
		var ids []string
		for id, pt := range tt.pending {
			if pt.last.Before(cut) {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for i, pt := range o.take(tt, ids) {
			o.enqueue(scanJob{tenant, tt, ids[i], pt, "idle"})
		}
	}
}

// otlpLoop sweeps idle traces and runs the scan workers until ctx ends;
// the workers then scan what is still queued before it returns.
func (s *Server) otlpLoop(ctx context.Context) {
	var wg sync.WaitGroup
	for range scanWorkers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.scanLoop(ctx)
		}()
	}
	defer wg.Wait()
	every := min(max(s.otlp.set.idle/4, 100*time.Millisecond), 5*time.Second)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.otlp.sweep()
		}
	}
}

// scanTrace scans one finished trace with the tenant's AgentLeak config
// and vaults, keeps its record, and counts a blocked trace as a policy
// denial of each agent whose span leaked. buf is the scan worker's.
func (s *Server) scanTrace(ctx context.Context, buf *scanBuf, tenant string, tt *tenantTraces, id string, pt *pendingTrace, ended string) error {
	defer buf.reset() // leakers points into buf until denyLeakers returns
	rec, leakers, err := s.scanRecord(buf, tenant, tt, id, pt, ended)
	if err != nil {
		return err
	}
	s.otlp.mu.Lock()
	tt.keepLeak(rec, s.otlp.set.maxLeaks)
	s.otlp.mu.Unlock()
	if len(leakers) == 0 {
		return nil
	}
	return s.denyLeakers(ctx, tenant, id, rec, leakers)
}

// scanRecord scans a finished trace and makes its record; leakers are,
// for a blocked trace, the agents whose spans leaked, each with its first
// leaking event (an event of buf.evs).
func (s *Server) scanRecord(buf *scanBuf, tenant string, tt *tenantTraces, id string, pt *pendingTrace, ended string) (LeakRecord, map[string]*otelspans.LeakEvent, error) {
	st := &otelspans.Trace{RunID: id, File: "otlp", Spans: pt.spans}
	for _, sp := range pt.spans {
		if v := sp.ResourceStr(otelspans.ScenarioAttr); v != "" {
			st.ScenarioID = v
			break
		}
	}
	if st.ScenarioID == "" {
		st.ScenarioID = id
	}
	evs := otelspans.LeakEventsInto(buf.evs, st, otelspans.MappingLF)
	buf.evs = evs
	agentleak.TraceForScanInto(&buf.trace, st, evs)
	scanner := tt.pool.get(s.otlp.set.scanners[tenant])
	res, err := scanner.Scan(&buf.trace)
	if err != nil {
		tt.pool.put(scanner)
		return LeakRecord{}, nil, err
	}
	rec := LeakRecord{
		TraceID: id, ScenarioID: st.ScenarioID, Spans: len(pt.spans), Events: res.Events, Ended: ended,
		ScannedAt: s.now().UTC().Truncate(time.Millisecond), RiskIndex: res.RiskIndex, PrivacyScore: res.PrivacyScore,
		Verdict: res.Verdict, Blocked: res.Blocked, BlockReasons: append([]string(nil), res.BlockReasons...),
		LeakedSecrets: res.LeakedSecrets,
	}
	s.leakCompliance(&rec, res, tenant)
	// Each event's agent, and the trace's agents: a span's events follow
	// each other, and a trace's spans have few agents, so a list of the
	// agents as they change, sorted and compacted, is the set.
	agentsOf := st.Agents()
	eventAgent, names := buf.eventAgent[:0], buf.agents[:0]
	var agentOf *otelspans.Span // the span whose agent agent is
	agent := ""
	for i := range evs {
		if e := &evs[i]; i == 0 || e.Span != agentOf {
			agentOf, agent = e.Span, agentsOf.Agent(e.Span)
			if agent != "" && (len(names) == 0 || names[len(names)-1] != agent) {
				names = append(names, agent)
			}
		}
		eventAgent = append(eventAgent, agent)
	}
	buf.eventAgent = eventAgent
	slices.Sort(names)
	buf.agents = slices.Compact(names)
	if len(buf.agents) > 0 {
		rec.Agents = slices.Clone(buf.agents)
	}
	// The agents whose spans leaked are only needed to deny a blocked trace.
	var leakers map[string]*otelspans.LeakEvent
	if rec.Blocked {
		leakers = map[string]*otelspans.LeakEvent{}
	}
	if len(res.Findings) > 0 {
		rec.Findings = make([]LeakFinding, 0, len(res.Findings))
	}
	for _, f := range res.Findings {
		a := ""
		if f.Event >= 0 && f.Event < len(evs) {
			a = eventAgent[f.Event]
			if f.Leaked && a != "" && leakers != nil && leakers[a] == nil {
				leakers[a] = &evs[f.Event]
			}
		}
		rec.Findings = append(rec.Findings, LeakFinding{
			EventID: f.EventID, Channel: f.Channel, Agent: a, DataType: f.DataType, Level: f.Level,
			Severity: f.Severity, Detector: f.Detector, Tier: f.Tier, Leaked: f.Leaked, Value: agentleak.Redact(f.Value),
		})
	}
	// res is the scanner's own (a transient scan's), reused by its next
	// scan: the record has copied what it shows, and res is not read past
	// here.
	tt.pool.put(scanner)
	return rec, leakers, nil
}

// scanBuf is what a scan worker reuses from one trace to the next instead
// of allocating it per trace: the AgentLeak events made from the spans and
// the trace made of them (together about two thirds of the bytes a scan
// allocated). Nothing scanTrace keeps refers into them: a record copies
// what it shows.
type scanBuf struct {
	evs        []otelspans.LeakEvent
	trace      agentleak.Trace
	eventAgent []string // the agent of each event
	agents     []string // the trace's agents
}

// maxScanBufEvents is the most events a buffer keeps room for after a
// scan: one huge trace does not pin its buffers' memory for good.
const maxScanBufEvents = 4096

// reset clears the buffer after a scan, so that an idle worker keeps no
// spans or texts of the trace it scanned last alive.
func (b *scanBuf) reset() {
	if cap(b.evs) > maxScanBufEvents || cap(b.trace.Events) > maxScanBufEvents || cap(b.eventAgent) > maxScanBufEvents {
		*b = scanBuf{}
		return
	}
	clear(b.evs)
	clear(b.trace.Events)
	clear(b.eventAgent)
	clear(b.agents)
	b.evs, b.eventAgent, b.agents = b.evs[:0], b.eventAgent[:0], b.agents[:0]
	b.trace = agentleak.Trace{Events: b.trace.Events[:0]}
}

// keepLeak adds a scanned trace's record; the last max are kept (read
// them with recentLeaks). The list is cut back only when it has doubled,
// not moved down one record per scan. o.mu is held.
func (tt *tenantTraces) keepLeak(rec LeakRecord, max int) {
	tt.leaks = append(tt.leaks, rec)
	if len(tt.leaks) >= 2*max {
		n := copy(tt.leaks, tt.leaks[len(tt.leaks)-max:])
		clear(tt.leaks[n:])
		tt.leaks = tt.leaks[:n]
	}
}

// recentLeaks is the last max records of tt.leaks, the ones kept.
func (tt *tenantTraces) recentLeaks(max int) []LeakRecord {
	return tt.leaks[len(tt.leaks)-min(len(tt.leaks), max):]
}

// denyLeakers records a blocked trace as a policy denial of every agent
// whose span leaked: one deny event each (rule agentleak), at the leaking
// span's start, so that it raises the agent's policyViolation component and
// can fire alert rules like any denied request.
func (s *Server) denyLeakers(ctx context.Context, tenant, id string, rec LeakRecord, leakers map[string]*otelspans.LeakEvent) error {
	var events []agentrisk.Event
	rule := "agentleak"
	if len(rec.BlockReasons) > 0 {
		rule = "agentleak: " + rec.BlockReasons[0]
	}
	for agent, e := range leakers {
		ts := time.Unix(0, e.Span.Start).UTC()
		if e.Span.Start == 0 || ts.Before(minEventTime) || ts.After(maxEventTime) {
			ts = s.now().UTC()
		}
		events = append(events, agentrisk.Event{
			Timestamp: ts, TenantID: tenant, AgentID: agent, Method: "agentleak/trace", Tool: e.ToolName,
			Decision: "deny", Rule: rule, RequestID: "leak:" + id,
		})
	}
	sort.Slice(events, func(i, j int) bool { return events[i].AgentID < events[j].AgentID })
	var ticket liveTicket
	var err error
	check := func(ctx context.Context) error { return s.checkAgentLimit(ctx, tenant, events) }
	runBulk(func() { _, ticket, err = s.ingestCommitChecked(ctx, events, check) })
	s.waitLive(ticket)
	var le *limitError
	if errors.As(err, &le) {
		s.logf("otlp: trace %s of tenant %s: the denial of its leaking agents is not recorded: %v", id, tenant, err)
		return nil
	}
	return err
}

// listLeaks is GET /tenants/{tenantId}/leaks: the tenant's scanned traces,
// oldest first; ?blocked=true lists the blocked ones only; ?compliance=
// full|off shows the whole compliance section or none (leaks_compliance.go).
func (s *Server) listLeaks(w http.ResponseWriter, r *http.Request, tenant string) {
	onlyBlocked := strings.EqualFold(r.URL.Query().Get("blocked"), "true")
	mode, ok := leaksComplianceMode(w, r)
	if !ok {
		return
	}
	s.otlp.mu.Lock()
	out := LeaksResponse{Leaks: []LeakRecord{}}
	if tt := s.otlp.tenants[tenant]; tt != nil {
		for _, l := range tt.recentLeaks(s.otlp.set.maxLeaks) {
			if !onlyBlocked || l.Blocked {
				out.Leaks = append(out.Leaks, l)
			}
		}
	}
	s.otlp.mu.Unlock()
	out.Leaks = withCompliance(out.Leaks, mode)
	writeJSON(w, http.StatusOK, out)
}
