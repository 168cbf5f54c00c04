//go:build !race

package server_test

// raceEnabled: the race detector multiplies memory use, so the hostile
// suite's memory ceiling is not asserted under -race.
const raceEnabled = false
