package agentrisk

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/otelspans"
)

// SpanEvents turns span traces into agent-risk events (docs/otel.md): MCP
// spans and tool spans, agent from gen_ai.agent.id / gen_ai.agent.name /
// the resource's service.name, session from mcp.session.id /
// gen_ai.conversation.id / session.id, time from the span start, lf.*
// attributes for decision, rule, injection score and high impact. tenant is
// the tenant of spans without lf.tenant_id. Every problem is located at the
// span's file and line.
func SpanEvents(file string, traces []*otelspans.Trace, tenant string) ([]Event, diag.List) {
	evs, _, diags := spanEvents(file, traces, tenant)
	return evs, diags
}

// spanEvents is SpanEvents that also returns the span of each event.
func spanEvents(file string, traces []*otelspans.Trace, tenant string) ([]Event, []*otelspans.Span, diag.List) {
	var out []Event
	var spans []*otelspans.Span
	var diags diag.List
	for _, t := range traces {
		evs, probs := otelspans.RiskEvents(t, tenant)
		for _, p := range probs {
			diags = append(diags, spanDiag(file, p.Span, "%s: %s", p.Attr, p.Msg))
		}
		for _, re := range evs {
			ev := Event{
				Timestamp: re.Time, TenantID: re.Tenant, AgentID: re.Agent, AgentName: re.AgentName,
				SessionID: re.Session, Method: re.Method, Tool: re.Tool, Resource: re.Resource,
				HighImpact: re.HighImpact, Decision: re.Decision, Rule: re.Rule,
				InjectionScore: re.Injection, RequestID: re.RequestID,
			}
			if ev.Decision == "" {
				ev.Decision = "allow"
			}
			switch {
			case re.Span.Start == 0:
				diags = append(diags, spanDiag(file, re.Span, "no start time"))
				continue
			case ev.TenantID == "":
				diags = append(diags, spanDiag(file, re.Span, "no tenant: give the resource attribute %s (or --tenant)", otelspans.AttrTenant))
				continue
			case ev.AgentID == "":
				diags = append(diags, spanDiag(file, re.Span, "no agent: give gen_ai.agent.id, gen_ai.agent.name or the resource attribute service.name"))
				continue
			}
			if err := kind.CheckID("tenant_id", ev.TenantID); err != nil {
				diags = append(diags, spanDiag(file, re.Span, "%v", err))
				continue
			}
			if err := kind.CheckID("agent_id", ev.AgentID); err != nil {
				diags = append(diags, spanDiag(file, re.Span, "%v", err))
				continue
			}
			out = append(out, ev)
			spans = append(spans, re.Span)
		}
	}
	return out, spans, diags
}

func spanDiag(file string, s *otelspans.Span, format string, args ...any) diag.Diagnostic {
	where := fmt.Sprintf("span %s %q: ", s.SpanID, s.Name)
	return diag.Diagnostic{File: file, Line: s.Line, Msg: where + fmt.Sprintf(format, args...)}
}

// spanSource tells whether a source holds spans; the reader it returns
// loses nothing of what was peeked.
func spanSource(r io.Reader) (io.Reader, otelspans.Format) {
	br := bufio.NewReaderSize(r, 16<<10)
	head, _ := br.Peek(16 << 10)
	return br, otelspans.Sniff(head)
}

// readSpanSource reads a span file into agent-risk events, with the span
// of each event.
func readSpanSource(src Source, r io.Reader, f otelspans.Format) ([]Event, []*otelspans.Span, diag.List) {
	traces, err := otelspans.Read(src.Name, r, f)
	if err != nil {
		var oe *otelspans.Error
		if errors.As(err, &oe) {
			return nil, nil, diag.List{oe.Diag}
		}
		return nil, nil, diag.List{{File: src.Name, Msg: err.Error()}}
	}
	return spanEvents(src.Name, traces, src.Tenant)
}

// SpanDiag locates a problem of a span-made event at its span.
func SpanDiag(file string, s *otelspans.Span, msg string) diag.Diagnostic {
	return spanDiag(file, s, "%s", msg)
}
