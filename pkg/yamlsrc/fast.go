package yamlsrc

import (
	"bytes"
	"strconv"
)

// The fast path reads the block-style subset of YAML that large generated
// files use (mappings and lists by indentation, plain, single- and
// double-quoted scalars without escapes, ASCII, no comments) straight into
// values, with no syntax tree: goccy's tree costs about 90 times the file's
// size in memory. Anything outside the subset makes it give up, and Parse
// falls back to goccy, so both always agree (TestFastAgreesWithGoccy and
// FuzzFast check it). Positions are not kept while reading; the first
// question about one re-reads the text and records them all.

// errFallback stops the fast path.
type fallback struct{}

type fastParser struct {
	data []byte
	off  int // start of the next unread line

	// The current line: its number, the column (0-based) where its content
	// starts (after a "- " consumed by a list, the item's column), and the
	// content end (without the newline).
	line, col, start, end int
	eof                   bool

	rec *Doc // when set, record positions and key order

	interned map[string]string // keys and short strings, stored once

	// each, when set, takes every item of the list under the top-level
	// key eachKey as soon as it is read; the list keeps what it returns.
	each    func(i int, item any) any
	eachKey string
}

// intern returns b as a string, sharing one copy of each short string: a
// large file repeats the same keys and names many times.
func (p *fastParser) intern(b []byte) string {
	if len(b) > 32 {
		return string(b)
	}
	if s, ok := p.interned[string(b)]; ok {
		return s
	}
	if p.interned == nil {
		p.interned = map[string]string{}
	}
	if len(p.interned) >= 1<<16 {
		return string(b)
	}
	s := string(b)
	p.interned[s] = s
	return s
}

// parseFast reads data with the fast path; ok is false when the file is
// outside the subset.
func parseFast(data []byte) (v any, ok bool) {
	return parseFastEach(data, "", nil)
}

// parseFastEach is parseFast handing each item of the list under the
// top-level key to each (see ParseEach).
func parseFastEach(data []byte, key string, each func(int, any) any) (v any, ok bool) {
	if !fastSubset(data) {
		return nil, false
	}
	p := &fastParser{data: data, each: each, eachKey: key}
	return p.run()
}

func fastSubset(data []byte) bool {
	for _, b := range data {
		if b >= 0x80 || b == '#' || b == '\t' || b == '\r' || b == '\\' {
			return false
		}
	}
	return true
}

func (p *fastParser) run() (v any, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(fallback); !is {
				panic(r)
			}
			v, ok = nil, false
		}
	}()
	p.advance()
	if p.eof {
		return nil, false // let goccy decide what an empty file is
	}
	if p.col != 0 {
		panic(fallback{})
	}
	v = p.block("", 0)
	if !p.eof {
		panic(fallback{})
	}
	return v, true
}

// advance moves to the next line with content.
func (p *fastParser) advance() {
	for p.off < len(p.data) {
		s := p.off
		e := bytes.IndexByte(p.data[s:], '\n')
		if e < 0 {
			e = len(p.data)
			p.off = e
		} else {
			e += s
			p.off = e + 1
		}
		p.line++
		i := s
		for i < e && p.data[i] == ' ' {
			i++
		}
		if i == e {
			continue
		}
		p.start, p.end, p.col = i, e, i-s
		if p.data[p.end-1] == ' ' {
			panic(fallback{}) // goccy places some values after trailing spaces oddly
		}
		return
	}
	p.eof = true
}

// keyPtr and indexPtr are the pointers of a mapping's entry and a list's
// item, which only recording positions needs (p.rec): reading values builds
// none, so a large file makes no garbage of pointers.
func (p *fastParser) keyPtr(ptr, key string) string {
	if p.rec == nil {
		return ""
	}
	return ptr + "/" + EscapePointer(key)
}

func (p *fastParser) indexPtr(ptr string, i int) string {
	if p.rec == nil {
		return ""
	}
	return ptr + "/" + strconv.Itoa(i)
}

func (p *fastParser) text() []byte { return p.data[p.start:p.end] }

func (p *fastParser) isItem() bool {
	t := p.text()
	return len(t) >= 2 && t[0] == '-' && t[1] == ' '
}

func (p *fastParser) pos() Pos { return Pos{p.line, p.col + 1} }

// block reads the mapping or list whose lines start at column col.
func (p *fastParser) block(ptr string, col int) any {
	if p.rec != nil {
		if _, ok := p.rec.pos[ptr]; !ok {
			p.rec.pos[ptr] = p.pos()
		}
	}
	if p.isItem() {
		return p.list(ptr, col, nil)
	}
	return p.mapping(ptr, col)
}

