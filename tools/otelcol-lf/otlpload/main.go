// Command otlpload is the client of scripts/bench-otlp.sh: it sends the
// same OTLP/HTTP protobuf requests (realistic agent spans, about 1 KB of
// attributes each) to any OTLP/HTTP receiver, lf serve or a Collector, and
// prints the spans per second accepted. `otlpload convert` turns AgentLeak
// JSONL traces into OTLP JSON (one request per trace, OpenInference
// attributes), for comparing lf agentleak scan on both.
//
//	otlpload send -url http://127.0.0.1:4318/v1/traces -header 'Authorization=Bearer K' -duration 10s
//	otlpload convert traces.jsonl spans.otlp.jsonl
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: otlpload send|convert ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "send":
		err = send(os.Args[2:])
	case "convert":
		err = convert(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "otlpload:", err)
		os.Exit(1)
	}
}

var templateID = pcommon.TraceID{0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57}

// request builds one trace of n spans: tool calls, a model turn, and the
// agent's root span last (as batch exporters send it): the spans of lf's
// in-process benchmarks (pkg/internal/benchspans), which this module cannot
// import; change both together.
func request(n, agent int) []byte {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "bench-agent")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("otlpload")
	now := time.Now()
	filler := strings.Repeat("The customer asked about the itinerary and the booking reference; ", 12)
	for i := 0; i < n; i++ {
		s := ss.Spans().AppendEmpty()
		s.SetTraceID(templateID)
		s.SetSpanID(pcommon.SpanID{byte(i >> 8), byte(i), 1})
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i) * time.Millisecond)))
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i)*time.Millisecond + 500*time.Microsecond)))
		a := s.Attributes()
		switch {
		case i == n-1:
			s.SetName("invoke_agent planner")
			a.PutStr("gen_ai.operation.name", "invoke_agent")
			a.PutStr("gen_ai.agent.id", fmt.Sprintf("agt_%03d", agent))
			a.PutStr("gen_ai.agent.name", "Planner")
			a.PutStr("gen_ai.conversation.id", fmt.Sprintf("conv-%d", agent))
			a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"`+filler[:600]+`"}]}]`)
		case i%10 == 9:
			s.SetName("chat gpt-4o")
			s.SetParentSpanID(pcommon.SpanID{byte((n - 1) >> 8), byte(n - 1), 1})
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.request.model", "gpt-4o")
			a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+filler[:700]+`"}]}]`)
		default:
			s.SetName("execute_tool lookup")
			s.SetParentSpanID(pcommon.SpanID{byte((n - 1) >> 8), byte(n - 1), 1})
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", fmt.Sprintf("tool_%d", i%7))
			a.PutStr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", i))
			a.PutStr("gen_ai.tool.call.arguments", `{"query":"`+filler[:400]+`"}`)
			a.PutStr("gen_ai.tool.call.result", `{"result":"`+filler[:400]+`"}`)
		}
	}
	b, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	return b
}

