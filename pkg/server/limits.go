package server

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Connection and header limits (documented in docs/serve.md, "Security: a
// hostile tenant"). Serve applies them to its http.Server and listener.
const (
	// DefaultMaxConnections caps the connections open at once; more wait in
	// the kernel's accept queue (maxConnections in server.yaml).
	DefaultMaxConnections = 512
	// readHeaderTimeout cuts off clients that trickle their headers
	// (timeouts.header in server.yaml).
	readHeaderTimeout = 5 * time.Second
	// readTimeout bounds reading a whole request; endpoints with large
	// bodies extend it by the body's size (readJSONBody, minBodyRate)
	// (timeouts.request).
	readTimeout = 10 * time.Second
	// maxHeaderBytes: larger request headers get a JSON 431.
	maxHeaderBytes = 64 << 10
	// idleTimeout closes keep-alive connections idle this long; at the
	// connection cap the one idle longest is closed at once (limitListener).
	idleTimeout = time.Minute
)

// orDefault is d, or def when d is not set.
func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// headerTimeout is how long a client may take to send its headers.
func (s *Server) headerTimeout() time.Duration {
	return orDefault(s.cfg.HeaderTimeout, readHeaderTimeout)
}

// requestTimeout is how long a client may take to send a whole request
// with a small body.
func (s *Server) requestTimeout() time.Duration {
	return orDefault(s.cfg.RequestTimeout, readTimeout)
}

// bodyTimeout is how long a client may take to send a body of n bytes
// (its Content-Length; unknown is 0): the body timeout plus a second per
// minBodyRate bytes, at most maxBodyTime (or the body timeout, if larger).
func (s *Server) bodyTimeout(n int64) time.Duration {
	base := orDefault(s.cfg.BodyTimeout, bodyReadTimeout)
	return min(base+time.Duration(max(n, 0)/minBodyRate)*time.Second, max(maxBodyTime, base))
}

// guard answers, before routing, what the mux would answer in plain text or
// HTML: an unclean path (the mux's redirect) gets a JSON 307 to the clean
// one, oversized headers a JSON 431. It also marks every answer as JSON the
// browser must not sniff.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Content-Type-Options"] = nosniff // a shared slice: no allocation per request
		if n := headerBytes(r); n > maxHeaderBytes {
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("request headers of %d bytes; at most %d", n, maxHeaderBytes), "")
			return
		}
		if r.RequestURI == "*" {
			serverWide(w, r)
			return
		}
		if p := r.URL.Path; p != "" && p != "/" {
			clean := path.Clean(p)
			if strings.HasSuffix(p, "/") && clean != "/" {
				clean += "/"
			}
			if clean != p {
				u := *r.URL
				u.Path, u.RawPath = clean, ""
				w.Header().Set("Location", u.RequestURI())
				writeError(w, http.StatusTemporaryRedirect, "the path is not in canonical form; see Location", "")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

var nosniff = []string{"nosniff"}

// serverWide answers the request target "*" (RFC 9110 7.1, asterisk-form):
// OPTIONS * asks what the server supports in general, answered 200 with the
// methods in Allow; any other method with "*" is a malformed request (400).
func serverWide(w http.ResponseWriter, r *http.Request) {
	dropBody(w, r)
	const allow = "DELETE, GET, HEAD, POST, PUT"
	if r.Method == http.MethodOptions {
		w.Header().Set("Allow", allow)
		writeJSON(w, http.StatusOK, map[string]any{"allow": strings.Split(allow, ", "), "openapi": "/openapi.json"})
		return
	}
	writeError(w, http.StatusBadRequest, fmt.Sprintf("the request target * is only for OPTIONS, not %s", r.Method), "")
}

func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + 12
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// takesBody lists the routes that read a request body; the others drop any
// body they are sent (dropBody).
var takesBody = map[string]bool{
	"POST /verdict":                        true,
	"PUT /tenants/{tenantId}/risk-config":  true,
	"POST /tenants/{tenantId}/events":      true,
	"POST /tenants/{tenantId}/alert-rules": true,
	"POST /v1/traces":                      true,
}

// dropBody makes sure an answer given without reading the body goes out at
// once and closes the connection, instead of waiting for a slow client's
// body to arrive (net/http reads up to 256 KB of an unread body before it
// answers, to reuse the connection).
func dropBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 {
		return
	}
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// limitListener caps the connections open at once. A connection accepted
// while max are open waits for a slot; if some of the open ones are idle
// keep-alive connections (between requests), the one idle longest is closed
// to make room, so idle connections never starve new ones (a client of an
// evicted connection dials again, as it does after the idle timeout). Every
// accepted connection also rewrites net/http's own plain-text error answers
// (malformed requests, headers too large) into JSON errors.
type limitListener struct {
	net.Listener
	sem   chan struct{}
	idle  chan struct{} // a connection turned idle (wakes an Accept waiting for a slot)
	done  chan struct{} // closed by Close
	mu    sync.Mutex
	conns map[*limitConn]struct{}

	closeOnce sync.Once
}

func newLimitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		max = DefaultMaxConnections
	}
	return &limitListener{Listener: ln, sem: make(chan struct{}, max), idle: make(chan struct{}, 1), done: make(chan struct{}), conns: map[*limitConn]struct{}{}}
}

