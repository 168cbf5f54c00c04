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
