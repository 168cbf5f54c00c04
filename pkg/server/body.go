package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
)

// Limits of request bodies (documented in docs/serve.md, "Security: a hostile tenant").
// Every body is checked against them by scanBody before anything else
// decodes it, so that no parser ever sees a deep, wide or huge value.
const (
	maxBodyDepth  = 16       // nesting of objects and arrays
	maxIDBytes    = 256      // ids and names: printable, no '<' or '>'
	maxTextBytes  = 4096     // any other string (URLs, resources, ...)
	maxListItems  = 256      // lists inside an object (allowed methods, recipients, ...)
	maxEvents     = 100_000  // events in one POST .../events
	maxSmallBody  = 64 << 10 // verdict, risk config, alert rule
	maxEventsBody = 16 << 20 // default for events (maxBodyBytes in server.yaml)
)

// The verdict cache (state.go) keeps agents by tenant and agent id, both
// from requests. Ids are at most maxIDBytes, so an entry takes at most
// maxCacheEntryBytes (two ids, the 192-byte key and entry, map overhead),
// and the cache at most verdictCacheBytes.
const (
	verdictCacheBytes  = 64 << 20
	maxCacheEntryBytes = 2*maxIDBytes + 320
)

// bodyReadTimeout is how long reading a small request body may take by
// default (timeouts.body in server.yaml): a client that trickles its body
// is cut off after it. Larger bodies get another second per minBodyRate
// bytes of their Content-Length, up to maxBodyTime (Server.bodyTimeout).
const (
	bodyReadTimeout = 5 * time.Second
	minBodyRate     = 1 << 20
	maxBodyTime     = 30 * time.Second
)

// bodyError is a problem with a request body, named by JSON pointer.
type bodyError struct {
	Pointer string // JSON pointer into the body
	Msg     string
}

func (e *bodyError) Error() string {
	if e.Pointer == "" {
		return e.Msg
	}
	return e.Pointer + ": " + e.Msg
}

// shape is what scanBody allows at one place of a body: the exact keys of an
// object, the element of an array, the size of a string.
type shape struct {
	keys     map[string]*shape // object with these exact keys
	anyKey   bool              // object with any keys (a map), values elem
	elem     *shape            // array element or map value
	maxItems int               // array
	maxBytes int               // string
	id       bool              // string: printable, no '<' or '>'
	scalar   string            // "string", "number" or "boolean": no object or array here
}

// shapeOf derives the shape of a JSON value decoded into t: struct fields by
// their exact json names, slices as arrays of at most maxListItems, every
// string at most maxTextBytes. over adjusts places by JSON pointer pattern
// ("/to/*", "*" for any array index).
func shapeOf(t reflect.Type, path string, over map[string]func(*shape)) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	sh := &shape{}
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeOf(time.Time{}) {
			sh.maxBytes, sh.scalar = 64, "string"
			break
		}
		sh.keys = map[string]*shape{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				for k, v := range shapeOf(f.Type, path, over).keys {
					sh.keys[k] = v
				}
				continue
			}
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			sh.keys[name] = shapeOf(f.Type, path+"/"+name, over)
		}
	case reflect.Slice, reflect.Array:
		sh.maxItems = maxListItems
		sh.elem = shapeOf(t.Elem(), path+"/*", over)
	case reflect.Map:
		sh.anyKey = true
		sh.elem = shapeOf(t.Elem(), path+"/*", over)
	case reflect.String:
		sh.maxBytes, sh.scalar = maxTextBytes, "string"
	case reflect.Bool:
		sh.scalar = "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		sh.scalar = "number"
	default: // interfaces: any JSON value, still within the general limits
		sh.maxBytes = maxTextBytes
	}
	if f := over[path]; f != nil {
		f(sh)
	}
	return sh
}

func asID(s *shape)               { s.maxBytes, s.id = maxIDBytes, true }
func maxItems(n int) func(*shape) { return func(s *shape) { s.maxItems = n } }
func omitKeys(keys ...string) func(*shape) {
	return func(s *shape) {
		for _, k := range keys {
			delete(s.keys, k)
		}
	}
}

