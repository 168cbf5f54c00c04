package agentrisk

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/storetest"
)

func jsonl(t testing.TB, evs []Event) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, e := range evs {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func ingestText(t testing.TB, e *Engine, texts ...string) IngestResult {
	t.Helper()
	var srcs []Source
	for i, s := range texts {
		srcs = append(srcs, Source{Name: fmt.Sprintf("f%d.jsonl", i), R: strings.NewReader(s)})
	}
	res, d, err := e.IngestSources(context.Background(), srcs)
	if err != nil || d.HasErrors() {
		t.Fatalf("ingest: %v %v", err, d)
	}
	return res
}

// aggRows is every stored agent row, to compare stores.
func aggRows(t testing.TB, e *Engine) []store.AgentRow {
	t.Helper()
	rows, err := e.st.Agents(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// openFileTest is openTest on a store file, for tests that look at the
// file (hashHours).
func openFileTest(t testing.TB) *Engine {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "lf.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewEngine(st)
}

// hashHours lists the hours of each tenant's hash sets, read from the store
// file (openFileTest), checking that each set holds whole hashes.
func hashHours(t testing.TB, e *Engine) map[string][]int64 {
	t.Helper()
	rows, err := storetest.SQLiteFile(t, e.st.Path).Query(`SELECT tenant_id, hour, length(hashes) FROM agentrisk_seen_hours ORDER BY tenant_id, hour`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]int64{}
	for rows.Next() {
		var tenant string
		var hour, n int64
		if err := rows.Scan(&tenant, &hour, &n); err != nil {
			t.Fatal(err)
		}
		if n%16 != 0 {
			t.Errorf("hash set %s/%d holds %d bytes", tenant, hour, n)
		}
		out[tenant] = append(out[tenant], hour)
	}
	return out
}

// The two-step ingest (records folded agent by agent, in one call or in
// many, in any order) stores the same aggregates as folding each event
// with merger.add in one go.
// weekEvents are sample events of the 7 days before SampleEnd (within the
// dedup window however they are split).
func weekEvents() []Event {
	var evs []Event
	Generate(SampleAgents(), SampleEnd, 7, 42, func(e Event) { evs = append(evs, e) })
	return evs
}

// aggText shows an aggregate by names, independent of the order in which
// its dictionaries of tools and sessions were filled.
func aggText(t testing.TB, b []byte) string {
	t.Helper()
	a, err := decodeAgg(b, false)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, h := range a.hours {
		lines = append(lines, fmt.Sprintf("h %d %s %d %d %d", h.hour, a.tools[h.tool], h.calls, h.hi, h.denied))
	}
	for _, x := range a.inj {
		lines = append(lines, fmt.Sprintf("i %d %d %d", x.hour, x.score, x.count))
	}
	for _, x := range a.sess {
		lines = append(lines, fmt.Sprintf("s %q %s %d %d %d %d", a.sessions[x.sess], a.tools[x.tool], x.first, x.last, x.calls, x.hi))
	}
	for _, p := range a.patterns {
		lines = append(lines, fmt.Sprintf("p %s %s %d", a.tools[p.tool], p.pattern, p.count))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestIngestMatchesPerEventFold(t *testing.T) {
	checkMatchesPerEventFold(t, weekEvents(), true)
}

// TestIngestMatchesPerEventFoldEdgeCases covers what the sample lacks: no
// session (one pseudo-session per hour), no tool, more patterns than a tool
// keeps, two tools whose patterns are the same string, and a session id
// that looks like a pseudo-session.
func TestIngestMatchesPerEventFoldEdgeCases(t *testing.T) {
	// Which patterns a tool keeps depends on the order of the events: more
	// than it keeps only in one call.
	checkMatchesPerEventFold(t, edgeEvents(30), true)
	checkMatchesPerEventFold(t, edgeEvents(50), false)
}

func edgeEvents(dirs int) []Event {
	r := rand.New(rand.NewSource(11))
	tools := []string{"", "read_file", "a:b", "a", "fetch"}
	end := SampleEnd.Add(-time.Hour)
	var evs []Event
	for i := 0; i < 6000; i++ {
		ev := Event{
			Timestamp: end.Add(-time.Duration(r.Intn(5*24*3600)) * time.Second),
			TenantID:  fmt.Sprintf("t%d", r.Intn(3)), AgentID: fmt.Sprintf("a%d", r.Intn(7)),
			AgentName: fmt.Sprintf("n%d", r.Intn(3)), Tool: tools[r.Intn(len(tools))],
			HighImpact: r.Intn(4) == 0, Decision: "allow",
		}
		switch r.Intn(4) {
		case 0:
		case 1:
			ev.SessionID = fmt.Sprintf("\x00h%d", r.Intn(3)) // like a pseudo-session's
		default:
			ev.SessionID = fmt.Sprintf("s%d", r.Intn(40))
		}
		switch ev.Tool {
		case "a":
			ev.Resource = "b:c" // pattern a:b:c, as tool a:b's
		case "a:b":
			ev.Resource = "c"
		default:
			ev.Resource = fmt.Sprintf("/d%d/f", r.Intn(dirs))
		}
		if r.Intn(3) == 0 {
			ev.Decision = "deny"
		}
		if r.Intn(5) == 0 {
			s := float64(r.Intn(1001)) / 1000
			ev.InjectionScore = &s
		}
		evs = append(evs, ev)
	}
	return evs
}

func checkMatchesPerEventFold(t *testing.T, evs []Event, shuffle bool) {
	t.Helper()
	want := map[agentKey][]byte{}
	exact := map[agentKey][]byte{}
	folds := map[agentKey]*merger{}
	for i := range evs {
		k := agentKey{evs[i].TenantID, evs[i].AgentID}
		if folds[k] == nil {
			folds[k] = newAgg().merger()
		}
		folds[k].add(&evs[i])
	}
	for k, m := range folds {
		m.finish()
		exact[k] = m.a.encode()
		want[k] = []byte(aggText(t, exact[k]))
	}
	check := func(name string, e *Engine) {
		t.Helper()
		rows := aggRows(t, e)
		if len(rows) != len(want) {
			t.Fatalf("%s: %d agents, want %d", name, len(rows), len(want))
		}
		for _, r := range rows {
			if aggText(t, r.Agg) != string(want[agentKey{r.TenantID, r.AgentID}]) {
				t.Errorf("%s: aggregate of %s/%s differs from the per-event fold:\n%s\nwant\n%s", name, r.TenantID, r.AgentID, aggText(t, r.Agg), want[agentKey{r.TenantID, r.AgentID}])
			}
		}
	}
	one := openTest(t)
	ingestText(t, one, jsonl(t, evs))
	check("one call", one)
	for _, r := range aggRows(t, one) {
		if string(r.Agg) != string(exact[agentKey{r.TenantID, r.AgentID}]) {
			t.Errorf("one call: aggregate of %s/%s is not byte for byte the per-event fold's", r.TenantID, r.AgentID)
		}
	}
	if !shuffle {
		return
	}

	// Shuffled, in random batches, with small folds.
	defer func(n int) { maxRecords = n }(maxRecords)
	maxRecords = 97
	r := rand.New(rand.NewSource(3))
	shuffled := append([]Event(nil), evs...)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	many := openTest(t)
	for len(shuffled) > 0 {
		n := min(len(shuffled), 1+r.Intn(900))
		if _, err := many.Ingest(context.Background(), shuffled[:n]); err != nil {
			t.Fatal(err)
		}
		shuffled = shuffled[n:]
	}
	check("shuffled batches", many)
	a, b := aggRows(t, one), aggRows(t, many)
	for i := range a {
		a[i].Agg, b[i].Agg = nil, nil
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("names or first/last events differ between one call and batches:\n%+v\n%+v", a, b)
	}
}

func TestIngestIdempotentAcrossCalls(t *testing.T) {
	e := openTest(t)
	evs := weekEvents()
	text := jsonl(t, evs)
	first := ingestText(t, e, text)
	if first.New != len(evs) || first.Duplicates != 0 || first.Agents == 0 || len(first.Touched) != first.Agents {
		t.Fatalf("first ingest: %+v", first)
	}
	before := aggRows(t, e)
	// Again, as JSONL and as a JSON array, and twice in one call.
	arr, _ := json.Marshal(evs[:100])
	again := ingestText(t, e, text, string(arr), text)
	if again.New != 0 || again.Duplicates != 2*len(evs)+100 || again.Agents != 0 {
		t.Fatalf("second ingest: %+v", again)
	}
	if !reflect.DeepEqual(before, aggRows(t, e)) {
		t.Fatal("aggregates changed by re-ingesting")
	}
	// One new event among old ones counts once.
	extra := evs[len(evs)-1]
	extra.RequestID = "new-one"
	res := ingestText(t, e, jsonl(t, append(evs[:50:50], extra, extra)))
	if res.New != 1 || res.Duplicates != 51 || res.Agents != 1 || res.Touched[0] != (AgentRef{extra.TenantID, extra.AgentID}) {
		t.Fatalf("one new event: %+v", res)
	}
}

func TestIngestIdempotentAcrossHourBoundary(t *testing.T) {
	e := openFileTest(t)
	at := time.Date(2026, 4, 16, 10, 59, 59, 999999999, time.UTC)
	evs := []Event{
		{Timestamp: at, TenantID: "t", AgentID: "a", Tool: "x"},
		{Timestamp: at.Add(time.Nanosecond), TenantID: "t", AgentID: "a", Tool: "x"},
		{Timestamp: at.Add(time.Hour + time.Nanosecond), TenantID: "t", AgentID: "a", Tool: "x"},
	}
	if res := ingestText(t, e, jsonl(t, evs[:2])); res.New != 2 {
		t.Fatalf("%+v", res)
	}
	if got := hashHours(t, e)["t"]; len(got) != 2 || got[1] != got[0]+1 {
		t.Fatalf("hash sets of two hours expected, got %v", got)
	}
	// The same instants written with an offset are the same events.
	off := strings.ReplaceAll(strings.ReplaceAll(jsonl(t, evs[:2]), "T10:59:59.999999999Z", "T12:59:59.999999999+02:00"), "T11:00:00Z", "T13:00:00+02:00")
	if res := ingestText(t, e, off, jsonl(t, evs)); res.New != 1 || res.Duplicates != 4 {
		t.Fatalf("across the boundary: %+v", res)
	}
	if got := hashHours(t, e)["t"]; len(got) != 3 {
		t.Fatalf("hash sets: %v", got)
	}
}

// Hash sets older than the dedup window (DedupHours before the tenant's
// latest event) are deleted; events that old are then expired, not stored
// twice; other tenants keep theirs.
func TestIngestPrunesBeyondWindow(t *testing.T) {
	e := openFileTest(t)
	day0 := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	old := []Event{{Timestamp: day0, TenantID: "t", AgentID: "a", Tool: "x"}, {Timestamp: day0, TenantID: "u", AgentID: "a", Tool: "x"}}
	ingestText(t, e, jsonl(t, old))
	// Just inside the window: still a duplicate.
	inside := Event{Timestamp: day0.Add(time.Duration(DedupHours-1) * time.Hour), TenantID: "t", AgentID: "a", Tool: "x"}
	if res := ingestText(t, e, jsonl(t, []Event{inside})); res.New != 1 {
		t.Fatalf("%+v", res)
	}
	if res := ingestText(t, e, jsonl(t, old[:1])); res.Duplicates != 1 || res.Expired != 0 {
		t.Fatalf("inside the window: %+v", res)
	}
	// One more hour pushes day0 out of t's window.
	later := inside
	later.Timestamp = later.Timestamp.Add(time.Hour)
	ingestText(t, e, jsonl(t, []Event{later}))
	hours := hashHours(t, e)
	if len(hours["t"]) != 2 || hours["t"][0] == unixHour(day0) {
		t.Fatalf("t's hash sets after pruning: %v", hours["t"])
	}
	if len(hours["u"]) != 1 {
		t.Fatalf("u's hash sets were pruned by t's events: %v", hours["u"])
	}
	before := aggRows(t, e)
	res := ingestText(t, e, jsonl(t, old))
	if res.Expired != 1 || res.Duplicates != 1 || res.New != 0 {
		t.Fatalf("re-ingest after pruning: %+v", res)
	}
	if !reflect.DeepEqual(before, aggRows(t, e)) {
		t.Fatal("an expired event changed an aggregate")
	}
}

// An event within the allowed clock skew ahead does not push the window
// past today.
func TestIngestWindowCappedAtNow(t *testing.T) {
	defer func(f func() time.Time) { nowTime = f }(nowTime)
	now := time.Date(2026, 4, 16, 12, 58, 0, 0, time.UTC)
	nowTime = func() time.Time { return now }
	e := openTest(t)
	evs := []Event{
		{Timestamp: now.Add(-time.Hour), TenantID: "t", AgentID: "a"},
		{Timestamp: now.Add(4 * time.Minute), TenantID: "t", AgentID: "a"}, // the next hour
	}
	ingestText(t, e, jsonl(t, evs))
	if res := ingestText(t, e, jsonl(t, evs)); res.Duplicates != 2 || res.Expired != 0 {
		t.Fatalf("%+v", res)
	}
}

func TestIngestAllOrNothing(t *testing.T) {
	e := openFileTest(t)
	evs := genSampleEvents()[:300]
	lines := strings.Split(strings.TrimSpace(jsonl(t, evs)), "\n")
	lines[150] = `{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","decision":"perhaps"}`
	lines[200] = `{"timestamp":"yesterday","tenant_id":"t","agent_id":"a"}`
	good := jsonl(t, genSampleEvents()[300:400])
	_, d, err := e.IngestSources(context.Background(), []Source{
		{Name: "good.jsonl", R: strings.NewReader(good)},
		{Name: "bad.jsonl", R: strings.NewReader(strings.Join(lines, "\n"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := diagText(d)
	for _, want := range []string{`bad.jsonl:151: /decision: decision must be allow or deny, got "perhaps"`, `bad.jsonl:201: /timestamp: timestamp "yesterday" is not RFC 3339`} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
	if n := len(aggRows(t, e)); n != 0 {
		t.Fatalf("%d agents stored despite a bad event", n)
	}
	if n := len(hashHours(t, e)); n != 0 {
		t.Fatalf("hash sets stored despite a bad event")
	}
	// JSON arrays: the pointer names the element.
	_, d, _ = e.IngestSources(context.Background(), []Source{{Name: "a.json", R: strings.NewReader("[\n" +
		`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a"},` + "\n" +
		`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":2}` + "\n]")}})
	if got := diagText(d); !strings.Contains(got, "a.json:3: /1/injection_score: injection_score must lie within 0..1, got 2") {
		t.Errorf("array diagnostics: %s", got)
	}
	if n := len(aggRows(t, e)); n != 0 {
		t.Fatalf("%d agents stored despite a bad array element", n)
	}
}

// A store from before schema 60 has one table of hashes without hours. The
// migration keeps it as the legacy set: re-ingesting its events finds them,
// new events are stored, and once the window has passed its last event the
// legacy hashes are deleted and events that old are expired.
func TestIngestMigratesOldStore(t *testing.T) {
	t.Parallel() // its own store, no package setting changed
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	evs := genSampleEvents()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(st)
	ingestText(t, e, jsonl(t, evs))
	want := aggRows(t, e)
	// Make it what the earlier ingest left: every hash in agentrisk_seen,
	// no hour sets, migrations 60 and 70 (chunks) not applied.
	db := storetest.SQLiteFile(t, path)
	tx, err := db.Begin() // one commit for the set-up, not one per hash
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if _, err := tx.Exec(`INSERT OR IGNORE INTO agentrisk_seen (hash) VALUES (?)`, legacyEventHash(&evs[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE agentrisk_seen_hours`, `DROP TABLE agentrisk_seen_legacy`, `DELETE FROM schema_migrations WHERE version LIKE '60_%' OR version LIKE '70_%'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	st, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e = NewEngine(st)
	var until int64
	if err := db.QueryRow(`SELECT until_hour FROM agentrisk_seen_legacy WHERE kept = 1`).Scan(&until); err != nil {
		t.Fatal("migration left no legacy set:", err)
	}
	last := evs[0].Timestamp
	for _, ev := range evs {
		if ev.Timestamp.After(last) {
			last = ev.Timestamp
		}
	}
	if until != unixHour(last) {
		t.Fatalf("legacy set until hour %d, want %d", until, unixHour(last))
	}
	res := ingestText(t, e, jsonl(t, evs))
	if res.New != 0 || res.Duplicates != len(evs) {
		t.Fatalf("re-ingest into the migrated store: %+v", res)
	}
	if !reflect.DeepEqual(want, aggRows(t, e)) {
		t.Fatal("aggregates changed")
	}
	// Events past the window of the legacy set's last event: it is dropped.
	next := Event{Timestamp: last.Add(time.Duration(DedupHours) * time.Hour), TenantID: evs[0].TenantID, AgentID: evs[0].AgentID}
	if res := ingestText(t, e, jsonl(t, []Event{next})); res.New != 1 {
		t.Fatalf("%+v", res)
	}
	var n, kept int
	db.QueryRow(`SELECT count(*) FROM agentrisk_seen`).Scan(&n)
	db.QueryRow(`SELECT kept FROM agentrisk_seen_legacy`).Scan(&kept)
	if n != 0 || kept != 0 {
		t.Fatalf("legacy hashes kept: %d rows, kept=%d", n, kept)
	}
	// Another tenant's old events are now expired rather than counted twice.
	var other []Event
	for _, ev := range evs {
		if ev.TenantID != evs[0].TenantID {
			other = append(other, ev)
		}
	}
	if len(other) == 0 {
		t.Fatal("sample has one tenant")
	}
	if res := ingestText(t, e, jsonl(t, other)); res.New != 0 || res.Expired != len(other) {
		t.Fatalf("old events of another tenant after the legacy set was dropped: %+v", res)
	}
}

func diagText(d diag.List) string {
	var b strings.Builder
	for _, x := range d {
		b.WriteString(x.String() + "\n")
	}
	return b.String()
}

// TestIngestWrittenRowsAreStored checks that IngestWritten hands back
// exactly the rows a read after the ingest finds, over two ingests (the
// second merging into stored aggregates, one of them with its baseline
// reset in between) and small folds (an agent written twice in one ingest).
func TestIngestWrittenRowsAreStored(t *testing.T) {
	ctx := context.Background()
	defer func(n int) { maxRecords = n }(maxRecords)
	maxRecords = 500
	e := openTest(t)
	evs := weekEvents()
	half := len(evs) / 2
	for i, part := range [][]Event{evs[:half], evs[half:]} {
		if i == 1 {
			if err := e.ResetBaseline(ctx, evs[0].TenantID, evs[0].AgentID, SampleEnd); err != nil {
				t.Fatal(err)
			}
		}
		res, rows, err := e.IngestWritten(ctx, part)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(res.Touched) {
			t.Fatalf("ingest %d: %d rows for %d touched agents", i, len(rows), len(res.Touched))
		}
		reset := 0
		for _, r := range rows {
			if r.BaselineResetAt != "" {
				reset++
			}
		}
		if want := i; reset != want {
			t.Fatalf("ingest %d: %d rows with a baseline reset time, want %d", i, reset, want)
		}
		err = e.st.Update(ctx, func(tx store.Tx) error {
			for j, r := range rows {
				if (AgentRef{r.TenantID, r.AgentID}) != res.Touched[j] {
					t.Fatalf("ingest %d: row %d is %s/%s, touched %v", i, j, r.TenantID, r.AgentID, res.Touched[j])
				}
				got, ok, err := tx.AgentAggregate(ctx, r.TenantID, r.AgentID)
				if err != nil || !ok {
					t.Fatalf("ingest %d: %s/%s: %v %v", i, r.TenantID, r.AgentID, ok, err)
				}
				if !reflect.DeepEqual(got, r.AgentRow) {
					t.Errorf("ingest %d: row of %s/%s differs from the stored one:\n%+v\n%+v", i, r.TenantID, r.AgentID, r, got)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
