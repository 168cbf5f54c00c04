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
	// readHeaderTimeout cuts off clients that trickle their headers.
	readHeaderTimeout = 5 * time.Second
	// readTimeout bounds reading a whole request; endpoints with large
	// bodies extend it by the body's size (readJSONBody, minBodyRate).
	readTimeout = 10 * time.Second
	// maxHeaderBytes: larger request headers get a JSON 431.
	maxHeaderBytes = 64 << 10
)

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

// limitListener caps the connections open at once: Accept waits while max
// are open. Every accepted connection also rewrites net/http's own plain-text
// error answers (malformed requests, headers too large) into JSON errors.
type limitListener struct {
	net.Listener
	sem chan struct{}
}

func newLimitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		max = DefaultMaxConnections
	}
	return &limitListener{Listener: ln, sem: make(chan struct{}, max)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
	state   atomic.Int32 // http.ConnState, kept by activeConns.track
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
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
