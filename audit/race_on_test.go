//go:build race

package audit

// raceDetector: the race detector's shadow memory is resident too, so
// resident-set bounds are measured only without it (scripts/test.sh has a
// step for them).
const raceDetector = true
