package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRelaxGCWhileReading: the reading setting applies unless GOGC chooses one, and restore puts
// back what was there.
func TestRelaxGCWhileReading(t *testing.T) {
	for _, tc := range []struct {
		name, gogc string
		reading    int
	}{
		{"GOGC unset", "", readingGCPercent},
		{"GOGC set", "150", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			defer debug.SetGCPercent(debug.SetGCPercent(150)) // what the runtime read at start
			restore := relaxGCWhileReading()
			assert.Equal(t, tc.reading, currentGCPercent())
			restore()
			assert.Equal(t, 150, currentGCPercent())
		})
	}
}

func currentGCPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
