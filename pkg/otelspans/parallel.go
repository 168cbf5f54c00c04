package otelspans

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// lineJob is one line of OTLP JSON lines being decoded by a decoder
// goroutine.
type lineJob struct {
	buf   []byte // the line's bytes (the slot's own buffer, reused)
	line  int
	spans []*Span
	err   error
	done  chan struct{} // one token when spans/err are set
}

// readOTLPLinesParallel is readOTLPLinesEach with the lines decoded by n
// goroutines: this goroutine reads the lines, hands each to a decoder, and
// passes the decoded spans to fn in line order, so fn sees what
// readOTLPLinesEach would show it, and a decoding error stops the read at
// the same line. Decoding with pdata is most of the cost of a span file;
// reading and grouping the lines are not.
func readOTLPLinesParallel(file string, br *bufio.Reader, n int, fn func(spans []*Span, line int) (bool, error)) ([]byte, error) {
	slots := make([]lineJob, 2*n)
	for i := range slots {
		slots[i].done = make(chan struct{}, 1)
	}
	jobs := make(chan *lineJob)
	defer close(jobs) // decoders busy with a line finish it into its slot, then stop
	for range n {
		go func() {
			c := newStrCache()
			for j := range jobs {
				j.spans, j.err = decodeOTLPDocCache(file, bytes.TrimSpace(j.buf), j.line, c)
				j.done <- struct{}{}
			}
		}()
	}
	head, queued := 0, 0
	// next hands the oldest queued line's spans to fn.
	next := func() (bool, error) {
		j := &slots[head]
		<-j.done
		head, queued = (head+1)%len(slots), queued-1
		spans, err := j.spans, j.err
		j.spans, j.err = nil, nil
		if err != nil {
			return false, err
		}
		return fn(spans, j.line)
	}
	var buf []byte
	decided := false
	for line := 1; ; line++ {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf[:0], chunk...)
		for err == bufio.ErrBufferFull {
			chunk, err = br.ReadSlice('\n')
			buf = append(buf, chunk...)
		}
		if err != nil && err != io.EOF {
			return nil, errAt(file, line, "cannot read: %v", err)
		}
		if doc := bytes.TrimSpace(buf); len(doc) > 0 {
			if !decided {
				decided = true
				if !json.Valid(doc) {
					return append([]byte(nil), buf...), nil
				}
			}
			if queued == len(slots) {
				if more, ferr := next(); !more || ferr != nil {
					return nil, ferr
				}
			}
			j := &slots[(head+queued)%len(slots)]
			j.buf = append(j.buf[:0], doc...)
			j.line = line
			queued++
			jobs <- j
		}
		if err == io.EOF {
			break
		}
	}
	for queued > 0 {
		if more, ferr := next(); !more || ferr != nil {
			return nil, ferr
		}
	}
	return nil, nil
}
