package otelspans

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The attributes lf reads under its own prefix, for what the conventions
// lack.
const (
	AttrTenant     = "lf.tenant_id"       // resource or span: the tenant
	AttrDecision   = "lf.decision"        // allow | deny
	AttrRule       = "lf.rule"            // the rule that decided
	AttrInjection  = "lf.injection_score" // 0..1
	AttrHighImpact = "lf.high_impact"     // bool
)

// RiskEvent is an agent-risk event made from a span (the fields of the
// agent-risk event format).
type RiskEvent struct {
	Time       time.Time
	Tenant     string
	Agent      string
	AgentName  string
	Session    string
	Method     string
	Tool       string
	Resource   string
	HighImpact bool
	Decision   string // "", allow or deny
	Rule       string
	Injection  *float64
	RequestID  string
	Span       *Span // where it came from, for messages
}

// SpanProblem is a span whose lf.* attributes are wrong.
type SpanProblem struct {
	Span *Span
	Attr string
	Msg  string
}

// RiskEvents maps a trace's spans to agent-risk events: every MCP span
// (mcp.method.name) becomes an event with that method, session, resource
// and tool; every other tool span a tools/call event. Agent, agent name and
// session are read from the span or, when it lacks them, its nearest
// ancestor that has them; the tenant from lf.tenant_id (span, then
// resource), else tenant. An MCP call seen by both its client and its
// server span (same method, session and JSON-RPC request id) counts once,
// as its server span.
func RiskEvents(t *Trace, tenant string) ([]RiskEvent, []SpanProblem) {
	up := t.Up
	var out []RiskEvent
	var probs []SpanProblem
	// An MCP call's server span is the gateway's view (it carries the
	// decision): a client span of the same call is left out.
	seen := map[string]bool{}
	for _, s := range t.Spans {
		if s.Kind == "SERVER" {
			if k := mcpKey(s); k != "" {
				seen[k] = true
			}
		}
	}
	for _, s := range t.Spans {
		if k := mcpKey(s); k != "" && s.Kind != "SERVER" && seen[k] {
			continue
		}
		at := lfAttrs(s)
		method := at.Str("mcp.method.name")
		tool := ""
		if method == "" {
			if !isToolSpan(s, at) {
				continue
			}
			method = "tools/call"
			tool, _ = at.First(lfToolNameKeys...)
			if tool == "" {
				tool = nonEmpty(at.Str("traceloop.entity.name"), s.Name)
			}
		} else {
			tool = at.Str("gen_ai.tool.name")
		}
		ev := RiskEvent{
			Time:      time.Unix(0, s.Start).UTC(),
			Tenant:    nonEmpty(at.Str(AttrTenant), s.ResourceStr(AttrTenant)),
			Method:    method,
			Tool:      tool,
			Resource:  at.Str("mcp.resource.uri"),
			RequestID: at.Str("jsonrpc.request.id"),
			Session:   up(s, "mcp.session.id", "gen_ai.conversation.id", "session.id"),
			AgentName: up(s, "gen_ai.agent.name", "agent.name"),
			Span:      s,
		}
		if ev.Tenant == "" {
			ev.Tenant = tenant
		}
		ev.Agent = t.Agent(s)
		if ev.Resource == "" {
			ev.Resource = argResource(at)
		}
		if ev.RequestID == "" && s.SpanID != "" {
			ev.RequestID = "span:" + s.SpanID
		}
		probs = append(probs, lfFields(s, at, &ev)...)
		out = append(out, ev)
	}
	return out, probs
}

// isToolSpan: a span that calls a tool, in any of the conventions lf reads.
func isToolSpan(s *Span, at Attrs) bool {
	a := adapter{m: MappingLF}
	return a.kind(s, at) == "TOOL"
}

