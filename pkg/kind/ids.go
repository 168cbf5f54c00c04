// Package kind holds what is common to lf's file kinds: the one pipeline
// every kind is read through (Kind.Parse), the one rule for skipping entries
// with schema problems (Skip), and the one rule for tenant and agent ids
// (schemas/ids.schema.json).
package kind

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxIDLength is the longest tenant or agent id, in characters.
const MaxIDLength = 128

// CheckID applies the id rule of schemas/ids.schema.json to a tenant or
// agent id (what names the id in the message, e.g. "tenant_id"): 1 to 128
// characters, no '/', '\', control character or NUL, and not "." or "..",
// so that every id can be addressed in a URL path.
func CheckID(what, id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%s is empty", what)
	case !utf8.ValidString(id):
		return fmt.Errorf("%s is not UTF-8", what)
	case utf8.RuneCountInString(id) > MaxIDLength:
		return fmt.Errorf("%s is %d characters long; at most %d", what, utf8.RuneCountInString(id), MaxIDLength)
	case id == "." || id == "..":
		return fmt.Errorf("%s %q cannot be addressed in a URL path", what, id)
	}
	if i := strings.IndexFunc(id, func(r rune) bool { return r == '/' || r == '\\' || r < 0x20 || r == 0x7f }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return fmt.Errorf("%s %q holds %q: ids have no '/', '\\' or control characters", what, id, r)
	}
	return nil
}