func send(args []string) error {
	fs := flag.NewFlagSet("send", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:4318/v1/traces", "receiver URL")
	header := fs.String("header", "", "extra header NAME=VALUE")
	dur := fs.Duration("duration", 10*time.Second, "how long to send")
	conc := fs.Int("conc", 8, "concurrent requests")
	spans := fs.Int("spans", 100, "spans per request (one trace)")
	agents := fs.Int("agents", 50, "distinct agents")
	rate := fs.Int("rate", 0, "spans per second to offer (0: as fast as accepted)")
	probe := fs.Duration("probe", 0, "every this often, send one tool span of a new agent and poll -verdict until its verdict reflects it: the span-to-verdict freshness")
	verdictURL := fs.String("verdict", "", "POST /verdict URL of the probes (lf serve)")
	tenant := fs.String("tenant", "acme", "tenant of the probes' verdicts")
	_ = fs.Parse(args)
	tmpl := make([][]byte, *agents)
	for i := range tmpl {
		tmpl[i] = request(*spans, i)
	}
	hname, hval, _ := strings.Cut(*header, "=")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc}}
	var ok, failed, spansOK atomic.Int64
	var codes sync.Map
	deadline := time.Now().Add(*dur)
	var tick <-chan time.Time
	if *rate > 0 {
		tk := time.NewTicker(time.Second * time.Duration(*spans) / time.Duration(*rate))
		defer tk.Stop()
		tick = tk.C
	}
	var wg sync.WaitGroup
	var lmu sync.Mutex
	var lats []time.Duration
	start := time.Now()
	var pr *prober
	if *probe > 0 {
		pr = &prober{client: client, url: *url, verdict: *verdictURL, tenant: *tenant, hname: hname, hval: hval}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr.loop(*probe, deadline)
		}()
	}
	for w := 0; w < *conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := w; time.Now().Before(deadline); n += *conc {
				if tick != nil {
					<-tick
				}
				var id [16]byte
				rand.Read(id[:])
				body := bytes.ReplaceAll(tmpl[n%len(tmpl)], templateID[:], id[:])
				req, _ := http.NewRequest("POST", *url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/x-protobuf")
				if hname != "" {
					req.Header.Set(hname, hval)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lmu.Lock()
				lats = append(lats, time.Since(t0))
				lmu.Unlock()
				if resp.StatusCode == 200 {
					ok.Add(1)
					spansOK.Add(int64(*spans))
				} else {
					failed.Add(1)
					c, _ := codes.LoadOrStore(resp.StatusCode, new(atomic.Int64))
					c.(*atomic.Int64).Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	var cs []string
	codes.Range(func(k, v any) bool { cs = append(cs, fmt.Sprintf("%v:%d", k, v.(*atomic.Int64).Load())); return true })
	sort.Strings(cs)
	fmt.Printf("request latency: %s\n", summary(lats))
	if pr != nil {
		fmt.Printf("span-to-verdict freshness (%d probes, %d failed): %s\n", len(pr.fresh), pr.failed, summary(pr.fresh))
		if pr.err != nil {
			fmt.Printf("last probe error: %v\n", pr.err)
		}
	}
	fmt.Printf("requests %d ok, %d failed %v; %d spans in %.1f s: %.0f spans/s\n", ok.Load(), failed.Load(), cs, spansOK.Load(), el, float64(spansOK.Load())/el)
	return nil
}

// summary is the percentiles of ds.
func summary(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	pct := func(p float64) string { return ds[int(p*float64(len(ds)-1))].Round(10 * time.Microsecond).String() }
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s", pct(0.50), pct(0.90), pct(0.99), pct(1))
}

// prober measures the span-to-verdict freshness: from sending one tool span
// of a new agent (with its trace's root span) to the first POST /verdict
// answer that scores the agent.
type prober struct {
	client               *http.Client
	url, verdict, tenant string
	hname, hval          string
	fresh                []time.Duration
	failed               int
	err                  error
}

func (p *prober) loop(every time.Duration, deadline time.Time) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for n := 0; time.Now().Before(deadline); n++ {
		<-tick.C
		d, err := p.one(fmt.Sprintf("probe-%d-%d", time.Now().UnixNano(), n))
		if err != nil {
			p.failed++
			p.err = err
			continue
		}
		p.fresh = append(p.fresh, d)
	}
}

func (p *prober) one(agent string) (time.Duration, error) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	var tid pcommon.TraceID
	rand.Read(tid[:])
	now := time.Now()
	for i, name := range []string{"execute_tool lookup", "invoke_agent probe"} {
		s := ss.Spans().AppendEmpty()
		s.SetTraceID(tid)
		s.SetSpanID(pcommon.SpanID{byte(i + 1)})
		s.SetName(name)
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(now))
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(now))
		a := s.Attributes()
		a.PutStr("gen_ai.agent.id", agent)
		if i == 0 {
			s.SetParentSpanID(pcommon.SpanID{2})
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "lookup")
			a.PutStr("gen_ai.tool.call.arguments", `{"query":"probe"}`)
		} else {
			a.PutStr("gen_ai.operation.name", "invoke_agent")
		}
	}
	body, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	vbody := []byte(fmt.Sprintf(`{"tenantId":%q,"agentId":%q,"method":"tools/call"}`, p.tenant, agent))
	t0 := time.Now()
	code, out, err := p.post(p.url, "application/x-protobuf", body)
	if err != nil || code != 200 {
		return 0, fmt.Errorf("probe spans: %d %s %v", code, out, err)
	}
	for time.Since(t0) < 10*time.Second {
		code, out, err := p.post(p.verdict, "application/json", vbody)
		if err != nil || code != 200 {
			return 0, fmt.Errorf("probe verdict: %d %s %v", code, out, err)
		}
		if bytes.Contains(out, []byte(`"scored":true`)) {
			return time.Since(t0), nil
		}
		time.Sleep(200 * time.Microsecond)
	}
	return 0, fmt.Errorf("probe %s: no verdict reflected its span within 10 s", agent)
}

