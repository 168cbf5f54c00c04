package testfiles

import (
	"os"
	"testing"
)

// FullEnv is the variable that runs the long randomised and differential
// checks in full; CI's plain pass sets it to 1.
const FullEnv = "LF_TEST_FULL"

// Reduced reports whether the long randomised and differential checks run a
// sample instead of in full: under -short (CI's race-detector pass, ten to
// twenty times slower) and in a plain `go test ./...` unless LF_TEST_FULL=1.
// CI sets LF_TEST_FULL=1 for its plain pass, so every check still runs in
// full on every submission, while the README's test command stays quick.
func Reduced() bool {
	return testing.Short() || os.Getenv(FullEnv) != "1"
}

// Iterations is n for a randomised test, a tenth of it when Reduced.
func Iterations(n int) int {
	if Reduced() {
		return n / 10
	}
	return n
}

// SkipUnlessFull skips a long single-goroutine check of the rules against
// their expressions when Reduced: it runs in full in CI's plain pass, and
// under the race detector, where regexp is ten times slower, it took
// minutes and has no goroutines to race.
func SkipUnlessFull(t *testing.T) {
	t.Helper()
	if Reduced() {
		t.Skip("a long single-goroutine check of the rules: runs with " + FullEnv + "=1 (CI sets it)")
	}
}
