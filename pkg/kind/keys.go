package kind

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"
)

// The key rule: the keys of entities and runs (risk scorers, methodologies,
// evaluation keys, run ids, task specification and scorer keys) and metric
// names match KeyPattern and are 1 to MaxKeyLength characters long, as
// schemas/project.schema.json ($defs/key) states; every schema that takes a
// key (run files, the AgentLeak config's project.name) and every flag that
// names one (--evaluation-key) applies the same rule, so that whatever lf
// stores can be exported and added again. TestKeyRuleMatchesSchemas keeps
// the schemas and CheckKey together.
const (
	MaxKeyLength = 250
	KeyPattern   = `^[a-zA-Z0-9_\-]+$`
)

// KeyRule describes the key rule for messages.
const KeyRule = "letters, digits, '_' and '-', 1 to 250 characters (" + KeyPattern + ")"

// ValidKey reports whether s follows the key rule.
func ValidKey(s string) bool {
	if s == "" || len(s) > MaxKeyLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !keyByte(s[i]) {
			return false
		}
	}
	return true
}

func keyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// CheckKey applies the key rule to key; what names it in the message
// (e.g. "--evaluation-key").
func CheckKey(what, key string) error {
	switch n := utf8.RuneCountInString(key); {
	case key == "":
		return fmt.Errorf("%s is empty: a key has %s", what, KeyRule)
	case len(key) > MaxKeyLength:
		return fmt.Errorf("%s is %d characters long: a key has %s", what, n, KeyRule)
	}
	for i, r := range key {
		if r >= utf8.RuneSelf || !keyByte(byte(r)) {
			return fmt.Errorf("%s %q holds %q at character %d: a key has %s", what, key, r, utf8.RuneCountInString(key[:i])+1, KeyRule)
		}
	}
	return nil
}

// KeyOf maps a name from another tool (a task, scorer, metric or scenario
// name) onto a key: a valid key stays as it is; any other byte becomes '_'
// ("dan.DanInTheWild" is "dan_DanInTheWild", "pii:direct" is "pii_direct");
// a name longer than MaxKeyLength bytes keeps its first 241 bytes and ends
// with '-' and 8 hex digits of its SHA-256.
func KeyOf(name string) string {
	if ValidKey(name) {
		return name
	}
	b := []byte(name)
	for i, c := range b {
		if !keyByte(c) {
			b[i] = '_'
		}
	}
	k := string(b)
	if k == "" {
		k = "_"
	}
	if len(k) > MaxKeyLength {
		k = k[:MaxKeyLength-9] + "-" + ShortHash(name)
	}
	return k
}

// ShortHash is 8 hex digits of the SHA-256 of s, which KeyOf and callers
// that must tell apart names meeting on one key append.
func ShortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}
