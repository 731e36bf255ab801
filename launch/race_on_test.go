//go:build race

package launch_test

// raceEnabled is true when the race detector runs; it slows every call
// severalfold, so wall-time budgets are checked only without it.
const raceEnabled = true
