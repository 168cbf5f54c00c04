package server

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcOn is the otlp: lines that turn the OTLP/gRPC receiver on, on a free
// port.
const grpcOn = "  grpc: {listen: \"127.0.0.1:0\"}\n"

// startGRPCServer starts a server whose OTLP/gRPC receiver is on and
// returns it with the receiver's address.
func startGRPCServer(t *testing.T, cfg *Config) (*testServer, string) {
	t.Helper()
	s := newServer(t, cfg)
	if err := s.ListenOTLPGRPC(); err != nil {
		t.Fatal(err)
	}
	addr := s.OTLPGRPCAddr().String()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{Server: s, base: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { ts.done <- s.Serve(sctx, ln, 5*time.Second) }()
	t.Cleanup(func() { ts.stop(t) })
	return ts, addr
}

// TestOTLPGRPCFromOpenTelemetrySDK sends GenAI-attributed spans with the
// OpenTelemetry Go SDK's OTLP/gRPC exporter (gzip, batch processor: the
// root span is exported after its children) to lf serve's gRPC port,
// authenticated with a tenant's operator key in the metadata, and checks
// what POST /v1/traces would give: the agent's live verdict and the
// scanned trace in /leaks.
func TestOTLPGRPCFromOpenTelemetrySDK(t *testing.T) {
	ts, addr := startGRPCServer(t, otlpConfig(t, grpcOn))
	ctx := context.Background()
	exp, err := otlptracegrpc.New(ctx,
		otlptracegrpc.WithEndpoint(addr),
		otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithCompressor("gzip"),
		otlptracegrpc.WithHeaders(map[string]string{"authorization": "Bearer " + keyT1Op}),
	)
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "travel-agent"), attribute.String("agentleak.scenario_id", "sdk-trip"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	tr := tp.Tracer("lf-test")
	actx, root := tr.Start(ctx, "invoke_agent travel", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.id", "agt_grpc"),
		attribute.String("gen_ai.agent.name", "gRPC travel agent"),
	))
	for i := 0; i < 2; i++ {
		_, tool := tr.Start(actx, "execute_tool send_email", trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", "send_email"),
			attribute.String("gen_ai.tool.call.arguments", `{"body":"your code is CANARY-SDK-2"}`),
			attribute.Bool("lf.high_impact", true),
		))
		tool.End()
	}
	root.End()
	if err := tp.Shutdown(ctx); err != nil { // flushes the batch
		t.Fatalf("exporter: %v", err)
	}
	ts.otlp.waitScans() // the trace's scan runs after the answer
	code, out := ts.call(t, keyT1Op, "POST", "/verdict", `{"tenantId": "t1", "agentId": "agt_grpc", "method": "tools/call"}`)
	if code != 200 || !strings.Contains(string(out), `"scored":true`) {
		t.Errorf("verdict: %d %s", code, out)
	}
	code, out = ts.call(t, keyT1, "GET", "/tenants/t1/leaks", nil)
	var leaks LeaksResponse
	if code != 200 || json.Unmarshal(out, &leaks) != nil || len(leaks.Leaks) != 1 {
		t.Fatalf("leaks: %d %s", code, out)
	}
	l := leaks.Leaks[0]
	if l.ScenarioID != "sdk-trip" || l.Spans != 3 || l.Ended != "root" || len(l.Agents) != 1 || l.Agents[0] != "agt_grpc" || !l.Blocked || l.Compliance == nil {
		t.Errorf("leak record: %+v", l)
	}
	if strings.Contains(string(out), "CANARY-SDK-2") {
		t.Errorf("/leaks shows a raw value: %s", out)
	}
}

// grpcExport sends one export with the raw OTLP/gRPC client, key in the
// metadata ("" sends none).
func grpcExport(t *testing.T, addr, key string, td ptrace.Traces, opts ...grpc.CallOption) (ptraceotlp.ExportResponse, error) {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if key != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
	}
	return ptraceotlp.NewGRPCClient(cc).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td), opts...)
}

