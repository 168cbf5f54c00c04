package server

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/agentrisk"
)

// Paging of GET /tenants/{tenantId}/agents: ?limit=N (1..maxPageSize,
// default maxPageSize) and ?cursor=C, the opaque position after the last
// agent of the previous page. The body stays the reference's array; the
// next page is named by a Link header (RFC 8288, rel="next") and by
// X-Next-Cursor, absent on the last page. The order is the list's: score
// descending, then agent id, so a cursor stays valid while scores change
// (an agent whose score moved across the cursor meanwhile is seen on no
// page or on two, as in any keyset paging).
const maxPageSize = 1000

type page struct {
	limit int
	after bool // a cursor was given
	score int
	agent string
}

// readPage reads ?limit= and ?cursor=; false when it answered 400.
func readPage(w http.ResponseWriter, r *http.Request) (page, bool) {
	q := r.URL.Query()
	p := page{limit: maxPageSize}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPageSize {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit must be an integer between 1 and %d", maxPageSize), "limit")
			return p, false
		}
		p.limit = n
	}
	if v := q.Get("cursor"); v != "" {
		b, err := base64.RawURLEncoding.DecodeString(v)
		score, agent, found := strings.Cut(string(b), "/")
		n, nerr := strconv.Atoi(score)
		if err != nil || !found || nerr != nil {
			writeError(w, http.StatusBadRequest, "cursor: not a cursor of this list (take it from the previous page's Link or X-Next-Cursor)", "cursor")
			return p, false
		}
		p.after, p.score, p.agent = true, n, agent
	}
	return p, true
}

// slice returns the page of list (sorted by score descending, then agent
// id) and names the next one in the headers.
func (p page) slice(w http.ResponseWriter, r *http.Request, list []agentrisk.AgentSummary) []agentrisk.AgentSummary {
	start := 0
	if p.after {
		start = sort.Search(len(list), func(i int) bool {
			a := list[i]
			return a.Score < p.score || (a.Score == p.score && a.AgentID > p.agent)
		})
	}
	end := min(start+p.limit, len(list))
	out := list[start:end]
	if end < len(list) {
		last := out[len(out)-1]
		c := base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(last.Score) + "/" + last.AgentID))
		q := url.Values{"limit": {strconv.Itoa(p.limit)}, "cursor": {c}}
		w.Header().Set("Link", "<"+r.URL.EscapedPath()+"?"+q.Encode()+`>; rel="next"`)
		w.Header().Set("X-Next-Cursor", c)
	}
	return out
}
