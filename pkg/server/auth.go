package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// Principal is who a request acts as: one tenant, or admin over all.
type Principal struct {
	Name   string // the key's name from the config, safe to log
	Tenant string
	Admin  bool // global admin: every tenant, every role
	Role   Role // the role within Tenant
}

// CanAccess reports whether the principal may read or change tenant's data.
func (p Principal) CanAccess(tenant string) bool {
	return p.Admin || (tenant != "" && p.Tenant == tenant)
}

// keyring holds SHA-256 hashes of the API keys. Lookup hashes the presented
// key and compares it with every entry in constant time, so neither the
// comparison nor the position of the matching entry leaks through timing.
type keyring struct {
	hashes     [][sha256.Size]byte
	principals []Principal
}

func newKeyring(keys []Key) *keyring {
	k := &keyring{}
	for _, key := range keys {
		k.hashes = append(k.hashes, sha256.Sum256([]byte(key.Secret)))
		k.principals = append(k.principals, Principal{Name: key.Name, Tenant: key.Tenant, Admin: key.Admin, Role: key.Role})
	}
	return k
}

func (k *keyring) lookup(presented string) (Principal, bool) {
	h := sha256.Sum256([]byte(presented))
	found := -1
	for i := range k.hashes {
		if subtle.ConstantTimeCompare(h[:], k.hashes[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Principal{}, false
	}
	return k.principals[found], true
}

type principalKey struct{}

func principalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

// authenticate requires a valid bearer key; otherwise 401, answered at once
// without reading the body.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := s.principal(w, r); ok {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
		}
	})
}

// principal returns the principal of the request's bearer key; false when
// it answered 401.
func (s *Server) principal(w http.ResponseWriter, r *http.Request) (Principal, bool) {
	h := r.Header.Get("Authorization")
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		dropBody(w, r)
		w.Header().Set("WWW-Authenticate", `Bearer realm="lf"`)
		writeError(w, http.StatusUnauthorized, "missing bearer API key (Authorization: Bearer <key>)", "")
		return Principal{}, false
	}
	p, ok := s.keys.lookup(strings.TrimSpace(h[len(prefix):]))
	if !ok {
		dropBody(w, r)
		w.Header().Set("WWW-Authenticate", `Bearer realm="lf", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, "invalid API key", "")
		return Principal{}, false
	}
	return p, true
}
