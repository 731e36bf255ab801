package controller

import (
	"context"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Batcher groups provisioning triggers into batches, as Karpenter's does: a window opens at the
// first trigger and closes once Idle passes with no new distinct trigger, or Max after it opened.
// Triggering an ID already in the window does not extend it, so a pod updated over and over
// cannot hold a batch open.
type Batcher struct {
	idle, max time.Duration
	// clock stamps triggers and times the window; tests step a fake one.
	clock clock.Clock
	mu    sync.Mutex
	seen  map[string]bool
	// opened is when the window's first ID came, last when its latest new ID did.
	opened, last time.Time
	signal       chan struct{}
}

// NewBatcher returns a batcher with the given idle and maximum window.
func NewBatcher(idle, max time.Duration) *Batcher {
	return newBatcher(idle, max, clock.RealClock{})
}

func newBatcher(idle, max time.Duration, clk clock.Clock) *Batcher {
	return &Batcher{idle: idle, max: max, clock: clk, seen: map[string]bool{}, signal: make(chan struct{}, 1)}
}

// Trigger adds id to the current window (opening one if none is open).
func (b *Batcher) Trigger(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen[id] {
		return
	}
	now := b.clock.Now()
	if len(b.seen) == 0 {
		b.opened = now
	}
	b.seen[id], b.last = true, now
	select {
	case b.signal <- struct{}{}:
	default: // a signal is already pending; one wakes the waiter
	}
}

// Wait blocks until a window opens and closes, and reports true; it reports false when ctx ends
// or no trigger arrives within poll, so the caller can look around and wait again.
func (b *Batcher) Wait(ctx context.Context, poll time.Duration) bool {
	if !b.waitOpen(ctx, poll) {
		return false
	}
	for {
		left := b.closesIn()
		if left <= 0 {
			b.close()
			return true
		}
		// The timer runs to the deadline as it stands; a new ID moves it, so a signal
		// recomputes it.
		t := b.clock.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C():
		case <-b.signal:
		}
		t.Stop()
	}
}

// waitOpen waits up to poll for a window to open. A signal left over from a window that has
// closed since opens none.
func (b *Batcher) waitOpen(ctx context.Context, poll time.Duration) bool {
	first := b.clock.NewTimer(poll)
	defer first.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-first.C():
			return false
		case <-b.signal:
			if b.isOpen() {
				return true
			}
		}
	}
}

func (b *Batcher) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.seen) > 0
}

// closesIn is how long the open window has left: until idle after its last new ID, or max after
// it opened, whichever comes first.
func (b *Batcher) closesIn() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	deadline := b.last.Add(b.idle)
	if byMax := b.opened.Add(b.max); byMax.Before(deadline) {
		deadline = byMax
	}
	return deadline.Sub(b.clock.Now())
}

// close ends the window: IDs seen in it may open the next one.
func (b *Batcher) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.seen)
}
