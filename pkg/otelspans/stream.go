package otelspans

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"io"
	"os"
)

// Stream is Read handing each trace to fn as soon as it is complete, in
// the same order and with the same spans as Read; it stops when fn
// returns false. A trace is complete when no later line of the file
// holds one of its spans: reopen, when not nil, opens the file again for
// a first, cheap pass that finds the last line of each trace id (OTLP
// JSON lines only). Without it, or for other formats, every trace is
// held until the file is read, as Read does.
func Stream(file string, r io.Reader, f Format, reopen func() (io.ReadCloser, error), fn func(*Trace) bool) error {
	return StreamDecoders(file, r, f, reopen, 1, fn)
}

// StreamDecoders is Stream with the lines of OTLP JSON lines decoded by
// that many goroutines (the traces still reach fn in order, from the
// caller's goroutine); 1 decodes them in the caller's goroutine.
func StreamDecoders(file string, r io.Reader, f Format, reopen func() (io.ReadCloser, error), decoders int, fn func(*Trace) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if f == Auto {
		head, _ := br.Peek(16 << 10)
		f = Sniff(head)
	}
	if f != OTLPJSON || reopen == nil {
		traces, err := Read(file, br, f)
		if err != nil {
			return err
		}
		for _, t := range traces {
			if !fn(t) {
				return nil
			}
		}
		return nil
	}
	g := &streamGroup{file: file, noID: Stem(file), byID: map[string]*Trace{}, done: map[string]bool{}, fn: fn}
	// Without the first pass (the file cannot be opened again) every
	// trace is held to the end.
	index := indexTraceLines
	if decoders > 1 {
		index = indexTraceLinesSplit
	}
	idx, ierr := index(reopen)
	g.idx, g.ready = idx, ierr == nil
	var whole []byte
	var err error
	if decoders > 1 {
		whole, err = readOTLPLinesParallel(file, br, decoders, g.add)
	} else {
		whole, err = readOTLPLinesEach(file, br, g.add)
	}
	if err != nil || g.stopped {
		return err
	}
	if whole != nil {
		// Not JSON lines: one document, held whole as Read holds it.
		data, err := io.ReadAll(io.MultiReader(bytes.NewReader(whole), br))
		if err != nil {
			return errAt(file, 0, "cannot read: %v", err)
		}
		traces, err := Decode(file, data, f)
		if err != nil {
			return err
		}
		for _, t := range traces {
			if !fn(t) {
				return nil
			}
		}
		return nil
	}
	g.flush(-1)
	return nil
}

// streamGroup is Group over lines read one after another: the traces not
// yet handed over, in order of first appearance.
type streamGroup struct {
	file    string
	noID    string
	idx     traceLines
	ready   bool // the first pass was made: without it every trace is held
	stopped bool // fn said stop
	open    []*Trace
	byID    map[string]*Trace // the open traces
	done    map[string]bool   // the ids of the traces handed over
	fn      func(*Trace) bool
}

// add groups the spans of one line, then hands over the complete traces
// at the head of the order. A span of a trace already handed over (the
// file changed between the two passes) is an error.
func (g *streamGroup) add(spans []*Span, line int) (bool, error) {
	for _, s := range spans {
		id := s.TraceID
		if id == "" {
			id = g.noID
		}
		t := g.byID[id]
		if t == nil {
			if g.done[id] {
				return false, errAt(g.file, line, "a span of trace %s after the trace was read: the file changed while it was read", id)
			}
			t = &Trace{RunID: id, File: g.file, Line: s.Line}
			g.byID[id] = t
			g.open = append(g.open, t)
		}
		if t.ScenarioID == "" {
			t.ScenarioID = s.ResourceStr(ScenarioAttr)
		}
		t.Spans = append(t.Spans, s)
	}
	return g.flush(line), nil
}

// flush hands over the open traces, in order, while the first is complete
// after line (-1: the end of the file).
func (g *streamGroup) flush(line int) bool {
	n := 0
	for _, t := range g.open {
		if line >= 0 && (!g.ready || !g.idx.doneAfter(t, line, g.noID)) {
			break
		}
		n++
		delete(g.byID, t.RunID)
		g.done[t.RunID] = true
		if t.ScenarioID == "" {
			t.ScenarioID = t.RunID
		}
		if !g.fn(t) {
			g.stopped = true
			return false
		}
	}
	clear(g.open[:n])
	g.open = g.open[n:]
	return true
}

// traceLines is what the first pass learnt: the last line holding each
// trace id, and the last line it could not read with certainty (every
// trace is held past it).
type traceLines struct {
	last      map[string]int
	uncertain int
}

// doneAfter tells whether no line after line holds a span of t. A trace
// named after the file (spans without a trace id) or whose id the first
// pass did not find is held to the end.
func (x traceLines) doneAfter(t *Trace, line int, noID string) bool {
	if line < x.uncertain || t.RunID == noID {
		return false
	}
	last, ok := x.last[t.RunID]
	return ok && line >= last
}

// indexTraceLines reads the file once more, line by line as
// readOTLPLines does, and finds where each trace id last appears, from
// the bytes alone: a line's ids are the values of its "traceId" keys. A
// line where "traceId" or "trace_id" appears other than as such a key
// followed by 32 hex digits (spaced JSON, quoted text, the snake_case
// name, an id of another length, a printable ASCII character written as
// a \u escape, which a key could hide behind) is uncertain: nothing is
// handed over before it is read. Extra ids only hold traces longer.
func indexTraceLines(reopen func() (io.ReadCloser, error)) (traceLines, error) {
	rc, err := reopen()
	if err != nil {
		return traceLines{last: map[string]int{}}, err
	}
	defer rc.Close()
	x, _, err := indexLines(rc)
	return x, err
}

