package cli_test

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"testing"
)

// stderrLogEnv names the file every lf run of the scripts appends its
// standard error to, so that TestScripts can read every message they
// produce.
const stderrLogEnv = "LF_TEST_STDERR_LOG"

// stderrLog is the standard error of an lf run in a script: os.Stderr, and
// the log of stderrLogEnv when set.
func stderrLog() io.Writer {
	p := os.Getenv(stderrLogEnv)
	if p == "" {
		return os.Stderr
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return os.Stderr
	}
	return io.MultiWriter(os.Stderr, f)
}

// debris is Go formatting that must never reach a user: fmt's verb errors,
// printed maps, nil pointers, Go type names of lf's packages or the
// standard library's.
var debris = regexp.MustCompile(`%!|\bmap\[|<nil>|\[\]interface \{\}|\bstruct \{|\b(?:json|importers|model|project|store|risk|agentrisk|agentleak|yamlsrc|runfile|evaluation|alerts|server|cli|diag|backend|sqlite|postgres|output|report|kind|schema)\.[a-z]*[A-Z][A-Za-z]*\b|\bgoroutine \d|0xc0[0-9a-f]{6}`)

// checkNoDebris fails when a message of the scripts holds Go formatting
// debris; each distinct line is reported once.
func checkNoDebris(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return
		}
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if debris.MatchString(line) && !seen[line] {
			seen[line] = true
			t.Errorf("Go formatting debris in a message: %s", line)
		}
	}
}

// TestDebrisPattern: the pattern catches what it is for, and not plain
// messages.
func TestDebrisPattern(t *testing.T) {
	for _, bad := range []string{
		`lf: unknown %!q(<nil>)`, `got map[a:1]`, `cannot unmarshal into importers.pfExport`,
		`json: cannot unmarshal string into Go value of type json.RawMessage`, `*model.EvaluationRun`,
	} {
		if !debris.MatchString(bad) {
			t.Errorf("not caught: %s", bad)
		}
	}
	for _, ok := range []string{
		`store .lf/lf.db: app "x" does not exist`, `model.yaml:3:5: /risk_scorers/0: missing required field "metric"`,
		`run.yaml: /overview/domain: no risk scorer of domain "typo"`,
	} {
		if debris.MatchString(ok) {
			t.Errorf("plain message caught: %s", ok)
		}
	}
}