// The shapes of the API bodies.
var (
	verdictShape = shapeOf(reflect.TypeOf(VerdictRequest{}), "", map[string]func(*shape){
		"/tenantId": asID, "/agentId": asID, "/method": asID,
	})
	riskConfigShape = shapeOf(reflect.TypeOf(agentrisk.RiskConfig{}), "", map[string]func(*shape){
		"/tenantId": asID, "/criticalAllowedMethods/*": asID, "/highImpactTools/*": asID,
	})
	ruleShape = shapeOf(reflect.TypeOf(alerts.Rule{}), "", map[string]func(*shape){
		"":    omitKeys("createdAt"),
		"/id": asID, "/tenantId": asID, "/name": asID, "/tier": asID, "/channel": asID, "/secretName": asID,
		"/to": maxItems(alerts.MaxRecipients), "/to/*": asID,
	})
	eventsShape = shapeOf(reflect.TypeOf([]agentrisk.Event{}), "", map[string]func(*shape){
		"":             maxItems(maxEvents),
		"/*/tenant_id": asID, "/*/agent_id": asID, "/*/agent_name": asID, "/*/session_id": asID,
		"/*/method": asID, "/*/tool": asID, "/*/decision": asID, "/*/rule": asID, "/*/request_id": asID,
	})
)

// frame is one open object or array of scanBody.
type frame struct {
	sh      *shape
	array   bool
	index   int
	key     string
	wantKey bool
	seen    map[string]bool
}

// scanBody checks data against sh before any decoder sees it: JSON syntax,
// nesting depth, exact and known keys (no case folding, no duplicates),
// string sizes and printable ids, array sizes. With stream, data may hold a
// sequence of values (NDJSON), each checked against sh.elem and named by its
// position. Its cost is linear in the body, whatever its shape.
func scanBody(data []byte, sh *shape, stream bool) *bodyError {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	s := &bodyScan{stream: stream}
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			return s.end()
		}
		if err != nil {
			return &bodyError{Pointer: s.pointer(true), Msg: jsonSyntaxMsg(err, dec.InputOffset())}
		}
		if _, ok := tok.(string); ok {
			// encoding/json replaces invalid UTF-8 with U+FFFD, which would
			// make two different ids one: the raw bytes are checked.
			if raw := data[off:dec.InputOffset()]; !utf8.Valid(raw) {
				return s.invalidUTF8(off, raw)
			}
		}
		if len(s.stack) == 0 && s.values > 0 && !stream {
			return &bodyError{Msg: "more than one JSON value in the body"}
		}
		cur := sh
		if stream && sh.elem != nil {
			cur = sh.elem
		}
		var top *frame
		if len(s.stack) > 0 {
			top = s.stack[len(s.stack)-1]
			cur = top.childShape()
		}
		if top != nil && !top.array && top.wantKey {
			if e := s.key(top, tok); e != nil {
				return e
			}
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			s.close()
			continue
		}
		if e := s.value(sh, cur, top, tok); e != nil {
			return e
		}
	}
}