// splitIndexSize is the smallest file whose first pass indexTraceLinesSplit
// shares between two goroutines.
var splitIndexSize int64 = 8 << 20

// indexTraceLinesSplit is indexTraceLines reading the two halves of a
// large file (split at a line break) in two goroutines, for a caller that
// has the processors to spare; the result is the same.
func indexTraceLinesSplit(reopen func() (io.ReadCloser, error)) (traceLines, error) {
	rc, err := reopen()
	if err != nil {
		return traceLines{last: map[string]int{}}, err
	}
	defer rc.Close()
	f, ok := rc.(interface {
		io.ReaderAt
		Stat() (os.FileInfo, error)
	})
	var size, mid int64
	if ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	if size >= splitIndexSize {
		mid = lineAfter(f, size/2)
	}
	if mid <= 0 || mid >= size {
		x, _, err := indexLines(rc)
		return x, err
	}
	var x2 traceLines
	var err2 error
	done := make(chan struct{})
	go func() {
		defer close(done)
		x2, _, err2 = indexLines(io.NewSectionReader(f, mid, size-mid))
	}()
	x, n1, err := indexLines(io.NewSectionReader(f, 0, mid))
	<-done
	if err == nil {
		err = err2
	}
	// The second half's line 1 is line n1+1 of the file.
	for id, l := range x2.last {
		x.last[id] = l + n1
	}
	if x2.uncertain > 0 {
		x.uncertain = x2.uncertain + n1
	}
	return x, err
}

// lineAfter is the offset after the first line break at or after off, 0
// when there is none in the next megabyte.
func lineAfter(f io.ReaderAt, off int64) int64 {
	buf := make([]byte, 64<<10)
	for end := off + 1<<20; off < end; {
		n, err := f.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1
		}
		if err != nil {
			return 0
		}
		off += int64(n)
	}
	return 0
}

// indexLines is the first pass over r: the trace ids' last lines, and
// how many line breaks it read.
func indexLines(r io.Reader) (traceLines, int, error) {
	x := traceLines{last: map[string]int{}}
	br := bufio.NewReaderSize(r, 256<<10)
	var buf []byte
	for line := 1; ; line++ {
		chunk, err := br.ReadSlice('\n')
		doc := chunk
		if err == bufio.ErrBufferFull {
			buf = append(buf[:0], chunk...)
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				buf = append(buf, chunk...)
			}
			doc = buf
		}
		if err != nil && err != io.EOF {
			return x, line - 1, err
		}
		if !lineTraceIDs(doc, line, &x) {
			x.uncertain = line
		}
		if err == io.EOF {
			return x, line - 1, nil
		}
	}
}

// lineTraceIDs notes the line as the last of the trace ids of its
// "traceId" keys, left to right; false when it is not sure of them (the
// ids after the first doubt are then not noted). Only a "trace" followed
// by "Id" or "_id" matters, so the line is searched for the rarer 'I' and
// '_' (a line of text holds a 't' every twenty bytes), and each one found
// is checked for the "trace" before it; the nearer of the two is taken
// first, in the order a search for "trace" meets them.
func lineTraceIDs(doc []byte, line int, x *traceLines) bool {
	var raw [16]byte
	var id [32]byte
	var prev []byte // the id last noted (a line's spans mostly share one)
	from := 0       // where the text not yet read starts
	after := 0      // where the last id noted ends (0: the line's start)
	nextI, nextU := -1, -1
	for {
		// The next 'I' and '_' from from on (len(doc): none), each
		// searched for again only once it is passed.
		if nextI < from {
			nextI = indexByteFrom(doc, from, 'I')
		}
		if nextU < from {
			nextU = indexByteFrom(doc, from, '_')
		}
		p := min(nextI, nextU)
		if p == len(doc) {
			break
		}
		from = p + 1
		t := p - len("trace")
		if t < 0 || string(doc[t:p]) != "trace" {
			continue
		}
		if doc[p] == '_' {
			if p+3 <= len(doc) && string(doc[p+1:p+3]) == "id" {
				return false
			}
			continue
		}
		if p+2 > len(doc) || doc[p+1] != 'd' {
			continue
		}
		// "traceId":"<32 hex digits>", its quote not the end of the id
		// before it.
		rest := doc[p:]
		if t == after || doc[t-1] != '"' || len(rest) < 2+3+32+1 ||
			string(rest[:5]) != `Id":"` || rest[5+32] != '"' {
			return false
		}
		if h := rest[5 : 5+32]; !bytes.Equal(h, prev) {
			if _, err := hex.Decode(raw[:], h); err != nil {
				return false
			}
			hex.Encode(id[:], raw[:])
			x.last[string(id[:])] = line
			prev = h
		}
		after = p + 5 + 32 + 1
		from = after
	}
	return !asciiEscape(doc)
}

// indexByteFrom is the index of the first c in doc from i on, len(doc)
// when there is none.
func indexByteFrom(doc []byte, i int, c byte) int {
	if j := bytes.IndexByte(doc[i:], c); j >= 0 {
		return i + j
	}
	return len(doc)
}

// asciiEscape tells whether doc writes a printable ASCII character as a
// \u00XX escape (JSON encoders escape only control characters, and
// some everything above 0x7f).
func asciiEscape(doc []byte) bool {
	for {
		i := bytes.Index(doc, []byte(`\u00`))
		if i < 0 || i+6 > len(doc) {
			return false
		}
		if c := doc[i+4]; c >= '2' && c <= '7' {
			return true
		}
		doc = doc[i+4:]
	}
}
