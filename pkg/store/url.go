package store

import (
	"errors"
	"fmt"
	"strings"
)

// Engine names a store backend.
type Engine string

const (
	// EngineSQLite is the embedded SQLite store (the default).
	EngineSQLite Engine = "sqlite"
	// EnginePostgres is the team store on a PostgreSQL server.
	EnginePostgres Engine = "postgres"
)

// Location is a parsed store URL.
type Location struct {
	Engine Engine
	Path   string // the SQLite file path, or ":memory:" ("" for PostgreSQL)
	URL    string // the URL as given (it may hold a password: never print it)
}

// ErrUsage marks a store URL the user got wrong (an unknown scheme, an empty
// path): callers report it as a usage error.
var ErrUsage = errors.New("store URL")

// ErrNotAvailable marks a recognised store engine this build cannot open.
var ErrNotAvailable = errors.New("store engine not available")

// ErrNotExist is returned by OpenExisting when there is no store yet.
var ErrNotExist = errors.New("no store")

// URLForms lists the store URL forms lf accepts, for messages.
const URLForms = "a file path, sqlite:PATH, sqlite://PATH, :memory: or postgres://HOST/DB"

// ParseURL parses a store URL: a file path, "sqlite:PATH", "sqlite://PATH",
// "file:PATH" or ":memory:" for SQLite; "postgres://" and "postgresql://"
// for PostgreSQL. Any other scheme is an error wrapping ErrUsage.
func ParseURL(url string) (Location, error) {
	loc := Location{Engine: EngineSQLite, URL: url}
	path := url
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		loc.Engine = EnginePostgres
		return loc, nil
	case strings.HasPrefix(url, "sqlite://"):
		path = strings.TrimPrefix(url, "sqlite://")
	case strings.HasPrefix(url, "sqlite:"):
		path = strings.TrimPrefix(url, "sqlite:")
	case strings.HasPrefix(url, "file:"):
		path = strings.TrimPrefix(url, "file:")
	default:
		if i := strings.Index(url, "://"); i > 0 && isScheme(url[:i]) {
			return loc, fmt.Errorf("%w %q: unknown scheme %q; expected %s", ErrUsage, url, url[:i], URLForms)
		}
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		return loc, fmt.Errorf("%w %q: empty path; expected %s", ErrUsage, url, URLForms)
	}
	loc.Path = path
	return loc, nil
}

func isScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}
