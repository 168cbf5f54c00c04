package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// One event dated 2099 used to be stored and move the tenant's dedup window
// to the present, so that the tenant's real events of a few weeks ago were
// then answered `"expired"`. It is refused (400, located by its index) and
// the real events are stored afterwards.
func TestEventsFromTheFutureAreRefused(t *testing.T) {
	oa := loadOpenAPI(t)
	ts := startServer(t, testConfig(t, ""))
	weeksAgo := time.Now().UTC().AddDate(0, 0, -20)
	var real strings.Builder
	for i := range 40 {
		fmt.Fprintf(&real, `{"timestamp":%q,"tenant_id":"t1","agent_id":"a%d","tool":"read_file"}`+"\n", weeksAgo.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), i%4)
	}
	body := `{"timestamp":"2026-01-01T00:00:00Z","tenant_id":"t1","agent_id":"a0"}` + "\n" + `{"timestamp":"2099-01-01T00:00:00Z","tenant_id":"t1","agent_id":"a0"}` + "\n"
	code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events", body)
	if code != 400 || !strings.Contains(string(out), "/1/timestamp") || !strings.Contains(string(out), "ahead of this machine's clock") {
		t.Fatalf("a 2099 event: %d %s", code, out)
	}
	oa.check(t, "POST", "/tenants/{tenantId}/events", code, out)

	code, out = ts.call(t, keyT1, "POST", "/tenants/t1/events", real.String())
	var res struct{ Events, New, Expired int }
	if err := json.Unmarshal(out, &res); code != 200 || err != nil || res.New != 40 || res.Expired != 0 {
		t.Fatalf("real events after the refused one: %d %s", code, out)
	}
}
