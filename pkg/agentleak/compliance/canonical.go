package compliance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"
)

// AppendCanonical appends v as canonical JSON, serialised as the digest of
// section 7 is: object keys sorted, no white space, non-ASCII as \u escapes,
// floats as Python writes them. v is built of map[string]any, []any,
// []string, string, float64, *float64, int, bool and nil; other types
// panic (a programming error: the caller builds v).
func AppendCanonical(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case float64:
		return appendPyFloat(b, x)
	case *float64:
		if x == nil {
			return append(b, "null"...)
		}
		return appendPyFloat(b, *x)
	case string:
		return appendString(b, x)
	case []string:
		return appendStrings(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendCanonical(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = AppendCanonical(b, x[k])
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("compliance: no canonical JSON for %T", v))
}

// CanonicalDigest is the hex SHA-256 of v's canonical JSON
// (AppendCanonical), as the scan's integrity digest is computed.
func CanonicalDigest(v any) string {
	sum := sha256.Sum256(AppendCanonical(nil, v))
	return hex.EncodeToString(sum[:])
}

// ReportTime is the time compliance reports are made at, as a digest holds
// it (Python's isoformat of a UTC time, "2026-01-01T00:00:00+00:00"):
// SOURCE_DATE_EPOCH when it is set (the reproducible-builds convention, so
// that a digest can be reproduced), else now, to the second.
func ReportTime() (string, error) {
	t := time.Now().UTC().Truncate(time.Second)
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return "", &sourceDateError{s}
		}
		t = time.Unix(n, 0).UTC()
	}
	return t.Format("2006-01-02T15:04:05+00:00"), nil
}

type sourceDateError struct{ value string }

func (e *sourceDateError) Error() string {
	return "SOURCE_DATE_EPOCH=" + strconv.Quote(e.value) + " is not a whole number of seconds since 1970"
}
