package agentleak

import "testing"

// iterations is n for a randomised test, a tenth of it under -short: CI runs
// every test in full once, then again with -short under the race detector,
// which is ten to twenty times slower.
func iterations(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}

// skipUnderShort skips a long single-goroutine check of the rules against
// their expressions under -short: it runs in full in the plain pass, and
// under the race detector (CI's -short pass), where regexp is ten times
// slower, it took minutes and has no goroutines to race.
func skipUnderShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a single-goroutine check of the rules: runs in full without -short")
	}
}