// invalidUTF8 locates the first invalid byte of raw, a string token that
// starts at byte off of the body (a key names the object holding it).
func (s *bodyScan) invalidUTF8(off int64, raw []byte) *bodyError {
	i := 0
	for i < len(raw) {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	top := len(s.stack) > 0 && s.stack[len(s.stack)-1].wantKey && !s.stack[len(s.stack)-1].array
	return &bodyError{Pointer: s.pointer(!top), Msg: fmt.Sprintf("not valid UTF-8 at byte %d (JSON is UTF-8; invalid bytes are refused, not replaced)", off+int64(i))}
}

// bodyScan is the state of one scanBody call: the open objects and arrays
// and the number of complete top-level values.
type bodyScan struct {
	stack  []*frame
	values int
	stream bool
}

// pointer is the JSON pointer of the current place; with leaf, it includes
// the key or index of the value being read in the innermost frame.
func (s *bodyScan) pointer(leaf bool) string {
	var b strings.Builder
	if s.stream {
		b.WriteString("/" + strconv.Itoa(s.values))
	}
	for i, f := range s.stack {
		last := i == len(s.stack)-1
		switch {
		case f.array && (!last || leaf):
			b.WriteString("/" + strconv.Itoa(f.index))
		case !f.array && !f.wantKey && (!last || leaf):
			b.WriteString("/" + escapePointer(f.key))
		}
	}
	return b.String()
}

// end checks the body at its end: no value left open, at least one value.
func (s *bodyScan) end() *bodyError {
	if len(s.stack) > 0 {
		return &bodyError{Pointer: s.pointer(true), Msg: "not valid JSON: the body ends inside a value"}
	}
	if s.values == 0 {
		return &bodyError{Msg: "empty body: expected JSON"}
	}
	return nil
}

// close ends the innermost object or array, a value of its parent.
func (s *bodyScan) close() {
	s.stack = s.stack[:len(s.stack)-1]
	afterValue(s.stack, &s.values)
}

// key reads tok where object top expects a key (or its end): no duplicate,
// known to the shape, at most maxIDBytes.
func (s *bodyScan) key(top *frame, tok json.Token) *bodyError {
	if d, ok := tok.(json.Delim); ok && d == '}' {
		s.close()
		return nil
	}
	key, _ := tok.(string)
	top.key, top.wantKey = key, false
	if top.seen == nil {
		top.seen = map[string]bool{}
	}
	if top.seen[key] {
		return &bodyError{Pointer: s.pointer(true), Msg: "duplicate key"}
	}
	top.seen[key] = true
	if top.sh != nil && !top.sh.anyKey && top.sh.keys != nil {
		if _, ok := top.sh.keys[key]; !ok {
			return &bodyError{Pointer: s.pointer(true), Msg: unknownKeyMsg(key, top.sh)}
		}
	}
	if len(key) > maxIDBytes {
		return &bodyError{Pointer: s.pointer(false), Msg: fmt.Sprintf("a key is longer than %d bytes", maxIDBytes)}
	}
	return nil
}

// value reads tok, a value of shape cur inside top (nil at the top level):
// item and value counts, then an opening object or array, or a string's size
// and characters.
func (s *bodyScan) value(sh, cur *shape, top *frame, tok json.Token) *bodyError {
	if top != nil && top.array && top.sh != nil && top.sh.maxItems > 0 && top.index >= top.sh.maxItems {
		return &bodyError{Pointer: s.pointer(false), Msg: fmt.Sprintf("more than %d items", top.sh.maxItems)}
	}
	if s.stream && top == nil && sh.maxItems > 0 && s.values >= sh.maxItems {
		return &bodyError{Msg: fmt.Sprintf("more than %d values", sh.maxItems)}
	}
	switch v := tok.(type) {
	case json.Delim: // '{' or '['
		return s.open(cur, v)
	case string:
		if e := s.checkString(cur, v); e != nil {
			return e
		}
	}
	afterValue(s.stack, &s.values)
	return nil
}

// open checks that an object or array may start here (shape, depth) and
// opens its frame.
func (s *bodyScan) open(cur *shape, v json.Delim) *bodyError {
	if cur != nil && cur.scalar != "" {
		what := "an object"
		if v == '[' {
			what = "an array"
		}
		return &bodyError{Pointer: s.pointer(true), Msg: fmt.Sprintf("expected a %s, got %s", cur.scalar, what)}
	}
	if cur != nil && v == '[' && (cur.keys != nil || cur.anyKey) {
		return &bodyError{Pointer: s.pointer(true), Msg: "expected an object, got an array"}
	}
	if cur != nil && v == '{' && cur.elem != nil && !cur.anyKey {
		return &bodyError{Pointer: s.pointer(true), Msg: "expected an array, got an object"}
	}
	if len(s.stack) >= maxBodyDepth {
		return &bodyError{Pointer: s.pointer(true), Msg: fmt.Sprintf("nested deeper than %d levels", maxBodyDepth)}
	}
	s.stack = append(s.stack, &frame{sh: cur, array: v == '[', wantKey: v == '{'})
	return nil
}

// checkString checks a string value's size and, for ids, its characters.
func (s *bodyScan) checkString(cur *shape, v string) *bodyError {
	limit := maxTextBytes
	if cur != nil && cur.maxBytes > 0 {
		limit = cur.maxBytes
	}
	if len(v) > limit {
		return &bodyError{Pointer: s.pointer(true), Msg: fmt.Sprintf("longer than %d bytes", limit)}
	}
	if cur != nil && cur.id {
		if msg := checkPrintable(v); msg != "" {
			return &bodyError{Pointer: s.pointer(true), Msg: msg}
		}
	}
	return nil
}

// childShape is the shape of the next value inside f.
func (f *frame) childShape() *shape {
	if f.sh == nil {
		return nil
	}
	if f.array || f.sh.anyKey {
		return f.sh.elem
	}
	return f.sh.keys[f.key]
}

// afterValue moves the enclosing frame past a finished value.
func afterValue(stack []*frame, values *int) {
	if len(stack) == 0 {
		*values++
		return
	}
	f := stack[len(stack)-1]
	if f.array {
		f.index++
	} else {
		f.wantKey = true
	}
}

func unknownKeyMsg(key string, sh *shape) string {
	if _, ok := sh.keys["secretName"]; ok && (key == "secret" || key == "secretEnv") {
		return fmt.Sprintf("unknown key %q: rules name a secret the server config declares for the tenant, with secretName", key)
	}
	for k := range sh.keys {
		if strings.EqualFold(k, key) {
			return fmt.Sprintf("unknown key %q (keys are case-sensitive: did you mean %q?)", clip(key), k)
		}
	}
	return fmt.Sprintf("unknown key %q", clip(key))
}

// checkPrintable is the rule for ids: valid UTF-8, printable characters
// only (no control characters, NUL or line breaks) and no '<' or '>'.
func checkPrintable(s string) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for _, r := range s {
		if r == utf8.RuneError { // what a decoder makes of invalid UTF-8 or a lone surrogate escape
			return "holds U+FFFD (the replacement character): ids must be valid UTF-8 as sent"
		}
		if !unicode.IsPrint(r) && r != ' ' {
			return fmt.Sprintf("holds the non-printable character %U", r)
		}
		if r == '<' || r == '>' {
			return "holds '<' or '>'"
		}
	}
	return ""
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(clip(s))
}

