package yamlsrc

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/lfcli/lf/pkg/diag"
)

// MaxDepth is the deepest nesting of mappings and lists lf reads. Deeper
// files are refused before they are parsed, because the parser's time and
// memory grow with the square of the depth; no lf file needs more than a
// dozen levels.
const MaxDepth = 64

// checkUTF8 reports the first byte that is not UTF-8, located.
func checkUTF8(file string, data []byte) *diag.Diagnostic {
	if utf8.Valid(data) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return &diag.Diagnostic{
				File: file, Line: line, Col: col,
				Msg: fmt.Sprintf("not UTF-8: byte 0x%02x; save the file as UTF-8", data[i]),
			}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return nil
}

// checkDepth scans the text once, without parsing it, and reports the first
// place where mappings and lists nest deeper than limit. Block nesting is
// counted from indentation and "- " markers, flow nesting from brackets
// outside quotes and comments; block scalars are skipped. The count may be
// one or two levels off for unusual layouts, which a limit of 64 absorbs.
func checkDepth(file string, data []byte, limit int) *diag.Diagnostic {
	var indents []int // open block indentation levels
	flow := 0
	blockScalar := -1 // indentation of the line that opened a block scalar
	line := 0
	for start := 0; start < len(data); {
		end := start
		for end < len(data) && data[end] != '\n' {
			end++
		}
		line++
		l := data[start:end]
		start = end + 1
		ind := 0
		for ind < len(l) && l[ind] == ' ' {
			ind++
		}
		rest := l[ind:]
		if len(rest) == 0 || rest[0] == '#' || (len(rest) == 1 && rest[0] == '\r') {
			continue
		}
		if blockScalar >= 0 {
			if ind > blockScalar {
				continue
			}
			blockScalar = -1
		}
		if flow == 0 {
			for len(indents) > 0 && indents[len(indents)-1] >= ind {
				indents = indents[:len(indents)-1]
			}
			indents = append(indents, ind)
		}
		depth, col, over := listMarkers(l, ind, len(indents), flow, limit)
		if over > 0 {
			return depthError(file, line, over, limit)
		}
		if flow == 0 && depth > limit {
			return depthError(file, line, ind+1, limit)
		}
		var last byte
		flow, last, over = flowLine(l, col, depth, flow, limit)
		if over > 0 {
			return depthError(file, line, over, limit)
		}
		if flow == 0 && (last == '|' || last == '>' || (bytes.IndexAny(l, "|>") >= 0 && blockHeader.Match(l))) {
			blockScalar = ind
		}
	}
	return nil
}

// listMarkers counts the list markers at col, the start of the content of
// line l: "- - - x" opens one list per marker. It returns the block depth
// and the column after the markers, and over, the column where depth plus
// flow first exceeds limit (0 when it does not).
func listMarkers(l []byte, col, depth, flow, limit int) (int, int, int) {
	for col+1 < len(l) && l[col] == '-' && (l[col+1] == ' ' || l[col+1] == '\t') {
		depth++
		col += 2
		for col < len(l) && l[col] == ' ' {
			col++
		}
		if depth+flow > limit {
			return depth, col, col
		}
	}
	return depth, col, 0
}

// flowLine scans line l from col for flow brackets outside quotes and
// comments and returns the flow nesting after it, the last character that
// is not blank, and over, the 1-based column where depth plus flow first
// exceeds limit (0 when it does not).
func flowLine(l []byte, col, depth, flow, limit int) (int, byte, int) {
	var quote byte
	last := byte(0)
	for i := col; i < len(l); i++ {
		ch := l[i]
		if quote != 0 {
			if ch == quote {
				quote = 0
			}
			continue
		}
		switch ch {
		case '\'', '"':
			if i == 0 || l[i-1] == ' ' || l[i-1] == '[' || l[i-1] == '{' || l[i-1] == ',' || l[i-1] == ':' {
				quote = ch
			}
		case '#':
			if i > 0 && (l[i-1] == ' ' || l[i-1] == '\t') {
				i = len(l)
				continue
			}
		case '[', '{':
			flow++
			if depth+flow > limit {
				return flow, last, i + 1
			}
		case ']', '}':
			if flow > 0 {
				flow--
			}
		}
		if ch != ' ' && ch != '\t' && ch != '\r' {
			last = ch
		}
	}
	return flow, last, 0
}

var blockHeader = regexp.MustCompile(`(^|[:\-]\s+)[|>][-+0-9]*\s*(#.*)?\r?$`)

func depthError(file string, line, col, limit int) *diag.Diagnostic {
	return &diag.Diagnostic{
		File: file, Line: line, Col: col,
		Msg: "nested deeper than " + strconv.Itoa(limit) + " levels; lf reads at most " + strconv.Itoa(limit),
	}
}

// plainNumber is YAML 1.2's core-schema float without a dot, which the
// parser leaves as a string (1e308, 1E+5).
var plainNumber = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
