package importers

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errWalk says the fast walk could not read the document; the caller then
// decodes it with encoding/json, which locates the problem.
var errWalk = errors.New("json walk failed")

// walker reads the members of JSON objects and the elements of arrays as raw
// slices, skipping values it is not asked to decode. It checks structure
// (brackets, strings, commas and colons), not the content of skipped scalars;
// decoded values are checked by encoding/json. It exists because a promptfoo
// export is mostly rows' prompts, outputs and grading text that lf never reads.
type walker struct{ b []byte }

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// valueEnd returns the end of the value starting at i, or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default:
		j := i
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// stringEnd returns the index after the closing quote of the string at i.
func stringEnd(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		// an escaped quote has an odd number of backslashes before it
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1
		}
		i++
	}
}

// members calls fn with each key and raw value of the object v.
func (walker) members(v []byte, fn func(key string, val []byte) error) error {
	if string(v) == "null" {
		return nil // as encoding/json: null leaves the destination alone
	}
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return errWalk
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return nil
	}
	for {
		if i >= len(v) || v[i] != '"' {
			return errWalk
		}
		ke := stringEnd(v, i)
		if ke < 0 {
			return errWalk
		}
		key := v[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if json.Unmarshal(v[i:ke], &s) != nil {
				return errWalk
			}
			key = []byte(s)
		}
		i = skipSpace(v, ke)
		if i >= len(v) || v[i] != ':' {
			return errWalk
		}
		i = skipSpace(v, i+1)
		ve := valueEnd(v, i)
		if ve < 0 {
			return errWalk
		}
		if err := fn(string(key), v[i:ve]); err != nil {
			return err
		}
		i = skipSpace(v, ve)
		if i >= len(v) {
			return errWalk
		}
		if v[i] == '}' {
			return nil
		}
		if v[i] != ',' {
			return errWalk
		}
		i = skipSpace(v, i+1)
	}
}

// elements calls fn with each raw element of the array v.
func (walker) elements(v []byte, fn func(val []byte) error) error {
	if string(v) == "null" {
		return nil
	}
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return errWalk
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return nil
	}
	for {
		ve := valueEnd(v, i)
		if ve < 0 {
			return errWalk
		}
		if err := fn(v[i:ve]); err != nil {
			return err
		}
		i = skipSpace(v, ve)
		if i >= len(v) {
			return errWalk
		}
		if v[i] == ']' {
			return nil
		}
		if v[i] != ',' {
			return errWalk
		}
		i = skipSpace(v, i+1)
	}
}

// document checks that b is one value with nothing but space after it.
func (walker) document(b []byte) ([]byte, error) {
	i := skipSpace(b, 0)
	e := valueEnd(b, i)
	if e < 0 || skipSpace(b, e) != len(b) {
		return nil, errWalk
	}
	return b[i:e], nil
}