func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case l.sem <- struct{}{}:
			return l.track(c), nil
		default:
		}
		evicted, wait := l.evictIdle(time.Now())
		if evicted {
			continue // its Close freed a slot
		}
		// Every slot is busy: wait for one to free, to turn idle, or for
		// the oldest idle connection to be idle long enough.
		var old <-chan time.Time
		var timer *time.Timer
		if wait > 0 {
			timer = time.NewTimer(wait)
			old = timer.C
		}
		got := false
		select {
		case l.sem <- struct{}{}:
			got = true
		case <-l.idle:
		case <-old:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
		if timer != nil {
			timer.Stop()
		}
		if got {
			return l.track(c), nil
		}
	}
}

// evictMinIdle is how long a connection must have been idle before it is
// closed for a new one: a client may be about to reuse a connection it just
// got an answer on (and a POST it sent there as the server closed it would
// fail), much less one idle for a second.
const evictMinIdle = time.Second

// Close stops accepting, also in an Accept waiting for a slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// track wraps an accepted connection that holds a slot.
func (l *limitListener) track(c net.Conn) *limitConn {
	lc := &limitConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	return lc
}

// evictIdle closes the connection idle longest if it has been idle for
// evictMinIdle, which frees its slot, and reports whether it did; when the
// oldest idle connection is younger, wait is how long until it is not.
func (l *limitListener) evictIdle(now time.Time) (evicted bool, wait time.Duration) {
	l.mu.Lock()
	var oldest *limitConn
	for c := range l.conns {
		if http.ConnState(c.state.Load()) == http.StateIdle && (oldest == nil || c.idleSince.Load() < oldest.idleSince.Load()) {
			oldest = c
		}
	}
	l.mu.Unlock()
	if oldest == nil {
		return false, 0
	}
	if age := now.Sub(time.Unix(0, oldest.idleSince.Load())); age < evictMinIdle {
		return false, evictMinIdle - age
	}
	// Claim it: a request that began meanwhile made it active and keeps it.
	if !oldest.state.CompareAndSwap(int32(http.StateIdle), int32(http.StateClosed)) {
		return false, 0
	}
	oldest.Close()
	return true, 0
}

type limitConn struct {
	net.Conn
	l         *limitListener
	once      sync.Once
	state     atomic.Int32 // http.ConnState, kept by activeConns.track
	idleSince atomic.Int64 // Unix nanoseconds of the last turn to idle
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		<-c.l.sem
	})
	return err
}

// turnedIdle wakes an Accept waiting for a slot: this connection waits
// for its next request and may be evicted.
func (c *limitConn) turnedIdle() {
	select {
	case c.l.idle <- struct{}{}:
	default:
	}
}

// plainErrorTail is how net/http's server writes the answers it gives
// without a handler (see net/http.(*conn).serve).
var plainErrorTail = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

// Write passes the server's writes on, except net/http's own plain-text
// error answers (written in one piece, on a fresh connection or after
// earlier requests of a kept-alive one), which become JSON. Handler answers
// never match: their headers are written sorted, Connection before
// Content-Type.
func (c *limitConn) Write(p []byte) (int, error) {
	if out, ok := jsonPlainError(p); ok {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// jsonPlainError rewrites one of net/http's plain-text error answers
// ("HTTP/1.1 431 Request Header Fields Too Large\r\n...\r\n\r\n431 ...")
// into the same status with a JSON error body.
func jsonPlainError(p []byte) ([]byte, bool) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 4")) && !bytes.HasPrefix(p, []byte("HTTP/1.1 5")) {
		return nil, false
	}
	i := bytes.Index(p, plainErrorTail)
	if i < 0 {
		return nil, false
	}
	status := string(p[len("HTTP/1.1 "):i])
	code, err := strconv.Atoi(strings.SplitN(status, " ", 2)[0])
	if err != nil {
		return nil, false
	}
	msg := strings.TrimSpace(string(p[i+len(plainErrorTail):]))
	if msg == "" {
		msg = status
	}
	body := fmt.Sprintf(`{"error":%s}`, strconv.Quote(msg))
	if code == http.StatusRequestHeaderFieldsTooLarge {
		body = fmt.Sprintf(`{"error":"request headers larger than %d bytes"}`, maxHeaderBytes)
	}
	return []byte(fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s\n", status, len(body)+1, body)), true
}
