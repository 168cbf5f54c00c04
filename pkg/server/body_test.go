package server

import (
	"strings"
	"testing"
	"time"
)

func TestScanBody(t *testing.T) {
	cases := []struct {
		name   string
		sh     *shape
		stream bool
		body   string
		ptr    string // "" with ok
		ok     bool
		msg    string
	}{
		{"verdict", verdictShape, false, `{"tenantId": "t", "agentId": "a", "method": "m", "shadow": true}`, "", true, ""},
		{"case folded key", verdictShape, false, `{"TenantId": "t"}`, "/TenantId", false, `did you mean "tenantId"`},
		{"duplicate key", verdictShape, false, `{"tenantId": "t", "tenantId": "u"}`, "/tenantId", false, "duplicate key"},
		{"unknown key", verdictShape, false, `{"agent": "a"}`, "/agent", false, "unknown key"},
		{"long id", verdictShape, false, `{"agentId": "` + strings.Repeat("a", 257) + `"}`, "/agentId", false, "longer than 256 bytes"},
		{"256-byte id", verdictShape, false, `{"agentId": "` + strings.Repeat("é", 128) + `"}`, "", true, ""},
		{"control id", verdictShape, false, `{"agentId": "a\nb"}`, "/agentId", false, "non-printable"},
		{"html id", verdictShape, false, `{"method": "<b>"}`, "/method", false, "'<' or '>'"},
		{"two values", verdictShape, false, `{} {}`, "", false, "more than one JSON value"},
		{"empty", verdictShape, false, ``, "", false, "empty body"},
		{"syntax", verdictShape, false, `{"tenantId": }`, "/tenantId", false, "not valid JSON at byte"},
		{"truncated", verdictShape, false, `{"tenantId": "t"`, "", false, "not valid JSON"},
		{"scalar for object", riskConfigShape, false, `{"rateLimit": 5}`, "", true, ""}, // the type check is the decoder's
		{"object for scalar", riskConfigShape, false, `{"enabled": {}}`, "/enabled", false, "expected a boolean, got an object"},
		{"nested key", riskConfigShape, false, `{"rateLimit": {"limit": 1, "Window": 2}}`, "/rateLimit/Window", false, "unknown key"},
		{"list max", riskConfigShape, false, `{"highImpactTools": [` + strings.TrimSuffix(strings.Repeat(`"t",`, 257), ",") + `]}`, "/highImpactTools", false, "more than 256 items"},
		{"list ok", riskConfigShape, false, `{"highImpactTools": [` + strings.TrimSuffix(strings.Repeat(`"t",`, 256), ",") + `]}`, "", true, ""},
		{"list item id", riskConfigShape, false, `{"criticalAllowedMethods": ["ping", "a\u0000"]}`, "/criticalAllowedMethods/1", false, "non-printable"},
		{"rule createdAt", ruleShape, false, `{"createdAt": "2026-01-01T00:00:00Z"}`, "/createdAt", false, "unknown key"},
		{"rule secretEnv", ruleShape, false, `{"secretEnv": "LF_ADMIN_KEY"}`, "/secretEnv", false, "secretName"},
		{"recipients", ruleShape, false, `{"to": [` + strings.TrimSuffix(strings.Repeat(`"a@b",`, 33), ",") + `]}`, "/to", false, "more than 32 items"},
		{"events ndjson", eventsShape, true, "{\"agent_id\": \"a\"}\n{\"agent_id\": \"b\", \"Tool\": 1}\n", "/1/Tool", false, "unknown key"},
		{"events array", eventsShape, false, `[{"agent_id": "a"}, {"agent_id": "` + strings.Repeat("b", 300) + `"}]`, "/1/agent_id", false, "longer than 256"},
		{"events long text", eventsShape, false, `[{"resource": "` + strings.Repeat("r", 4097) + `"}]`, "/0/resource", false, "longer than 4096"},
		{"deep", riskConfigShape, false, `{"weights": {"injection": 1}}`, "", true, ""},
		{"too deep", eventsShape, false, strings.Repeat("[", 17), "/0", false, "expected an object, got an array"},
		{"key with slash", verdictShape, false, `{"a/b~c": 1}`, "/a~1b~0c", false, "unknown key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := scanBody([]byte(c.body), c.sh, c.stream)
			if c.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Pointer != c.ptr || !strings.Contains(err.Msg, c.msg) {
				t.Errorf("got %q %q, want %q containing %q", err.Pointer, err.Msg, c.ptr, c.msg)
			}
		})
	}
}

// TestScanBodyLinear: a 4 MB body of any shape is scanned in a fraction of
// a second (a few seconds under -race), so no body costs more than its size.
func TestScanBodyLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bodies := map[string]string{
		"deep arrays":  strings.Repeat("[", 4<<20),
		"wide array":   "[" + strings.TrimSuffix(strings.Repeat(`{"agent_id": "a"},`, 4<<20/18), ",") + "]",
		"long strings": `[{"resource": "` + strings.Repeat("x", 4<<20) + `"}]`,
		"many keys":    "{" + strings.Repeat(`"a": 1, `, 4<<20/8) + "}",
	}
	for name, b := range bodies {
		start := time.Now()
		err := scanBody([]byte(b), eventsShape, false)
		took := time.Since(start)
		t.Logf("%s (%d MB): %v in %v", name, len(b)>>20, err, took)
		if took > 10*time.Second { // linear: about 0.2 s on 2 busy cores; quadratic would be minutes
			t.Errorf("%s: %v", name, took)
		}
	}
}

// readSized reads the whole body whatever the announced size: exact, too
// small (the buffer grows), too large or unknown.
func TestReadSized(t *testing.T) {
	body := strings.Repeat("x", 1000)
	for _, n := range []int64{-1, 0, 1, 999, 1000, 1001, 5000} {
		b, err := readSized(strings.NewReader(body), n)
		if err != nil || string(b) != body {
			t.Errorf("announced %d: %d bytes, %v", n, len(b), err)
		}
	}
}
