// Package yamlsrc is lf's one loader for YAML (and JSON) files: it parses a
// document into plain Go values while keeping, for every JSON pointer, the
// line and column it came from and the comments written on it. Diagnostics,
// schema validation and the comment-keeping export all build on it.
package yamlsrc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/lfcli/lf/pkg/diag"
)

// Pos is a 1-based line and column.
type Pos struct{ Line, Col int }

// Comment holds the comments written on one node: the full-line comments
// above it and the comment at the end of its line, without the leading '#'.
type Comment struct {
	Head []string `json:"head,omitempty"`
	Line string   `json:"line,omitempty"`
}

// Doc is one parsed document.
type Doc struct {
	File  string // the name used in diagnostics
	Value any    // map[string]any, []any, string, int64, float64, bool or nil

	pos      map[string]Pos      // pointer -> position used in messages
	keyPos   map[string]Pos      // pointer -> position of the mapping key, for entries
	order    map[string][]string // pointer of a mapping -> its keys as written
	comments map[string]*Comment
	starts   []nodeStart // non-flow nodes in document order, for comment placement

	src  []byte    // a fast-path document's text, until its positions are recorded
	once sync.Once // records them on the first question
}

// lazy records the positions of a fast-path document once.
func (d *Doc) lazy() {
	d.once.Do(func() {
		if d.src != nil {
			d.record()
		}
	})
}

type nodeStart struct {
	ptr   string
	line  int
	depth int
}

// Pos returns the position of the node at pointer, or of its nearest
// ancestor that has one (an error about a missing property points at the
// object that lacks it).
func (d *Doc) Pos(pointer string) (line, col int) {
	d.lazy()
	for {
		if p, ok := d.pos[pointer]; ok {
			return p.Line, p.Col
		}
		if pointer == "" {
			return 0, 0
		}
		i := strings.LastIndexByte(pointer, '/')
		if i < 0 {
			return 0, 0
		}
		pointer = pointer[:i]
	}
}

// KeyPos returns the position of the mapping key of the entry at pointer,
// falling back to Pos.
func (d *Doc) KeyPos(pointer string) (line, col int) {
	d.lazy()
	if p, ok := d.keyPos[pointer]; ok {
		return p.Line, p.Col
	}
	return d.Pos(pointer)
}

// Errorf returns an error diagnostic located at pointer.
func (d *Doc) Errorf(pointer, format string, args ...any) diag.Diagnostic {
	l, c := d.Pos(pointer)
	return diag.Diagnostic{File: d.File, Line: l, Col: c, Pointer: pointer, Msg: fmt.Sprintf(format, args...)}
}

// Warnf returns a warning diagnostic located at pointer.
func (d *Doc) Warnf(pointer, format string, args ...any) diag.Diagnostic {
	x := d.Errorf(pointer, format, args...)
	x.Severity = diag.SevWarning
	return x
}

// Keys returns the keys of the mapping at pointer in the order written.
func (d *Doc) Keys(pointer string) []string {
	d.lazy()
	return d.order[pointer]
}

// Comments returns the comments of the nodes at or below prefix, keyed by
// the pointer relative to prefix ("" is the node itself).
func (d *Doc) Comments(prefix string) map[string]Comment {
	out := map[string]Comment{}
	for p, c := range d.comments {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			out[strings.TrimPrefix(p, prefix)] = *c
		}
	}
	return out
}

