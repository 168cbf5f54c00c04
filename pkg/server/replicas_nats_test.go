package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/agentrisk"
	agentevents "github.com/lfcli/lf/pkg/eventstream"
	"github.com/lfcli/lf/pkg/eventstream/natstest"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

// natsEvent is event i of the NATS test: 2 tenants x 20 agents, within
// 42 hours from two days before natsScoreTime (well inside the ingest's
// dedup window however many events), every event distinct.
func natsEvent(i int) (tenant, line string) {
	tenant = []string{"t1", "t2"}[i%2]
	ts := natsScoreTime.Add(-48 * time.Hour).Add(time.Duration(i%30000) * 5 * time.Second)
	tool := []string{"read_file", "search", "exec", "send_mail"}[i%4]
	decision := "allow"
	if i%13 == 0 {
		decision = "deny"
	}
	line = fmt.Sprintf(`{"timestamp":%q,"tenant_id":%q,"agent_id":"ag%d","session_id":"s%d","method":"tools/call","tool":%q,"high_impact":%v,"decision":%q,"injection_score":0.%03d,"request_id":"r%d"}`,
		ts.Format(time.RFC3339), tenant, (i/2)%40, i%17, tool, tool == "exec", decision, (i*37)%1000, i)
	return tenant, line
}

var natsScoreTime = time.Date(2026, 4, 16, 14, 0, 0, 0, time.UTC)

// Agent events published to JetStream while a replica consuming them is
// killed (kill -9) and restarted: every event is stored once (counted in
// the store), and the scores after the next recalculation equal those of
// the same events ingested once into a fresh store.
func TestReplicasEventsKill(t *testing.T) {
	// LF_TEST_EVENTS_MESSAGES scales the test up for the README figures.
	messages, perMessage := 1000, 10
	if v, err := strconv.Atoi(os.Getenv("LF_TEST_EVENTS_MESSAGES")); err == nil && v > 0 {
		messages = v
	}
	js, stream, prefix := natstest.Stream(t)
	natsURL := natstest.URL(t)
	dsn := pgtest.New(t)
	dir := replicaProject(t, fmt.Sprintf("recalcInterval: 1h\nevents: {url: %q, stream: %s, subjectPrefix: %s, batch: 50, ackWait: 2s}\n", natsURL, stream, prefix))
	a := startReplica(t, "A", dir, dsn)
	b := startReplica(t, "B", dir, dsn)

	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	stored := func() int {
		var n int
		// The ingest keeps the 16-byte content hashes of each tenant's
		// events per hour (agentrisk_seen_hours): one per stored event.
		if err := conn.QueryRow(context.Background(), `SELECT coalesce(sum(length(hashes)), 0) / 16 FROM agentrisk_seen_hours`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	var all []agentrisk.Event
	var published atomic.Int32
	pubDone := make(chan error, 1)
	go func() {
		for m := range messages {
			var lines []string
			tenant := ""
			for k := range perMessage {
				tn, line := natsEvent(m*perMessage*2 + 2*k + m%2)
				tenant, lines = tn, append(lines, line)
			}
			if _, err := js.Publish(context.Background(), prefix+"."+tenant, []byte(strings.Join(lines, "\n"))); err != nil {
				pubDone <- err
				return
			}
			published.Add(int32(perMessage))
			time.Sleep(time.Millisecond)
		}
		pubDone <- nil
	}()
	for m := range messages {
		var lines []string
		for k := range perMessage {
			_, line := natsEvent(m*perMessage*2 + 2*k + m%2)
			lines = append(lines, line)
		}
		evs, d := agentrisk.ParseEvents("ref", strings.NewReader(strings.Join(lines, "\n")))
		if d.HasErrors() {
			t.Fatal(d)
		}
		all = append(all, evs...)
	}

	waitFor(t, 30*time.Second, "a fifth of the events stored", func() bool { return stored() >= messages*perMessage/5 })
	cons, err := js.Consumer(context.Background(), stream, agentevents.DefaultDurable)
	if err != nil {
		t.Fatal(err)
	}
	a.kill()
	info, _ := cons.Info(context.Background())
	atKill := stored()
	t.Logf("killed A with %d of %d events published, %d stored, %d messages delivered and not acknowledged", published.Load(), messages*perMessage, atKill, info.NumAckPending)
	a2 := startReplica(t, "A (restarted)", dir, dsn)
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	deadline := time.Now().Add(time.Duration(60+messages/100) * time.Second)
	for {
		info, err := cons.Info(context.Background())
		n := stored()
		if err == nil && info.NumPending == 0 && info.NumAckPending == 0 && n >= messages*perMessage {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not every event stored and acknowledged after %s: %d stored, consumer %+v, %v\nB's log:\n%s\nA's log (restarted):\n%s",
				time.Since(start).Round(time.Second), n, info, err, b.log, a2.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := stored(); n != messages*perMessage {
		t.Fatalf("%d events stored, want %d", n, messages*perMessage)
	}
	t.Logf("all %d events stored once, %s after the last publish", messages*perMessage, time.Since(start).Round(time.Millisecond))

	// The scores equal those of the events ingested once.
	ref, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "ref.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	eng := agentrisk.NewEngine(ref)
	if _, err := eng.Ingest(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	want, err := eng.Recalculate(context.Background(), "", "", natsScoreTime)
	if err != nil {
		t.Fatal(err)
	}
	wantScore := map[string]int{}
	for _, c := range want {
		wantScore[c.TenantID+"/"+c.AgentID] = int(c.NewScore)
	}
	got := map[string]int{}
	for i, tenant := range []string{"t1", "t2"} {
		r, key := []*replica{b, a2}[i], []string{keyT1, keyT2}[i]
		var res RecalcResponse
		if st := r.call(t, key, "POST", "/tenants/"+tenant+"/risk/recalculate?at="+natsScoreTime.Format(time.RFC3339), nil, &res); st != 200 {
			t.Fatalf("recalculate %s: %d", tenant, st)
		}
		for _, c := range res.Changes {
			got[c.TenantID+"/"+c.AgentID] = int(c.NewScore)
		}
	}
	if len(got) != len(wantScore) || len(got) != 40 {
		t.Fatalf("%d agents scored, want %d (reference) and 40", len(got), len(wantScore))
	}
	t.Logf("scores of the %d agents after a recalculation equal those of the events ingested once", len(got))
	for k, w := range wantScore {
		if got[k] != w {
			t.Errorf("agent %s: score %d after the kill, %d when every event is ingested once", k, got[k], w)
		}
	}
}
