package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestPlainErrorsBecomeJSONOnKeptAliveConnection: net/http's own answer to
// oversized headers is JSON also when it comes after a good request on the
// same connection.
func TestPlainErrorsBecomeJSONOnKeptAliveConnection(t *testing.T) {
	t.Parallel() // mostly waits: runs beside the other tests
	ts := startServer(t, testConfig(t, ""))
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first request: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 200<<10))
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 431 {
		t.Fatalf("second request: %v %v", resp, err)
	}
	var e ErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || e.Error == "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("431 is not a JSON error: %v %+v %q", err, e, resp.Header.Get("Content-Type"))
	}
}

func TestJSONPlainErrorOnlyRewritesNetHTTPErrors(t *testing.T) {
	plain := "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"
	out, ok := jsonPlainError([]byte(plain))
	if !ok || !strings.Contains(string(out), `{"error":"400 Bad Request"}`) || !strings.HasPrefix(string(out), "HTTP/1.1 400 Bad Request\r\n") {
		t.Errorf("%v %q", ok, out)
	}
	// A handler's answer: headers sorted, Connection before Content-Type.
	handler := "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nx"
	if _, ok := jsonPlainError([]byte(handler)); ok {
		t.Error("rewrote a handler's answer")
	}
	if _, ok := jsonPlainError([]byte("HTTP/1.1 200 OK\r\n")); ok {
		t.Error("rewrote a 200")
	}
}
