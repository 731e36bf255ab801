package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testingclock "k8s.io/utils/clock/testing"
)

// batchStep is one moment of a fake-clock schedule: the clock moves to at, then ids trigger.
type batchStep struct {
	at  time.Duration
	ids []string
}

// every triggers id(i) every period from 0 until (not including) until.
func every(period, until time.Duration, id func(i int) string) []batchStep {
	var out []batchStep
	for i := 0; time.Duration(i)*period < until; i++ {
		out = append(out, batchStep{at: time.Duration(i) * period, ids: []string{id(i)}})
	}
	return out
}

// waitParked waits until Wait has taken every signal and sits on a timer, so that the next
// clock step is one it sees, or until Wait has returned (done holds its answer).
func waitParked(t *testing.T, clk *testingclock.FakeClock, b *Batcher, done chan bool) {
	t.Helper()
	require.Eventually(t, func() bool { return len(done) > 0 || clk.Waiters() > 0 && len(b.signal) == 0 },
		10*time.Second, 50*time.Microsecond, "Wait neither parked on a timer nor returned")
}

// TestBatcherWindow checks the window's bounds on a fake clock: Wait must not have returned a
// nanosecond before the expected close, and returns once the clock reaches it.
func TestBatcherWindow(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	tests := []struct {
		name            string
		idle, max, poll time.Duration
		steps           []batchStep
		wantOK          bool
		// closesAt is when Wait returns: the window closes, or poll ends with none opened.
		closesAt time.Duration
	}{
		{name: "no trigger: Wait gives up after poll", idle: 10 * ms, max: 50 * ms, poll: 20 * ms,
			wantOK: false, closesAt: 20 * ms},
		{name: "one trigger: the window closes idle after it", idle: 20 * ms, max: 600 * ms, poll: time.Second,
			steps: []batchStep{{at: 0, ids: []string{"a"}}}, wantOK: true, closesAt: 20 * ms},
		{name: "a new ID restarts the idle timer", idle: 50 * ms, max: time.Second, poll: time.Second,
			steps:  []batchStep{{at: 5 * ms, ids: []string{"a"}}, {at: 45 * ms, ids: []string{"b"}}},
			wantOK: true, closesAt: 95 * ms},
		{name: "the same ID over and over does not hold the window open", idle: 30 * ms, max: 600 * ms, poll: time.Second,
			steps:  every(2*ms, 30*ms, func(int) string { return "same-pod" }),
			wantOK: true, closesAt: 30 * ms},
		{name: "distinct IDs extend the window, but only up to max", idle: 80 * ms, max: 200 * ms, poll: time.Second,
			steps:  every(2*ms, 200*ms, func(i int) string { return fmt.Sprint("pod-", i) }),
			wantOK: true, closesAt: 200 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := testingclock.NewFakeClock(testNow)
			b := newBatcher(tt.idle, tt.max, clk)
			done := make(chan bool, 1)
			go func() { done <- b.Wait(context.Background(), tt.poll) }()
			notYet := func(at time.Duration) {
				waitParked(t, clk, b, done)
				select {
				case ok := <-done:
					require.Failf(t, "Wait returned early", "returned %v at %v, want at %v", ok, at, tt.closesAt)
				default:
				}
			}
			notYet(0)
			for _, s := range tt.steps {
				clk.SetTime(testNow.Add(s.at))
				for _, id := range s.ids {
					b.Trigger(id)
				}
				notYet(s.at)
			}
			clk.SetTime(testNow.Add(tt.closesAt - time.Nanosecond))
			notYet(tt.closesAt - time.Nanosecond)
			clk.SetTime(testNow.Add(tt.closesAt))
			select {
			case ok := <-done:
				assert.Equal(t, tt.wantOK, ok)
			case <-time.After(10 * time.Second):
				require.Fail(t, "Wait did not return once the clock reached the close")
			}
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
			clk := testingclock.NewFakeClock(testNow) // never stepped: no timer fires
			b := newBatcher(5*time.Second, 5*time.Second, clk)
			if tt.trigger {
				b.Trigger("a")
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan bool, 1)
			go func() { done <- b.Wait(ctx, 5*time.Second) }()
			waitParked(t, clk, b, done)
			cancel()
			select {
			case ok := <-done:
				assert.False(t, ok)
			case <-time.After(10 * time.Second):
				require.Fail(t, "Wait did not return when its context ended")
			}
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

// TestBatcherNextWindow: the ID that opened one window opens the next one after it closed, and
// a signal left over from a closed window opens none.
func TestBatcherNextWindow(t *testing.T) {
	t.Parallel()
	clk := testingclock.NewFakeClock(testNow)
	b := newBatcher(5*time.Millisecond, 50*time.Millisecond, clk)
	for range 2 {
		b.Trigger("a")
		done := make(chan bool, 1)
		go func() { done <- b.Wait(context.Background(), 500*time.Millisecond) }()
		waitParked(t, clk, b, done)
		clk.Step(5 * time.Millisecond)
		select {
		case ok := <-done:
			require.True(t, ok)
		case <-time.After(10 * time.Second):
			require.Fail(t, "the window did not close idle after its trigger")
		}
	}

	b.signal <- struct{}{} // as a Trigger racing the close would leave it
	done := make(chan bool, 1)
	go func() { done <- b.Wait(context.Background(), 500*time.Millisecond) }()
	waitParked(t, clk, b, done)
	clk.Step(500 * time.Millisecond)
	select {
	case ok := <-done:
		assert.False(t, ok, "a stale signal with no ID in the window opens no window")
	case <-time.After(10 * time.Second):
		require.Fail(t, "Wait did not give up after poll")
	}
}
