package cli

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 entities"}, {1, "1 entity"}, {2, "2 entities"}} {
		if got := count(c.n, "entity", "entities"); got != c.want {
			t.Errorf("count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestStoredTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-01-15T09:00:00.000000000Z": "2026-01-15T09:00:00Z",
		"2026-01-15T09:00:00.250000000Z": "2026-01-15T09:00:00.25Z",
		"2026-01-15T10:00:00+01:00":      "2026-01-15T09:00:00Z",
		"":                               "",
		"not a time":                     "not a time",
	} {
		if got := storedTime(in); got != want {
			t.Errorf("storedTime(%q) = %q, want %q", in, got, want)
		}
	}
}
