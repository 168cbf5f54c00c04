package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/otelspans"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// POST /v1/traces: lf serve as an OTLP/HTTP receiver (docs/serve.md). An
// OpenTelemetry SDK exporter or a Collector's otlphttp exporter pointed at
// http://HOST:PORT with "Authorization: Bearer <tenant key>" (operator
// role) works unchanged. Tool and MCP spans become agent-risk events on the
// live path; spans are kept per trace until the trace ends (its root span
// arrives, or no span came for otlp.idleTimeout), then the trace is scanned
// with the tenant's AgentLeak config and vaults (leaks.go).

const (
	ctProto = "application/x-protobuf"
	ctJSON  = "application/json"
)

// otlpTraces is the handler of POST /v1/traces.
func (s *Server) otlpTraces(w http.ResponseWriter, r *http.Request) {
	// Without a Content-Type, answers are JSON and the body is read as
	// JSON when it starts with '{', else as protobuf.
	enc, sniff := ctJSON, true
	if ct := r.Header.Get("Content-Type"); ct != "" {
		enc, sniff = ctProto, false
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case err == nil && mt == ctJSON:
			enc = ctJSON
		case err == nil && mt == ctProto:
		default:
			dropBody(w, r)
			otlpError(w, enc, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: send %s or %s", clip(ct), ctProto, ctJSON))
			return
		}
	}
	p := principalFrom(r.Context())
	if status, msg := s.otlpRefuse(p); status != 0 {
		dropBody(w, r)
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		otlpError(w, enc, status, msg)
		return
	}
	body, status, msg := s.otlpBody(w, r)
	defer putBodyBuf(body)
	if status != 0 {
		otlpError(w, enc, status, msg)
		return
	}
	// An ExportTraceServiceRequest has the wire and JSON form of
	// TracesData (resource_spans = 1), which pdata decodes directly (the
	// gRPC receiver, otlp_grpc.go, gets it decoded by gRPC).
	var td ptrace.Traces
	var err error
	if enc == ctJSON && (!sniff || firstByte(body) == '{') {
		td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(body)
	} else {
		td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
	}
	if err != nil {
		otlpError(w, enc, http.StatusBadRequest, "not a valid OTLP ExportTraceServiceRequest: "+err.Error())
		return
	}
	rejected, why, err := s.otlpExport(r.Context(), p, td)
	if err != nil {
		if isUnavailable(err) {
			s.logf("%s %s: store unavailable: %v", r.Method, r.URL.Path, err)
			w.Header().Set("Retry-After", "1")
			otlpError(w, enc, http.StatusServiceUnavailable, "store unavailable; retry later")
			return
		}
		s.logf("%s %s: %v", r.Method, r.URL.Path, err)
		otlpError(w, enc, http.StatusInternalServerError, "internal error; see the server log")
		return
	}
	out := exportResponse(enc, rejected, why)
	w.Header().Set("Content-Type", enc)
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

// otlpRefuse says why the receivers (HTTP and gRPC) refuse a key's export
// before reading it: an HTTP status and a message, 0 when they do not.
func (s *Server) otlpRefuse(p Principal) (int, string) {
	if !p.Allows(RoleOperator) {
		return http.StatusForbidden, fmt.Sprintf("key %q has role %s; this needs role %s", p.Name, p.Role, RoleOperator)
	}
	if s.otlp.full(p) {
		return http.StatusTooManyRequests, "too many spans of unfinished traces held; retry later"
	}
	return 0, ""
}

// otlpExport is what both receivers do with a decoded export: spans sorted
// by tenant, fed to agent risk and filed under their traces. It returns the
// spans rejected and why (the first reason).
func (s *Server) otlpExport(ctx context.Context, p Principal, td ptrace.Traces) (int, string, error) {
	spans := otelspans.FromPdata(td, 0)
	accepted, rejected, why := s.otlpTenants(p, spans)
	_, err := s.otlpAccept(ctx, accepted, &rejected, &why)
	return rejected, why, err
}

// otlpBodyLimit is the largest export the receivers take, compressed or
// not: the events' body limit.
func (s *Server) otlpBodyLimit() int64 {
	limit := int64(maxEventsBody)
	if s.cfg.MaxBodyBytes > 0 && s.cfg.MaxBodyBytes < limit {
		limit = s.cfg.MaxBodyBytes
	}
	return limit
}

// otlpBody reads the body (gzip allowed) within the events' body limit,
// compressed and uncompressed; a non-zero status is the error to answer.
func (s *Server) otlpBody(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	limit := s.otlpBodyLimit()
	timeout := s.bodyTimeout(r.ContentLength)
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
	var src io.Reader = http.MaxBytesReader(w, r.Body, limit)
	switch ce := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); ce {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, http.StatusBadRequest, "gzip body: " + err.Error()
		}
		defer zr.Close()
		src = io.LimitReader(zr, limit+1)
	default:
		dropBody(w, r)
		return nil, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q: send gzip or none", clip(ce))
	}
	b, err := readBody(src, r.ContentLength, limit)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", mbe.Limit)
	case err != nil && isTimeout(err):
		w.Header().Set("Connection", "close")
		return nil, http.StatusRequestTimeout, fmt.Sprintf("body not received within %s", timeout)
	case err != nil:
		return nil, http.StatusBadRequest, "cannot read body: " + err.Error()
	case int64(len(b)) > limit:
		return nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("uncompressed body larger than %d bytes", limit)
	}
	return b, 0, ""
}