// retryDelay is the RetryInfo delay of a status; 0 without one.
func retryDelay(err error) time.Duration {
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// TestOTLPGRPCAnswers: the gRPC receiver answers as the OTLP specification
// asks and as POST /v1/traces does: UNAUTHENTICATED without a valid key,
// PERMISSION_DENIED below the operator role, partial_success for spans of
// another tenant, RESOURCE_EXHAUSTED with a RetryInfo while the tenant
// holds maxPendingSpans spans, RESOURCE_EXHAUSTED above the body limit
// (compressed or not), and the receiver is off unless configured.
func TestOTLPGRPCAnswers(t *testing.T) {
	ts, addr := startGRPCServer(t, otlpConfig(t, grpcOn+"maxBodyBytes: 4096\n").withPending(2))
	if _, err := grpcExport(t, addr, "", leakyTrace("", 0x51)); status.Code(err) != codes.Unauthenticated {
		t.Errorf("no key: %v", err)
	}
	if _, err := grpcExport(t, addr, "wrong-key-0123456789abcdef", leakyTrace("", 0x51)); status.Code(err) != codes.Unauthenticated {
		t.Errorf("wrong key: %v", err)
	}
	if _, err := grpcExport(t, addr, keyT1View, leakyTrace("", 0x51)); status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "needs role operator") {
		t.Errorf("viewer key: %v", err)
	}
	resp, err := grpcExport(t, addr, keyT1Op, leakyTrace("t2", 0x52))
	if err != nil {
		t.Errorf("another tenant's spans: %v", err)
	} else if ps := resp.PartialSuccess(); ps.RejectedSpans() != 3 || !strings.Contains(ps.ErrorMessage(), "not the key's tenant") {
		t.Errorf("another tenant's spans: %d %q", ps.RejectedSpans(), ps.ErrorMessage())
	}
	resp, err = grpcExport(t, addr, keyT1Op, leakyTrace("", 0x53), grpc.UseCompressor(gzip.Name))
	if err != nil {
		t.Errorf("accepted export: %v", err)
	} else if ps := resp.PartialSuccess(); ps.RejectedSpans() != 0 || ps.ErrorMessage() != "" {
		t.Errorf("accepted export: %d %q", ps.RejectedSpans(), ps.ErrorMessage())
	}
	ts.otlp.waitScans()
	if code, out := ts.call(t, keyT1, "GET", "/tenants/t1/leaks", nil); code != 200 || !strings.Contains(string(out), `"traceId":"53010000000000000000000000000000"`) {
		t.Errorf("leaks after the gRPC export: %d %s", code, out)
	}

	// Above the body limit, compressed or not.
	big := otlpTraces("", 0x54, otlpSpan{1, 0, "root", map[string]any{"filler": strings.Repeat("x", 8000)}})
	if _, err := grpcExport(t, addr, keyT1Op, big); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("large export: %v", err)
	}
	if _, err := grpcExport(t, addr, keyT1Op, big, grpc.UseCompressor(gzip.Name)); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("large export, gzip: %v", err)
	}

	// Backpressure: two spans of a trace without its root fill the tenant.
	noRoot := otlpTraces("", 0x55, otlpSpan{2, 1, "execute_tool a", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "a", "gen_ai.agent.id": "agt_a"}},
		otlpSpan{3, 1, "execute_tool b", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "b", "gen_ai.agent.id": "agt_a"}})
	if _, err := grpcExport(t, addr, keyT1Op, noRoot); err != nil {
		t.Fatalf("first half-trace: %v", err)
	}
	_, err = grpcExport(t, addr, keyT1Op, noRoot)
	if status.Code(err) != codes.ResourceExhausted || retryDelay(err) != time.Second {
		t.Errorf("full tenant: %v (retry delay %s)", err, retryDelay(err))
	}
	// The same state as over HTTP: the HTTP receiver is held back too.
	if code, _, out := postOTLP(t, ts.base, keyT1Op, ctJSON, noRoot, false); code != 429 {
		t.Errorf("HTTP while the tenant is full: %d %s", code, out)
	}
	if _, err := grpcExport(t, addr, keyT2, otlpTraces("", 0x56, otlpSpan{1, 0, "root", nil})); err != nil {
		t.Errorf("another tenant is held back: %v", err)
	}
}

// TestOTLPGRPCStatus: backpressure answers carry a RetryInfo (OTLP clients
// retry RESOURCE_EXHAUSTED only with one), others none.
func TestOTLPGRPCStatus(t *testing.T) {
	for _, c := range []struct {
		http  int
		code  codes.Code
		retry time.Duration
	}{
		{503, codes.Unavailable, time.Second},
		{429, codes.ResourceExhausted, time.Second},
		{403, codes.PermissionDenied, 0},
		{500, codes.Internal, 0},
	} {
		err := grpcStatus(c.http, "m")
		if status.Code(err) != c.code || retryDelay(err) != c.retry || status.Convert(err).Message() != "m" {
			t.Errorf("%d: %v, retry %s", c.http, err, retryDelay(err))
		}
	}
}

// TestOTLPGRPCRecover: a call that panics is answered INTERNAL and logged;
// the process goes on.
func TestOTLPGRPCRecover(t *testing.T) {
	s := newServer(t, otlpConfig(t, ""))
	var log strings.Builder
	s.log = &log
	_, err := s.grpcRecover(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/x/Export"}, func(context.Context, any) (any, error) { panic("boom") })
	if status.Code(err) != codes.Internal || !strings.Contains(log.String(), "/x/Export: internal error: boom") {
		t.Errorf("panic: %v, log %q", err, log.String())
	}
	s.Close(context.Background())
}

// TestOTLPGRPCConfig: the receiver is off by default; a bad address is an
// error naming the field.
func TestOTLPGRPCConfig(t *testing.T) {
	s := newServer(t, otlpConfig(t, ""))
	if err := s.ListenOTLPGRPC(); err != nil || s.OTLPGRPCAddr() != nil {
		t.Errorf("off by default: %v %v", err, s.OTLPGRPCAddr())
	}
	s.Close(context.Background())
	_, err := resolveOTLP(&OTLPConfig{GRPC: &OTLPGRPCConfig{Listen: "4317"}}, "")
	if err == nil || !strings.Contains(err.Error(), "otlp.grpc.listen") {
		t.Errorf("bad address: %v", err)
	}
}
