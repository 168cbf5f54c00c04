package importers

import (
	"bytes"
	"errors"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// errWalk says the fast walk could not read the document; the caller then
// decodes it with encoding/json, which locates the problem.
var errWalk = errors.New("json walk failed")

// walker reads the members of JSON objects and the elements of arrays as raw
// slices, skipping values it is not asked to decode. It checks structure
// (brackets, strings, commas and colons: jsonlex.SkimValue), not the content
// of skipped scalars; decoded values are checked by encoding/json. It exists because a promptfoo
// export is mostly rows' prompts, outputs and grading text that lf never reads.
type walker struct{ b []byte }

// members calls fn with each key and raw value of the object v.
func (walker) members(v []byte, fn func(key string, val []byte) error) error {
	if string(v) == "null" {
		return nil // as encoding/json: null leaves the destination alone
	}
	i := jsonlex.SkipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return errWalk
	}
	i = jsonlex.SkipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return nil
	}
	for {
		if i >= len(v) || v[i] != '"' {
			return errWalk
		}
		ke := jsonlex.QuoteEnd(v, i)
		if ke < 0 {
			return errWalk
		}
		key := v[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			if e, _ := jsonlex.StringEnd(v, i+1, 0); e != ke-1 {
				return errWalk // a malformed escape
			}
			s, ok := jsonlex.Unquote(v[i:ke])
			if !ok {
				return errWalk
			}
			key = []byte(s)
		}
		i = jsonlex.SkipSpace(v, ke)
		if i >= len(v) || v[i] != ':' {
			return errWalk
		}
		i = jsonlex.SkipSpace(v, i+1)
		ve := jsonlex.SkimValue(v, i)
		if ve < 0 {
			return errWalk
		}
		if err := fn(string(key), v[i:ve]); err != nil {
			return err
		}
		i = jsonlex.SkipSpace(v, ve)
		if i >= len(v) {
			return errWalk
		}
		if v[i] == '}' {
			return nil
		}
		if v[i] != ',' {
			return errWalk
		}
		i = jsonlex.SkipSpace(v, i+1)
	}
}

// elements calls fn with each raw element of the array v.
func (walker) elements(v []byte, fn func(val []byte) error) error {
	if string(v) == "null" {
		return nil
	}
	i := jsonlex.SkipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return errWalk
	}
	i = jsonlex.SkipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return nil
	}
	for {
		ve := jsonlex.SkimValue(v, i)
		if ve < 0 {
			return errWalk
		}
		if err := fn(v[i:ve]); err != nil {
			return err
		}
		i = jsonlex.SkipSpace(v, ve)
		if i >= len(v) {
			return errWalk
		}
		if v[i] == ']' {
			return nil
		}
		if v[i] != ',' {
			return errWalk
		}
		i = jsonlex.SkipSpace(v, i+1)
	}
}

// document checks that b is one value with nothing but space after it.
func (walker) document(b []byte) ([]byte, error) {
	i := jsonlex.SkipSpace(b, 0)
	e := jsonlex.SkimValue(b, i)
	if e < 0 || jsonlex.SkipSpace(b, e) != len(b) {
		return nil, errWalk
	}
	return b[i:e], nil
}