// bodyBufs are the buffers OTLP bodies are read into: pdata copies what it
// decodes, so a body's bytes are free again once it is decoded. Reading
// each body with io.ReadAll (a fresh, growing, cleared buffer per request)
// was a visible share of the receiver's CPU.
var bodyBufs sync.Pool

// maxPooledBody is the largest buffer kept for another body.
const maxPooledBody = 4 << 20

// readBody reads src into a pooled buffer, sized at once from the
// request's Content-Length when it has one (within limit).
func readBody(src io.Reader, length, limit int64) ([]byte, error) {
	buf, _ := bodyBufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	if length > 0 && length <= limit {
		buf.Grow(int(length) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(src)
	return buf.Bytes(), err
}

// putBodyBuf gives the buffer of a body read by readBody back (nil: none).
func putBodyBuf(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledBody {
		return
	}
	bodyBufs.Put(bytes.NewBuffer(b[:0]))
}

// otlpTenants sorts spans by tenant: lf.tenant_id (span, then resource),
// else the key's tenant. A tenant key's spans naming another tenant, and an
// admin key's spans naming none, are rejected.
func (s *Server) otlpTenants(p Principal, spans []*otelspans.Span) (map[string][]*otelspans.Span, int, string) {
	out := map[string][]*otelspans.Span{}
	rejected, why := 0, ""
	reject := func(msg string) {
		rejected++
		if why == "" {
			why = msg
		}
	}
	for _, sp := range spans {
		t := sp.Attrs.Str(otelspans.AttrTenant)
		if t == "" {
			t = sp.ResourceStr(otelspans.AttrTenant)
		}
		switch {
		case sp.TraceID == "":
			reject("span without a trace id")
			continue
		case t == "" && p.Admin:
			reject("an admin key's spans must name their tenant (resource attribute lf.tenant_id)")
			continue
		case t == "":
			t = p.Tenant
		case !p.CanAccess(t):
			reject(fmt.Sprintf("lf.tenant_id %q is not the key's tenant", clip(t)))
			continue
		}
		out[t] = append(out[t], sp)
	}
	return out, rejected, why
}

// otlpAccept turns each tenant's spans into agent-risk events (ingested on
// the live path, as POST .../events does) and into pending traces; traces
// whose root span arrived are queued for their scan (scanqueue.go).
func (s *Server) otlpAccept(ctx context.Context, byTenant map[string][]*otelspans.Span, rejected *int, why *string) (agentrisk.IngestResult, error) {
	var total agentrisk.IngestResult
	for tenant, spans := range byTenant {
		traces := otelspans.Group("otlp", spans, "")
		events, d := agentrisk.SpanEvents("span", traces, tenant)
		if len(d) > 0 {
			*rejected += len(d)
			if *why == "" {
				*why = d[0].Msg
			}
		}
		kept := events[:0]
		for _, ev := range events {
			if ev.Timestamp.Before(minEventTime) || ev.Timestamp.After(maxEventTime) {
				*rejected++
				if *why == "" {
					*why = fmt.Sprintf("span start %s is outside %d..%d", ev.Timestamp.Format(time.RFC3339), minEventTime.Year(), maxEventTime.Year()-1)
				}
				continue
			}
			kept = append(kept, ev)
		}
		if len(kept) > 0 {
			var res agentrisk.IngestResult
			var ticket liveTicket
			var err error
			// tenantlimits.go: the tenant's agents stay within its limit;
			// spans past it are rejected, not stored.
			check := func(ctx context.Context) error { return s.checkAgentLimit(ctx, tenant, kept) }
			runBulk(func() { res, ticket, err = s.ingestCommitChecked(ctx, kept, check) })
			s.waitLive(ticket)
			var le *limitError
			var fe *agentrisk.FutureEventError
			switch {
			case errors.As(err, &le):
				*rejected += len(kept)
				if *why == "" {
					*why = le.Error()
				}
				err = nil
			case errors.As(err, &fe):
				*rejected += len(kept)
				if *why == "" {
					*why = "span start " + fe.Error()
				}
				err = nil
			}
			if err != nil {
				return total, err
			}
			total.Events += res.Events
		}
		s.otlp.add(tenant, spans)
	}
	return total, nil
}

// otlpError answers an OTLP/HTTP error: a google.rpc.Status in the
// request's encoding.
func otlpError(w http.ResponseWriter, enc string, status int, msg string) {
	code := grpcCode(status)
	var body []byte
	if enc == ctJSON {
		body = fmt.Appendf(nil, `{"code":%d,"message":%s}`, code, strconv.Quote(msg))
	} else {
		body = statusProto(code, msg)
	}
	w.Header().Set("Content-Type", enc)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// grpcCode is the gRPC status code of an HTTP status, as the OTLP
// specification pairs them.
func grpcCode(status int) int {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		return 3 // INVALID_ARGUMENT
	case http.StatusUnauthorized:
		return 16 // UNAUTHENTICATED
	case http.StatusForbidden:
		return 7 // PERMISSION_DENIED
	case http.StatusTooManyRequests:
		return 8 // RESOURCE_EXHAUSTED
	case http.StatusServiceUnavailable:
		return 14 // UNAVAILABLE
	case http.StatusRequestTimeout:
		return 4 // DEADLINE_EXCEEDED
	}
	return 13 // INTERNAL
}

// statusProto encodes google.rpc.Status{code, message}.
func statusProto(code int, msg string) []byte {
	b := []byte{0x08}
	b = appendVarint(b, uint64(code))
	b = append(b, 0x12)
	b = appendVarint(b, uint64(len(msg)))
	return append(b, msg...)
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// diagText makes an error with located diagnostics one line of text.
func diagText(err error) error {
	var de *diag.Error
	if errors.As(err, &de) && len(de.Diags) > 0 {
		var parts []string
		for _, d := range de.Diags.Errors() {
			parts = append(parts, d.String())
		}
		return errors.New(strings.Join(parts, "; "))
	}
	return err
}

// exportResponse encodes an ExportTraceServiceResponse: empty when every
// span was accepted, else partial_success {rejected_spans, error_message}.
func exportResponse(enc string, rejected int, why string) []byte {
	if enc == ctJSON {
		if rejected == 0 {
			return []byte("{}")
		}
		return fmt.Appendf(nil, `{"partialSuccess":{"rejectedSpans":"%d","errorMessage":%s}}`, rejected, strconv.Quote(why))
	}
	if rejected == 0 {
		return nil
	}
	ps := []byte{0x08}
	ps = appendVarint(ps, uint64(rejected))
	ps = append(ps, 0x12)
	ps = appendVarint(ps, uint64(len(why)))
	ps = append(ps, why...)
	out := []byte{0x0a}
	out = appendVarint(out, uint64(len(ps)))
	return append(out, ps...)
}