// clip shortens a string echoed in a message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// jsonSyntaxMsg says what is wrong with JSON that does not parse; it never
// calls it YAML.
func jsonSyntaxMsg(err error, off int64) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of the body"
	}
	return fmt.Sprintf("not valid JSON at byte %d: %s (bodies are JSON; YAML is not accepted)", off, msg)
}

// yamlTypes are the media types of YAML bodies, answered with 415.
var yamlTypes = map[string]bool{"application/yaml": true, "application/x-yaml": true, "text/yaml": true, "text/x-yaml": true}

// readJSONBody reads a body of at most limit bytes within bodyReadTimeout
// and checks it against sh (ndjson: the body may also be a sequence of
// sh's elements, one per line, instead of one array). On a problem it has
// answered: 413 too large, 415 a YAML media type, 408 too slow, 400 with
// the field otherwise.
func (s *Server) readJSONBody(w http.ResponseWriter, r *http.Request, limit int64, sh *shape, ndjson bool) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil && yamlTypes[mt] {
			writeError(w, http.StatusUnsupportedMediaType, "bodies are JSON; YAML ("+mt+") is not accepted", "")
			return nil, false
		}
	}
	if s.cfg.MaxBodyBytes > 0 && s.cfg.MaxBodyBytes < limit {
		limit = s.cfg.MaxBodyBytes
	}
	timeout := s.bodyTimeout(r.ContentLength)
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
	b, err := readSized(http.MaxBytesReader(w, r.Body, limit), min(r.ContentLength, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", mbe.Limit), "")
		case isTimeout(err):
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestTimeout, fmt.Sprintf("body not received within %s", timeout), "")
		default:
			writeError(w, http.StatusBadRequest, "cannot read body: "+err.Error(), "")
		}
		return nil, false
	}
	stream := ndjson && firstByte(b) != '['
	if quickScan(b, sh, stream) { // scanfast.go: the common case without allocating
		return b, true
	}
	if be := scanBody(b, sh, stream); be != nil {
		writeError(w, http.StatusBadRequest, "invalid body: "+be.Error(), be.Pointer)
		return nil, false
	}
	return b, true
}

// readSized reads r to the end into a buffer of the announced size n (the
// request's Content-Length, at most the limit) instead of growing one from
// 512 bytes: an ingest body of 500 events (130 KB) allocated twice its size
// in copies before. n <= 0 (unknown) reads as io.ReadAll does.
func readSized(r io.Reader, n int64) ([]byte, error) {
	if n <= 0 {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, n+1) // one spare byte: the read that sees the end needs no growth
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// firstByte is the first byte of b that is not white space or a BOM.
func firstByte(b []byte) byte {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

// checkPathIDs applies the id rule to the ids in the path (tenant, agent,
// rule): 400 naming the parameter otherwise.
func checkPathIDs(w http.ResponseWriter, r *http.Request) bool {
	for _, name := range []string{"tenantId", "agentId", "ruleId"} {
		v := r.PathValue(name)
		if v == "" {
			continue
		}
		msg := checkPrintable(v)
		if len(v) > maxIDBytes {
			msg = fmt.Sprintf("longer than %d bytes", maxIDBytes)
		}
		if msg != "" {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("invalid path: %s: %s", name, msg), name)
			return false
		}
	}
	return true
}

// Event timestamps outside these bounds are refused with 400: the store and
// the scoring work in Unix time, and year 1 or 9999 is a client's mistake.
var (
	minEventTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxEventTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)