func (p *prober) post(url, ctype string, body []byte) (int, []byte, error) {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if p.hname != "" {
		req.Header.Set(p.hname, p.hval)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// convert writes each AgentLeak trace as one OTLP JSON request, with the
// conformance data's synthetic mapping (root AGENT span with the user
// input, TOOL spans for tool calls and their responses, LLM spans for
// messages, a CHAIN span for the final output, GUARDRAIL spans for logs).
func convert(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("convert IN.jsonl OUT.jsonl")
	}
	in, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(args[1])
	if err != nil {
		return err
	}
	defer out.Close()
	w := bufio.NewWriterSize(out, 1<<20)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	type event struct {
		Channel string          `json:"channel"`
		Source  string          `json:"source"`
		Target  string          `json:"target"`
		Content json.RawMessage `json:"content"`
	}
	var tr struct {
		RunID      string  `json:"run_id"`
		AgentName  string  `json:"agent_name"`
		ScenarioID string  `json:"scenario_id"`
		Events     []event `json:"events"`
	}
	text := func(r json.RawMessage) string {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
		return string(r)
	}
	for line := 1; sc.Scan(); line++ {
		tr.Events = nil
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			return err
		}
		sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", tr.ScenarioID, tr.RunID, line))
		var tid pcommon.TraceID
		copy(tid[:], sum[:16])
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", tr.AgentName)
		rs.Resource().Attributes().PutStr("agentleak.scenario_id", tr.ScenarioID)
		ss := rs.ScopeSpans().AppendEmpty()
		n := 0
		span := func(name, kind string) pcommon.Map {
			s := ss.Spans().AppendEmpty()
			s.SetTraceID(tid)
			s.SetSpanID(pcommon.SpanID{byte(n >> 8), byte(n), 2})
			s.SetName(name)
			s.SetStartTimestamp(pcommon.Timestamp(1_767_225_600_000_000_000 + int64(n)*1_000_000))
			s.SetEndTimestamp(pcommon.Timestamp(1_767_225_600_000_500_000 + int64(n)*1_000_000))
			n++
			s.Attributes().PutStr("openinference.span.kind", kind)
			return s.Attributes()
		}
		root := span(tr.AgentName, "AGENT")
		root.PutStr("agent.name", tr.AgentName)
		evs := tr.Events
		if len(evs) > 0 && evs[0].Channel == "user_input" {
			root.PutStr("input.value", text(evs[0].Content))
			evs = evs[1:]
		}
		for i := 0; i < len(evs); i++ {
			e := evs[i]
			switch e.Channel {
			case "tool_call", "shared_memory", "generated_file":
				a := span(e.Target, "TOOL")
				a.PutStr("tool.name", e.Target)
				a.PutStr("agent.name", e.Source)
				a.PutStr("input.value", text(e.Content))
				if e.Channel == "tool_call" && i+1 < len(evs) && evs[i+1].Channel == "tool_response" {
					a.PutStr("output.value", text(evs[i+1].Content))
					i++
				}
			case "tool_response":
				a := span(e.Source, "TOOL")
				a.PutStr("tool.name", e.Source)
				a.PutStr("output.value", text(e.Content))
			case "inter_agent_message":
				a := span(e.Source, "LLM")
				a.PutStr("agent.name", e.Source)
				a.PutStr("llm.output_messages.0.message.role", "assistant")
				a.PutStr("llm.output_messages.0.message.content", text(e.Content))
			case "final_output":
				span("final_output", "CHAIN").PutStr("output.value", text(e.Content))
			case "log":
				a := span("guardrail", "GUARDRAIL")
				a.PutStr("agent.name", e.Source)
				a.PutStr("output.value", text(e.Content))
			}
		}
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Flush()
}
