package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"golang.org/x/net/netutil"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // exporters may compress with gzip
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The OTLP/gRPC receiver (otlp.grpc.listen in server.yaml, off by
// default): opentelemetry.proto.collector.trace.v1.TraceService/Export on
// its own port, as an SDK's otlptracegrpc exporter or a Collector's otlp
// exporter sends it. It is POST /v1/traces over gRPC: the same keys
// (metadata "authorization: Bearer <key>", operator role), the same body
// limit and the same processing (otlpRefuse, otlpExport); answers follow
// the OTLP specification: partial_success for rejected spans,
// UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED and UNAVAILABLE
// with a RetryInfo when the client should come back later.

// grpcMaxStreams bounds the calls in progress on one connection; with
// maxConnections it bounds the exports held at once.
const grpcMaxStreams = 64

// otlpGRPC serves TraceService/Export.
type otlpGRPC struct {
	ptraceotlp.UnimplementedGRPCServer
	s *Server
}

// otlpGRPCRunner is the receiver's server and listener while it runs.
type otlpGRPCRunner struct {
	ln  net.Listener
	srv *grpc.Server
}

// ListenOTLPGRPC opens the OTLP/gRPC receiver's port (otlp.grpc.listen);
// nothing when it is off or already open. Serve calls it when the caller
// did not, so that a caller can report a busy port on its own.
func (s *Server) ListenOTLPGRPC() error {
	addr := s.otlp.set.grpcListen
	if addr == "" || s.grpc != nil {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("otlp.grpc.listen: cannot listen on %s: %w", addr, err)
	}
	maxConns := s.cfg.MaxConnections
	if maxConns <= 0 {
		maxConns = DefaultMaxConnections
	}
	s.grpc = &otlpGRPCRunner{ln: netutil.LimitListener(ln, maxConns), srv: s.newOTLPGRPCServer()}
	return nil
}

// OTLPGRPCAddr is the address the OTLP/gRPC receiver listens on; nil when
// it is off or not open yet.
func (s *Server) OTLPGRPCAddr() net.Addr {
	if s.grpc == nil {
		return nil
	}
	return s.grpc.ln.Addr()
}

// newOTLPGRPCServer builds the gRPC server: the key is checked before the
// message is read (the tap handle), messages above the body limit are
// refused (compressed or not: gRPC checks the size after decompression),
// and slow handshakes, idle connections and pings without a call are cut
// off as on the HTTP port.
func (s *Server) newOTLPGRPCServer() *grpc.Server {
	srv := grpc.NewServer(
		grpc.InTapHandle(s.otlpGRPCTap),
		grpc.ChainUnaryInterceptor(s.grpcRecover),
		grpc.MaxRecvMsgSize(int(s.otlpBodyLimit())),
		grpc.MaxConcurrentStreams(grpcMaxStreams),
		grpc.MaxHeaderListSize(maxHeaderBytes),
		grpc.ConnectionTimeout(s.headerTimeout()),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: idleTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
	)
	ptraceotlp.RegisterGRPCServer(srv, &otlpGRPC{s: s})
	return srv
}

// serveOTLPGRPC runs the receiver until stop is called; stop lets calls in
// progress finish until ctx ends, then closes every connection.
func (s *Server) serveOTLPGRPC() (stop func(ctx context.Context)) {
	g := s.grpc
	if g == nil {
		return func(context.Context) {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := g.srv.Serve(g.ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.logf("lf serve: OTLP/gRPC: %v", err)
		}
	}()
	s.logf("lf serve: OTLP/gRPC receiver on %s", g.ln.Addr())
	return func(ctx context.Context) {
		graceful := make(chan struct{})
		go func() {
			g.srv.GracefulStop()
			close(graceful)
		}()
		select {
		case <-graceful:
		case <-ctx.Done():
			g.srv.Stop()
			<-graceful
		}
		<-done
	}
}

// otlpGRPCTap authenticates a call from its metadata before its message is
// read, and refuses it as POST /v1/traces would (role, pending spans).
func (s *Server) otlpGRPCTap(ctx context.Context, info *tap.Info) (context.Context, error) {
	p, err := s.grpcPrincipal(info.Header.Get("authorization"))
	if err != nil {
		return ctx, err
	}
	if code, msg := s.otlpRefuse(p); code != 0 {
		return ctx, grpcStatus(code, msg)
	}
	return context.WithValue(ctx, principalKey{}, p), nil
}

// grpcRecover answers INTERNAL for a call that panicked and logs it, as
// the HTTP port's recoverer does: gRPC itself would end the process.
func (s *Server) grpcRecover(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if v := recover(); v != nil {
			s.logf("OTLP/gRPC %s: internal error: %v", info.FullMethod, v)
			resp, err = nil, grpcStatus(http.StatusInternalServerError, "internal error; see the server log")
		}
	}()
	return next(ctx, req)
}

// grpcPrincipal is the principal of the call's "authorization: Bearer
// <key>" metadata (its values), or an UNAUTHENTICATED status.
func (s *Server) grpcPrincipal(vals []string) (Principal, error) {
	const prefix = "bearer "
	if len(vals) != 1 || len(vals[0]) <= len(prefix) || !strings.EqualFold(vals[0][:len(prefix)], prefix) {
		return Principal{}, status.Error(codes.Unauthenticated, "missing bearer API key (metadata authorization: Bearer <key>)")
	}
	p, ok := s.keys.lookup(strings.TrimSpace(vals[0][len(prefix):]))
	if !ok {
		return Principal{}, status.Error(codes.Unauthenticated, "invalid API key")
	}
	return p, nil
}

// Export is TraceService/Export: the decoded request goes the way of POST
// /v1/traces.
func (g *otlpGRPC) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s := g.s
	p, ok := ctx.Value(principalKey{}).(Principal)
	if !ok { // the tap handle always sets it; never serve without a key
		return ptraceotlp.NewExportResponse(), status.Error(codes.Unauthenticated, "missing bearer API key")
	}
	rejected, why, err := s.otlpExport(ctx, p, req.Traces())
	if err != nil {
		if isUnavailable(err) {
			s.logf("OTLP/gRPC Export: store unavailable: %v", err)
			return ptraceotlp.NewExportResponse(), grpcStatus(http.StatusServiceUnavailable, "store unavailable; retry later")
		}
		s.logf("OTLP/gRPC Export: %v", err)
		return ptraceotlp.NewExportResponse(), grpcStatus(http.StatusInternalServerError, "internal error; see the server log")
	}
	resp := ptraceotlp.NewExportResponse()
	if rejected > 0 {
		ps := resp.PartialSuccess()
		ps.SetRejectedSpans(int64(rejected))
		ps.SetErrorMessage(why)
	}
	return resp, nil
}

// grpcStatus is the gRPC status of a receiver's HTTP answer, as the OTLP
// specification pairs them (grpcCode); backpressure (429, 503) carries a
// RetryInfo of one second, as HTTP carries Retry-After: without it OTLP
// clients do not retry RESOURCE_EXHAUSTED.
func grpcStatus(httpStatus int, msg string) error {
	st := status.New(codes.Code(grpcCode(httpStatus)), msg)
	if httpStatus == http.StatusTooManyRequests || httpStatus == http.StatusServiceUnavailable {
		if d, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Second)}); err == nil {
			st = d
		}
	}
	return st.Err()
}

// otlpGRPC checks otlp.grpc.listen in server.yaml: host:port, located.
func (c *configCheck) otlpGRPC() {
	o := c.cfg.OTLP
	if o == nil || o.GRPC == nil || o.GRPC.Listen == "" {
		return
	}
	if _, _, err := net.SplitHostPort(o.GRPC.Listen); err != nil {
		c.errorf("/otlp/grpc/listen", "not host:port (e.g. 127.0.0.1:4317): %q", o.GRPC.Listen)
	}
}
