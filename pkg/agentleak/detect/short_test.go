package detect

import (
	"os"
	"testing"
)

// reduced reports whether the long randomised and differential checks run a
// sample instead of in full: under -short (CI's race-detector pass, ten to
// twenty times slower) and in a plain `go test ./...` unless LF_TEST_FULL=1.
// CI sets LF_TEST_FULL=1 for its plain pass, so every check still runs in
// full on every submission, while the README's test command stays quick.
func reduced() bool {
	return testing.Short() || os.Getenv("LF_TEST_FULL") != "1"
}

// iterations is n for a randomised test, a tenth of it when reduced.
func iterations(n int) int {
	if reduced() {
		return n / 10
	}
	return n
}

// skipUnderShort skips a long single-goroutine check of the rules against
// their expressions when reduced: it runs in full in CI's plain pass, and
// under the race detector, where regexp is ten times slower, it took
// minutes and has no goroutines to race.
func skipUnderShort(t *testing.T) {
	t.Helper()
	if reduced() {
		t.Skip("a long single-goroutine check of the rules: runs with LF_TEST_FULL=1 (CI sets it)")
	}
}
