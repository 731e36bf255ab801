//go:build !race

package azure_test

// raceEnabled is true when the race detector runs; it slows every call
// severalfold, so wall-time budgets are checked only without it.
const raceEnabled = false
