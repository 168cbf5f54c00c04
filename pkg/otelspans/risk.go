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
	if t.byID == nil {
		t.byID = make(map[string]*Span, len(t.Spans))
		for _, x := range t.Spans {
			if x.SpanID != "" {
				t.byID[x.SpanID] = x
			}
		}
	}
	for depth := 0; s != nil && depth < 64; depth++ {
		if v, ok := s.Attrs.First(keys...); ok {
			return v
		}
		s = t.byID[s.ParentID]
	}
	return ""
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