func (p *fastParser) list(ptr string, col int, each func(int, any) any) any {
	var out []any
	keep := func(v any) {
		if each != nil {
			v = each(len(out), v)
		}
		out = append(out, v)
	}
	for !p.eof && p.col == col && p.isItem() {
		// Consume "- " and the spaces after it; the item starts there.
		t := p.text()
		k := 1
		for k < len(t) && t[k] == ' ' {
			k++
		}
		if k > 2 || k == len(t) {
			panic(fallback{})
		}
		p.start += k
		p.col += k
		ip := p.indexPtr(ptr, len(out))
		if p.rec != nil {
			p.rec.pos[ip] = p.pos()
		}
		if p.isItem() || keyEnd(p.text()) > 0 {
			keep(p.block(ip, p.col))
			continue
		}
		v := p.value(ip, p.text(), p.col+1)
		p.advance()
		if !p.eof && p.col > col {
			panic(fallback{}) // a multi-line scalar
		}
		keep(v)
	}
	if !p.eof && p.col > col {
		panic(fallback{})
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func (p *fastParser) mapping(ptr string, col int) any {
	out := map[string]any{}
	var keys []string
	for !p.eof && p.col == col && !p.isItem() {
		t := p.text()
		ke := keyEnd(t)
		if ke <= 0 {
			panic(fallback{})
		}
		key := p.keyText(t[:ke])
		if _, dup := out[key]; dup {
			panic(fallback{})
		}
		kp := p.pos()
		cp := p.keyPtr(ptr, key)
		rest := ke + 1
		for rest < len(t) && t[rest] == ' ' {
			rest++
		}
		if p.rec != nil {
			keys = append(keys, key)
			p.rec.keyPos[cp] = kp
		}
		if rest < len(t) {
			if p.rec != nil {
				p.rec.pos[cp] = Pos{p.line, p.col + rest + 1}
				if isFlowStart(t[rest]) {
					p.rec.pos[cp] = kp // as goccy places a collection: at its key
				}
			}
			out[key] = p.value(cp, t[rest:], p.col+rest+1)
			p.advance()
			if !p.eof && p.col > col {
				panic(fallback{}) // a multi-line scalar
			}
			continue
		}
		if p.rec != nil {
			p.rec.pos[cp] = kp
		}
		p.advance()
		// Only the top-level mapping starts at column 0; recording
		// positions (p.rec) never takes each.
		var each func(int, any) any
		if col == 0 && p.each != nil && p.rec == nil && key == p.eachKey {
			each = p.each
		}
		switch {
		case !p.eof && p.col > col && each != nil && p.isItem():
			out[key] = p.list(cp, p.col, each) // as block does, but with each
		case !p.eof && p.col > col:
			out[key] = p.block(cp, p.col)
		case !p.eof && p.col == col && p.isItem():
			out[key] = p.list(cp, col, each)
		default:
			panic(fallback{}) // an empty value
		}
	}
	if !p.eof && p.col > col {
		panic(fallback{})
	}
	if p.rec != nil {
		p.rec.order[ptr] = keys
	}
	return out
}

// keyEnd returns the index of the ':' ending a simple key at the start of
// t, or -1.
func keyEnd(t []byte) int {
	if len(t) == 0 {
		return -1
	}
	i := 0
	switch t[0] {
	case '"', '\'':
		j := bytes.IndexByte(t[1:], t[0])
		if j < 0 {
			return -1
		}
		i = j + 2
	default:
		for i < len(t) && plainKeyByte(t[i], i == 0) {
			i++
		}
		if i == 0 {
			return -1
		}
	}
	if i < len(t) && t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ') {
		return i
	}
	return -1
}

func (p *fastParser) keyText(k []byte) string {
	if k[0] == '"' || k[0] == '\'' {
		if bytes.IndexByte(k[1:len(k)-1], '\'') >= 0 || bytes.IndexByte(k[1:len(k)-1], '"') >= 0 {
			panic(fallback{})
		}
		return p.intern(k[1 : len(k)-1])
	}
	if special(k) {
		panic(fallback{})
	}
	return p.intern(k)
}

func plainKeyByte(b byte, first bool) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b == '_':
		return true
	case b >= '0' && b <= '9', b == '-', b == '.':
		return !first
	}
	return false
}

// special is a plain word YAML may read as something other than a string.
func special(w []byte) bool {
	if len(w) > 5 {
		return false
	}
	for _, s := range [...]string{"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"} {
		if bytes.EqualFold(w, []byte(s)) {
			return true
		}
	}
	return false
}

// value reads the scalar or flow collection that fills the rest of a line,
// t, whose first byte is at the 1-based column base.
func (p *fastParser) value(ptr string, t []byte, base int) any {
	if !isFlowStart(t[0]) {
		return p.scalar(t)
	}
	i, v := p.flowNode(ptr, t, 0, base)
	if i != len(t) {
		panic(fallback{}) // more after the collection, or it goes on on the next line
	}
	return v
}

func isFlowStart(b byte) bool { return b == '{' || b == '[' }

// The fast path reads flow collections that open and close on one line
// (`metrics: {accuracy: 0.8}`, `- {task_specification_key: t, ...}`,
// `tags: [a, b]`), nested, with the scalars of the block subset; a plain
// scalar inside one is a single word. goccy's tree of a flow-style file
// costs about 160 times its size, so a large file written in flow style
// made lf add use gigabytes.

func skipSpaces(t []byte, i int) int {
	for i < len(t) && t[i] == ' ' {
		i++
	}
	return i
}

