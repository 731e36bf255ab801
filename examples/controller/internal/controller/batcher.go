package controller

import (
	"context"
	"sync"
	"time"
)

// Batcher groups provisioning triggers into batches, as Karpenter's does: a window opens at the
// first trigger and closes once Idle passes with no new distinct trigger, or Max after it opened.
// Triggering an ID already in the window does not extend it, so a pod updated over and over
// cannot hold a batch open.
type Batcher struct {
	idle, max time.Duration
	mu        sync.Mutex
	seen      map[string]bool
	signal    chan struct{}
}

// NewBatcher returns a batcher with the given idle and maximum window.
func NewBatcher(idle, max time.Duration) *Batcher {
	return &Batcher{idle: idle, max: max, seen: map[string]bool{}, signal: make(chan struct{}, 1)}
}

// Trigger adds id to the current window (opening one if none is open).
func (b *Batcher) Trigger(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen[id] {
		return
	}
	b.seen[id] = true
	select {
	case b.signal <- struct{}{}:
	default: // a signal is already pending; one wakes the waiter
	}
}

// Wait blocks until a window opens and closes, and reports true; it reports false when ctx ends
// or no trigger arrives within poll, so the caller can look around and wait again.
func (b *Batcher) Wait(ctx context.Context, poll time.Duration) bool {
	first := time.NewTimer(poll)
	defer first.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-first.C:
		return false
	case <-b.signal:
	}
	idle, max := time.NewTimer(b.idle), time.NewTimer(b.max)
	defer idle.Stop()
	defer max.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-max.C:
			b.close()
			return true
		case <-idle.C:
			b.close()
			return true
		case <-b.signal:
			idle.Reset(b.idle)
		}
	}
}

// close ends the window: IDs seen in it may open the next one.
func (b *Batcher) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.seen)
}
