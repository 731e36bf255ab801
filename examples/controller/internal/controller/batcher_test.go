package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feedEvery calls trigger(i) every period until the returned stop is called; stop waits for the
// feeder to finish, so no Trigger runs after the test.
func feedEvery(period time.Duration, trigger func(i int)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 0; ; i++ {
			trigger(i)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// TestBatcherWindow checks the window's bounds with real (short) timers. Timers never fire
// early, so the lower bounds are exact; the upper bounds only tell "closed by idle" from "closed
// by max" and leave the scheduler plenty of slack.
func TestBatcherWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		idle, max time.Duration
		poll      time.Duration
		// feed starts triggering before Wait is called and returns how to stop it.
		feed     func(b *Batcher) (stop func())
		wantOK   bool
		atLeast  time.Duration
		lessThan time.Duration
	}{
		{
			name: "no trigger: Wait gives up after poll",
			idle: 10 * time.Millisecond, max: 50 * time.Millisecond, poll: 20 * time.Millisecond,
			feed:   func(*Batcher) func() { return func() {} },
			wantOK: false, atLeast: 20 * time.Millisecond, lessThan: 500 * time.Millisecond,
		},
		{
			name: "one trigger: the window closes after idle",
			idle: 20 * time.Millisecond, max: 600 * time.Millisecond, poll: time.Second,
			feed:   func(b *Batcher) func() { b.Trigger("a"); return func() {} },
			wantOK: true, atLeast: 20 * time.Millisecond, lessThan: 600 * time.Millisecond,
		},
		{
			name: "the same ID over and over does not hold the window open",
			idle: 30 * time.Millisecond, max: 600 * time.Millisecond, poll: time.Second,
			feed: func(b *Batcher) func() {
				return feedEvery(2*time.Millisecond, func(int) { b.Trigger("same-pod") })
			},
			wantOK: true, atLeast: 30 * time.Millisecond, lessThan: 600 * time.Millisecond,
		},
		{
			name: "distinct IDs extend the window, but only up to max",
			idle: 80 * time.Millisecond, max: 200 * time.Millisecond, poll: time.Second,
			feed: func(b *Batcher) func() {
				return feedEvery(2*time.Millisecond, func(i int) { b.Trigger(fmt.Sprint("pod-", i)) })
			},
			wantOK: true, atLeast: 200 * time.Millisecond, lessThan: 900 * time.Millisecond,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBatcher(tt.idle, tt.max)
			start := time.Now()
			stop := tt.feed(b)
			ok := b.Wait(context.Background(), tt.poll)
			elapsed := time.Since(start)
			stop()
			assert.Equal(t, tt.wantOK, ok)
			assert.GreaterOrEqual(t, elapsed, tt.atLeast)
			assert.Less(t, elapsed, tt.lessThan)
		})
	}
}

// TestBatcherContextEnds: a cancelled context ends Wait with false, whether or not a window is
// open.
func TestBatcherContextEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trigger bool
	}{
		{name: "before any trigger"},
		{name: "while a window is open", trigger: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBatcher(5*time.Second, 5*time.Second)
			if tt.trigger {
				b.Trigger("a")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			start := time.Now()
			assert.False(t, b.Wait(ctx, 5*time.Second))
			assert.Less(t, time.Since(start), time.Second)
		})
	}
}

// TestBatcherTriggerDeduplicates: within a window an ID signals once; closing the window forgets
// it, so the same ID opens the next window.
func TestBatcherTriggerDeduplicates(t *testing.T) {
	t.Parallel()
	b := NewBatcher(time.Millisecond, 10*time.Millisecond)
	b.Trigger("a")
	require.Len(t, b.signal, 1)
	<-b.signal // as Wait's first receive does

	b.Trigger("a")
	assert.Empty(t, b.signal, "an ID already in the window must not signal again")
	b.Trigger("b")
	assert.Len(t, b.signal, 1, "a new ID signals")
	b.Trigger("c")
	assert.Len(t, b.signal, 1, "signals coalesce: one pending wakes the waiter")

	b.close()
	<-b.signal
	b.Trigger("a")
	assert.Len(t, b.signal, 1, "a closed window forgets its IDs")
}

// TestBatcherNextWindow: the ID that opened one window opens the next one after it closed.
func TestBatcherNextWindow(t *testing.T) {
	t.Parallel()
	b := NewBatcher(5*time.Millisecond, 50*time.Millisecond)
	for range 2 {
		b.Trigger("a")
		start := time.Now()
		require.True(t, b.Wait(context.Background(), 500*time.Millisecond))
		assert.Less(t, time.Since(start), 500*time.Millisecond)
	}
}