// flowNode reads the node starting at t[i] inside a flow collection and
// returns the index after it.
func (p *fastParser) flowNode(ptr string, t []byte, i, base int) (int, any) {
	switch t[i] {
	case '{':
		return p.flowMap(ptr, t, i, base)
	case '[':
		return p.flowSeq(ptr, t, i, base)
	}
	j := i
	if t[i] == '"' || t[i] == '\'' {
		k := bytes.IndexByte(t[i+1:], t[i])
		if k < 0 {
			panic(fallback{})
		}
		j = i + k + 2
	} else {
		for j < len(t) && t[j] != ',' && t[j] != '}' && t[j] != ']' && t[j] != ' ' {
			j++
		}
	}
	if j == i {
		panic(fallback{}) // an empty value
	}
	return j, p.scalar(t[i:j])
}

// flowEnd skips the spaces after an entry of a flow collection closed by
// end and returns the index of the next entry (more true) or after end.
func flowEnd(t []byte, j int, end byte) (int, bool) {
	j = skipSpaces(t, j)
	switch {
	case j < len(t) && t[j] == ',':
		j = skipSpaces(t, j+1)
		if j >= len(t) || t[j] == end {
			panic(fallback{}) // a trailing comma, or the collection goes on on the next line
		}
		return j, true
	case j < len(t) && t[j] == end:
		return j + 1, false
	}
	panic(fallback{})
}

func (p *fastParser) flowMap(ptr string, t []byte, i, base int) (int, any) {
	out := map[string]any{}
	var keys []string
	i = skipSpaces(t, i+1)
	more := i >= len(t) || t[i] != '}'
	if !more {
		i++
	}
	for more {
		ke := -1
		if i < len(t) {
			ke = keyEnd(t[i:])
		}
		if ke <= 0 || i+ke+1 >= len(t) {
			panic(fallback{})
		}
		key := p.keyText(t[i : i+ke])
		if _, dup := out[key]; dup {
			panic(fallback{})
		}
		cp := p.keyPtr(ptr, key)
		kp := Pos{p.line, base + i}
		j := skipSpaces(t, i+ke+1)
		if j >= len(t) {
			panic(fallback{})
		}
		if p.rec != nil {
			keys = append(keys, key)
			p.rec.keyPos[cp] = kp
			p.rec.pos[cp] = Pos{p.line, base + j}
			if isFlowStart(t[j]) {
				p.rec.pos[cp] = kp
			}
		}
		var v any
		j, v = p.flowNode(cp, t, j, base)
		out[key] = v
		i, more = flowEnd(t, j, '}')
	}
	if p.rec != nil {
		p.rec.order[ptr] = keys
	}
	return i, out
}

func (p *fastParser) flowSeq(ptr string, t []byte, i, base int) (int, any) {
	out := []any{}
	i = skipSpaces(t, i+1)
	more := i >= len(t) || t[i] != ']'
	if !more {
		i++
	}
	for more {
		if i >= len(t) {
			panic(fallback{})
		}
		ip := p.indexPtr(ptr, len(out))
		if p.rec != nil {
			p.rec.pos[ip] = Pos{p.line, base + i}
		}
		j, v := p.flowNode(ip, t, i, base)
		out = append(out, v)
		i, more = flowEnd(t, j, ']')
	}
	return i, out
}

// scalar reads one scalar that fills the rest of a line.
func (p *fastParser) scalar(t []byte) any {
	switch t[0] {
	case '"', '\'':
		if len(t) < 2 || t[len(t)-1] != t[0] || bytes.IndexByte(t[1:len(t)-1], t[0]) >= 0 {
			panic(fallback{})
		}
		return p.intern(t[1 : len(t)-1])
	}
	switch string(t) {
	case "null", "Null", "NULL", "~":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	if t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
		return number(t)
	}
	for i, b := range t {
		switch {
		case plainKeyByte(b, i == 0):
		case i > 0 && (b == '/' || (b == ' ' && t[i-1] != ' ')):
		default:
			panic(fallback{})
		}
	}
	if special(t) {
		panic(fallback{})
	}
	return p.intern(t)
}

// number reads -?digits or -?digits.digits; anything else falls back.
func number(t []byte) any {
	s := t
	if s[0] == '-' {
		s = s[1:]
	}
	dot := -1
	for i, b := range s {
		switch {
		case b >= '0' && b <= '9':
		case b == '.' && dot < 0:
			dot = i
		default:
			panic(fallback{})
		}
	}
	if len(s) == 0 || dot == 0 || dot == len(s)-1 {
		panic(fallback{})
	}
	if dot < 0 {
		if len(s) > 1 && s[0] == '0' {
			panic(fallback{})
		}
		n, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil {
			panic(fallback{})
		}
		return n
	}
	if dot > 1 && s[0] == '0' {
		panic(fallback{})
	}
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		panic(fallback{})
	}
	return f
}

// record re-reads a fast-path document to fill its positions and key order.
func (d *Doc) record() {
	d.pos = map[string]Pos{}
	d.keyPos = map[string]Pos{}
	d.order = map[string][]string{}
	p := &fastParser{data: d.src, rec: d}
	p.run()
	d.src = nil
}