// Get returns the value at pointer.
func (d *Doc) Get(pointer string) (any, bool) {
	if pointer == "" {
		return d.Value, true
	}
	cur := d.Value
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = UnescapePointer(tok)
		switch v := cur.(type) {
		case map[string]any:
			x, ok := v[tok]
			if !ok {
				return nil, false
			}
			cur = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Decode decodes the value at pointer ("" for the whole document) into v
// through encoding/json.
func (d *Doc) Decode(pointer string, v any) error {
	x, ok := d.Get(pointer)
	if !ok {
		return fmt.Errorf("%s: no value at %q", d.File, pointer)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// EscapePointer escapes one JSON pointer token.
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// UnescapePointer undoes EscapePointer.
func UnescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

type posError interface {
	GetToken() *token.Token
	GetMessage() string
}

// Parse parses data (YAML or JSON) named file. An empty document gives a nil
// Value. Syntax errors, duplicate keys and values JSON cannot hold are
// returned as located diagnostics; Parse never panics.
func Parse(file string, data []byte) (doc *Doc, diags diag.List) {
	return parse(file, data, true)
}

// ParseEach is Parse for a large file whose top-level mapping holds a long
// list under key: when the fast reader takes the file (streamed is true),
// each is called with every item of that list as soon as the item is read,
// in order, and the list keeps what each returns in its place (nil lets the
// item's values go before the next is read). The document's positions and
// key order are those of the file as written, whatever each returns. When
// streamed is false, the file was read as Parse reads it, with every item
// in the list, and whatever each was given must be forgotten: the fast
// reader may have handed over items before it gave up.
func ParseEach(file string, data []byte, key string, each func(i int, item any) any) (doc *Doc, diags diag.List, streamed bool) {
	doc, diags = parseWith(file, data, true, key, each)
	return doc, diags, doc.src != nil
}

func parse(file string, data []byte, fast bool) (doc *Doc, diags diag.List) {
	return parseWith(file, data, fast, "", nil)
}

func parseWith(file string, data []byte, fast bool, key string, each func(int, any) any) (doc *Doc, diags diag.List) {
	doc = &Doc{
		File:     file,
		pos:      map[string]Pos{},
		keyPos:   map[string]Pos{},
		order:    map[string][]string{},
		comments: map[string]*Comment{},
	}
	defer func() {
		if r := recover(); r != nil {
			diags = append(diags, diag.Diagnostic{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("cannot parse YAML: %v", r)})
			doc.Value = nil
		}
	}()
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		data = data[3:]
	}
	data = normaliseLineBreaks(data)
	if d := checkUTF8(file, data); d != nil {
		return doc, diag.List{*d}
	}
	if d := checkDepth(file, data, MaxDepth); d != nil {
		return doc, diag.List{*d}
	}
	if !fast {
		each = nil
	}
	if v, ok := parseFastEach(data, key, each); fast && ok {
		doc.Value, doc.src = v, data
		return doc, nil
	}
	f, err := parser.ParseBytes(data, parser.ParseComments)
	if err != nil {
		d := diag.Diagnostic{File: file, Line: 1, Col: 1, Msg: "YAML syntax error: " + err.Error()}
		if pe, ok := err.(posError); ok {
			d.Msg = "YAML syntax error: " + pe.GetMessage()
			if tk := pe.GetToken(); tk != nil && tk.Position != nil {
				d.Line, d.Col = tk.Position.Line, tk.Position.Column
			}
		}
		return doc, diag.List{d}
	}
	c := &converter{doc: doc, anchors: map[string]any{}}
	var bodies []ast.Node
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			bodies = append(bodies, d.Body)
		}
	}
	if len(bodies) > 1 {
		tk := bodies[1].GetToken()
		return doc, diag.List{{File: file, Line: tk.Position.Line, Col: tk.Position.Column, Msg: "a file holds one YAML document; split the others into their own files"}}
	}
	if len(bodies) == 1 {
		doc.Value = c.node(bodies[0], "", 0, false)
	}
	c.placeComments(string(data))
	return doc, c.diags
}

// normaliseLineBreaks turns CRLF and lone CR line breaks into LF, as YAML
// reads them (YAML 1.2, 5.4: line breaks are normalised to LF in scalar
// content). goccy/go-yaml keeps a CR in multi-line quoted scalars and counts
// lines wrongly after them, so the one loader gives the parser LF text:
// values are those of the LF file, and lines and columns (a CR ends a line,
// it is never in one) are unchanged. Text without a CR is returned as is.
func normaliseLineBreaks(data []byte) []byte {
	i := bytes.IndexByte(data, '\r')
	if i < 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	out = append(out, data[:i]...)
	for ; i < len(data); i++ {
		c := data[i]
		if c == '\r' {
			c = '\n'
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
		}
		out = append(out, c)
	}
	return out
}

type converter struct {
	doc     *Doc
	anchors map[string]any
	diags   diag.List
}

func (c *converter) errAt(n ast.Node, ptr, format string, args ...any) {
	tk := n.GetToken()
	d := diag.Diagnostic{File: c.doc.File, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
	if tk != nil && tk.Position != nil {
		d.Line, d.Col = tk.Position.Line, tk.Position.Column
	}
	c.diags = append(c.diags, d)
}

func tokenPos(n ast.Node) Pos {
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{}
	}
	return Pos{tk.Position.Line, tk.Position.Column}
}

// startPos is where a node starts in the text: a mapping starts at its
// first key, not at its first ':'.
func startPos(n ast.Node) Pos {
	switch v := n.(type) {
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			return tokenPos(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return tokenPos(v.Key)
	case *ast.AnchorNode:
		return tokenPos(v)
	case *ast.TagNode:
		return tokenPos(v)
	}
	return tokenPos(n)
}

// node converts one YAML node at JSON pointer ptr to a Go value (nil, bool,
// int64, float64, string, []any or map[string]any), recording its position.
func (c *converter) node(n ast.Node, ptr string, depth int, inFlow bool) any {
	if n == nil {
		return nil
	}
	if _, ok := c.doc.pos[ptr]; !ok {
		c.doc.pos[ptr] = startPos(n)
	}
	switch v := n.(type) {
	case *ast.NullNode:
		return nil
	case *ast.BoolNode:
		return v.Value
	case *ast.IntegerNode:
		return integer(v)
	case *ast.FloatNode:
		return v.Value
	case *ast.InfinityNode, *ast.NanNode:
		c.errAt(n, ptr, "%s is not a finite number", n.GetToken().Value)
		return nil
	case *ast.StringNode:
		return c.str(v, ptr)
	case *ast.LiteralNode:
		if v.Value == nil {
			return ""
		}
		return v.Value.Value
	case *ast.TagNode:
		return c.node(v.Value, ptr, depth, inFlow)
	case *ast.AnchorNode:
		val := c.node(v.Value, ptr, depth, inFlow)
		if v.Name != nil {
			c.anchors[v.Name.GetToken().Value] = val
		}
		return val
	case *ast.AliasNode:
		return c.alias(v, ptr)
	case *ast.MappingValueNode:
		return c.mapping([]*ast.MappingValueNode{v}, ptr, depth, inFlow || v.IsFlowStyle)
	case *ast.MappingNode:
		return c.mapping(v.Values, ptr, depth, inFlow || v.IsFlowStyle)
	case *ast.SequenceNode:
		return c.sequence(v, ptr, depth, inFlow || v.IsFlowStyle)
	case *ast.MappingKeyNode:
		return c.node(v.Value, ptr, depth, inFlow)
	case *ast.DocumentNode:
		return c.node(v.Body, ptr, depth, inFlow)
	case *ast.CommentNode, *ast.CommentGroupNode:
		return nil
	}
	c.errAt(n, ptr, "unsupported YAML node %s", n.Type())
	return nil
}

// integer is an integer scalar as an int64, or a float64 when it is beyond
// the int64 range.
func integer(v *ast.IntegerNode) any {
	switch x := v.Value.(type) {
	case int64:
		return x
	case uint64:
		if x > math.MaxInt64 {
			return float64(x)
		}
		return int64(x)
	}
	return v.Value
}

// str is a string scalar; a plain (unquoted) one written as a number is a
// float64, and an error when it is not finite.
func (c *converter) str(v *ast.StringNode, ptr string) any {
	if tk := v.GetToken(); tk != nil && tk.Type == token.StringType && plainNumber.MatchString(v.Value) {
		f, err := strconv.ParseFloat(v.Value, 64)
		if err != nil || math.IsInf(f, 0) {
			c.errAt(v, ptr, "%s is not a finite number", v.Value)
			return nil
		}
		return f
	}
	return v.Value
}

// alias is the value of the anchor an alias names, and an error when no
// anchor before it has that name.
func (c *converter) alias(v *ast.AliasNode, ptr string) any {
	name := ""
	if v.Value != nil {
		name = v.Value.GetToken().Value
	}
	val, ok := c.anchors[name]
	if !ok {
		c.errAt(v, ptr, "unknown alias *%s", name)
	}
	return val
}

// sequence converts a list, recording the position of each item (and, in
// block style, where it starts, for the depth of later lines).
func (c *converter) sequence(v *ast.SequenceNode, ptr string, depth int, flow bool) any {
	out := make([]any, 0, len(v.Values))
	for i, item := range v.Values {
		p := ptr + "/" + strconv.Itoa(i)
		c.doc.pos[p] = startPos(item)
		if !flow {
			c.doc.starts = append(c.doc.starts, nodeStart{p, startPos(item).Line, depth + 1})
		}
		out = append(out, c.node(item, p, depth+1, flow))
	}
	return out
}

func (c *converter) mapping(values []*ast.MappingValueNode, ptr string, depth int, flow bool) any {
	out := make(map[string]any, len(values))
	keys := make([]string, 0, len(values))
	for _, mv := range values {
		if mv == nil || mv.Key == nil {
			continue
		}
		if _, isMerge := mv.Key.(*ast.MergeKeyNode); isMerge {
			if m, ok := c.node(mv.Value, ptr, depth, flow).(map[string]any); ok {
				for k, x := range m {
					if _, exists := out[k]; !exists {
						out[k] = x
						keys = append(keys, k)
					}
				}
			}
			continue
		}
		key := keyString(mv.Key)
		p := ptr + "/" + EscapePointer(key)
		kp := tokenPos(mv.Key)
		if _, dup := out[key]; dup {
			c.errAt(mv.Key, p, "duplicate key %q", key)
			continue
		}
		c.doc.keyPos[p] = kp
		if isScalar(mv.Value) {
			c.doc.pos[p] = tokenPos(mv.Value)
		} else {
			c.doc.pos[p] = kp
		}
		if !flow {
			c.doc.starts = append(c.doc.starts, nodeStart{p, kp.Line, depth + 1})
		}
		keys = append(keys, key)
		out[key] = c.node(mv.Value, p, depth+1, flow)
	}
	c.doc.order[ptr] = keys
	return out
}

func isScalar(n ast.Node) bool {
	switch v := n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode, nil:
		return false
	case *ast.AnchorNode:
		return isScalar(v.Value)
	case *ast.TagNode:
		return isScalar(v.Value)
	}
	return true
}

func keyString(k ast.MapKeyNode) string {
	switch v := ast.Node(k).(type) {
	case *ast.MappingKeyNode:
		if v.Value != nil {
			return v.Value.GetToken().Value
		}
	case *ast.StringNode:
		return v.Value
	}
	if tk := k.GetToken(); tk != nil {
		return tk.Value
	}
	return k.String()
}

// placeComments assigns every comment of the text to a node by position:
// a comment after code on a line belongs to the deepest node starting on that
// line; full-line comments belong to the shallowest node starting on the next
// line that has code. Export writes them back in the same places, so this
// assignment is stable across export and re-load.
func (c *converter) placeComments(src string) {
	if !strings.Contains(src, "#") || len(c.doc.starts) == 0 {
		return
	}
	tokens := lexer.Tokenize(src)
	codeLines := map[int]bool{}
	type cmt struct {
		line int
		text string
	}
	var comments []cmt
	for _, tk := range tokens {
		if tk.Position == nil {
			continue
		}
		if tk.Type == token.CommentType {
			comments = append(comments, cmt{tk.Position.Line, strings.TrimRight(tk.Value, " \t\r")})
			continue
		}
		// A multi-line scalar covers several lines; its first line is enough.
		codeLines[tk.Position.Line] = true
	}
	if len(comments) == 0 {
		return
	}
	// First and deepest node starting on each line.
	first := map[int]nodeStart{}
	deepest := map[int]nodeStart{}
	lines := make([]int, 0, len(c.doc.starts))
	for _, s := range c.doc.starts {
		if f, ok := first[s.line]; !ok || s.depth < f.depth {
			if !ok {
				lines = append(lines, s.line)
			}
			first[s.line] = s
		}
		if d, ok := deepest[s.line]; !ok || s.depth >= d.depth {
			deepest[s.line] = s
		}
	}
	sort.Ints(lines)
	get := func(p string) *Comment {
		x := c.doc.comments[p]
		if x == nil {
			x = &Comment{}
			c.doc.comments[p] = x
		}
		return x
	}
	for _, cm := range comments {
		text := strings.TrimPrefix(cm.text, "#")
		text = strings.TrimPrefix(text, " ")
		if codeLines[cm.line] {
			if s, ok := deepest[cm.line]; ok {
				x := get(s.ptr)
				if x.Line != "" {
					x.Line += " "
				}
				x.Line += text
			}
			continue
		}
		i := sort.SearchInts(lines, cm.line+1)
		if i < len(lines) {
			get(first[lines[i]].ptr).Head = append(get(first[lines[i]].ptr).Head, text)
		}
	}
}