// argResource is the resource a tool call names in its arguments (a
// top-level uri, url, path or file key), "" when none.
func argResource(at Attrs) string {
	args, ok := at.First("gen_ai.tool.call.arguments", "tool_call.function.arguments", "ai.toolCall.args", "input.value", "traceloop.entity.input")
	if !ok || !strings.HasPrefix(strings.TrimSpace(args), "{") || !mayNameResource(args) {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range resourceKeys {
		if v, ok := m[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

// resourceKeys are the top-level argument keys argResource reads, in order.
var resourceKeys = []string{"uri", "url", "resource", "path", "file_path", "file"}

// quotedResourceKeys are resourceKeys in JSON quotes.
var quotedResourceKeys = []string{`"uri"`, `"url"`, `"resource"`, `"path"`, `"file_path"`, `"file"`}

// mayNameResource tells whether args could hold one of resourceKeys as a
// key: it holds one of them in quotes, or a \u escape (the only way a JSON
// key spells those letters otherwise). When it cannot, decoding the
// arguments (most of the live path's cost for benign tool calls) is
// skipped: argResource's answer would be "" whatever the JSON.
func mayNameResource(args string) bool {
	if strings.Contains(args, `\u`) {
		return true
	}
	for _, k := range quotedResourceKeys {
		if strings.Contains(args, k) {
			return true
		}
	}
	return false
}

// lfFields reads the lf.* attributes of a span into the event.
func lfFields(s *Span, at Attrs, ev *RiskEvent) []SpanProblem {
	var probs []SpanProblem
	if v, ok := at.Get(AttrDecision); ok && v != nil {
		d, _ := v.(string)
		switch d {
		case "allow", "deny":
			ev.Decision = d
		default:
			probs = append(probs, SpanProblem{s, AttrDecision, fmt.Sprintf("must be allow or deny, got %s", PyStr(v))})
		}
	}
	ev.Rule = at.Str(AttrRule)
	if v, ok := at.Get(AttrInjection); ok && v != nil {
		var f float64
		var good bool
		switch x := v.(type) {
		case float64:
			f, good = x, true
		case int64:
			f, good = float64(x), true
		case string:
			var err error
			f, err = strconv.ParseFloat(x, 64)
			good = err == nil
		}
		if !good || f != f || f < 0 || f > 1 {
			probs = append(probs, SpanProblem{s, AttrInjection, fmt.Sprintf("must be a number within 0..1, got %s", PyStr(v))})
		} else {
			ev.Injection = &f
		}
	}
	if v, ok := at.Get(AttrHighImpact); ok && v != nil {
		switch x := v.(type) {
		case bool:
			ev.HighImpact = x
		case string:
			ev.HighImpact = x == "true"
		default:
			probs = append(probs, SpanProblem{s, AttrHighImpact, fmt.Sprintf("must be a boolean, got %s", PyStr(v))})
		}
	}
	return probs
}

// mcpKey names an MCP call: method, session and JSON-RPC request id; ""
// for a span that is no MCP call or has no request id.
func mcpKey(s *Span) string {
	m, id := s.Attrs.Str("mcp.method.name"), s.Attrs.Str("jsonrpc.request.id")
	if m == "" || id == "" {
		return ""
	}
	return m + "\x00" + s.Attrs.Str("mcp.session.id") + "\x00" + id
}

// Up is the first of keys found on the span or, when it has none of them,
// on its nearest ancestor in the trace that has one ("" when none has).
func (t *Trace) Up(s *Span, keys ...string) string {
	t.index()
	for depth := 0; s != nil && depth < upDepth; depth++ {
		if v, ok := s.Attrs.First(keys...); ok {
			return v
		}
		s = t.byID[s.ParentID]
	}
	return ""
}

// upDepth is how many spans Up looks at: the span and its ancestors (a
// trace's parents may form a cycle).
const upDepth = 64

// index builds byID, the spans by span id (the last of a repeated id).
func (t *Trace) index() {
	if t.byID == nil {
		t.byID = make(map[string]*Span, len(t.Spans))
		for _, x := range t.Spans {
			if x.SpanID != "" {
				t.byID[x.SpanID] = x
			}
		}
	}
}

// AgentFinder answers Agent for span after span of one trace, as the
// server's scan asks for the agent of every span of a finished trace. It
// keeps what it found for the last few parents (the spans of a trace share
// few), so that most spans are answered by their own attributes and that
// memo; and it looks a parent up by going through the spans, without
// building the trace's map of span ids, until it has done so a few times:
// for a trace whose spans hang off one or two agent spans, that map and
// the walks to the root were most of the cost.
type AgentFinder struct {
	t     *Trace
	memo  [4]parentAgents
	next  int // the memo entry replaced next
	scans int // parents looked up by going through the spans
}

// parentAgents is what Up finds of the agent id and of the agent name
// from a parent span, within the ancestors Up looks at for its children.
type parentAgents struct {
	pid      string // the parent's span id ("" for an unused entry)
	id, name string
}

// agentIDKeys and agentNameKeys are the keys Agent reads, in its order.
var (
	agentIDKeys   = []string{"gen_ai.agent.id"}
	agentNameKeys = []string{"gen_ai.agent.name", "agent.name"}
)

// maxSpanScans is how many parents an AgentFinder looks up by going
// through the spans before it builds the trace's map of span ids.
const maxSpanScans = 8

// Agents returns an AgentFinder for the trace's spans.
func (t *Trace) Agents() *AgentFinder { return &AgentFinder{t: t} }

// Agent is t.Agent(s).
func (f *AgentFinder) Agent(s *Span) string {
	if v, ok := s.Attrs.First(agentIDKeys...); ok {
		return v
	}
	var p *parentAgents
	if s.ParentID != "" {
		p = f.parent(s.ParentID)
	}
	if p != nil && p.id != "" {
		return p.id
	}
	if v, ok := s.Attrs.First(agentNameKeys...); ok {
		return v
	}
	if p != nil && p.name != "" {
		return p.name
	}
	return s.ResourceStr("service.name")
}

// parent is the memo entry of the span whose span id is pid (made now if
// it has none).
func (f *AgentFinder) parent(pid string) *parentAgents {
	for i := range f.memo {
		if f.memo[i].pid == pid {
			return &f.memo[i]
		}
	}
	p := &f.memo[f.next]
	f.next = (f.next + 1) % len(f.memo)
	start := f.span(pid)
	*p = parentAgents{pid: pid, id: f.up(start, agentIDKeys), name: f.up(start, agentNameKeys)}
	return p
}

// up is Up from s as a child of s sees it: Up looks at a span and
// upDepth-1 ancestors, so s and upDepth-2 of its own.
func (f *AgentFinder) up(s *Span, keys []string) string {
	for depth := 0; s != nil && depth < upDepth-1; depth++ {
		if v, ok := s.Attrs.First(keys...); ok {
			return v
		}
		s = f.span(s.ParentID)
	}
	return ""
}

// span is t.byID[id]: the last span whose span id is id, nil for none.
func (f *AgentFinder) span(id string) *Span {
	t := f.t
	if t.byID == nil && f.scans < maxSpanScans {
		f.scans++
		if id == "" {
			return nil
		}
		for i := len(t.Spans) - 1; i >= 0; i-- {
			if t.Spans[i].SpanID == id {
				return t.Spans[i]
			}
		}
		return nil
	}
	t.index()
	return t.byID[id]
}

// Agent is the agent id of a span for agent risk: gen_ai.agent.id, else
// gen_ai.agent.name, else agent.name (on the span or an ancestor), else
// the resource's service.name.
func (t *Trace) Agent(s *Span) string {
	if a := t.Up(s, "gen_ai.agent.id"); a != "" {
		return a
	}
	if a := t.Up(s, "gen_ai.agent.name", "agent.name"); a != "" {
		return a
	}
	return s.ResourceStr("service.name")
}
