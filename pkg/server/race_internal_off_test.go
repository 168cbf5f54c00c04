//go:build !race

package server

// raceDetector: the race detector allocates on its own.
const raceDetector = false
