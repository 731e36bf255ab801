package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/api"
)

// TestIdleWait: an idle pass waits the interval, or less when a node may become a candidate
// (wake) or a disrupted node is gone (freed), never less than a tenth of the interval; a stop
// ends it at once. Polling alone waited the whole interval in every case.
func TestIdleWait(t *testing.T) {
	t.Parallel()
	const interval = 2 * time.Second
	tests := []struct {
		name     string
		wake     time.Duration // after the clock's now; 0: none
		freed    bool
		stopped  bool
		min, max time.Duration
		want     bool
	}{
		{name: "nothing to wait for: the interval", min: interval, max: interval + time.Second, want: true},
		{name: "consolidateAfter ends first", wake: 300 * time.Millisecond, min: 250 * time.Millisecond, max: time.Second, want: true},
		{name: "a wake past already: a tenth of the interval", wake: -time.Minute, min: 150 * time.Millisecond,
			max: time.Second, want: true},
		{name: "a wake after the interval: the interval", wake: time.Hour, min: interval, max: interval + time.Second, want: true},
		{name: "a disrupted node gone", freed: true, max: 500 * time.Millisecond, want: true},
		{name: "stopped", stopped: true, max: 500 * time.Millisecond, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.c.cfg.DisruptionInterval = interval
			var wake time.Time
			if tt.wake != 0 {
				wake = testNow.Add(tt.wake)
			}
			if tt.freed {
				e.c.state.setDisrupting([]string{"n1"}, true)
				e.c.state.forgetNode("n1")
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.stopped {
				cancel()
			}
			began := time.Now()
			assert.Equal(t, tt.want, e.c.idleWait(ctx, wake))
			took := time.Since(began)
			assert.GreaterOrEqual(t, took, tt.min)
			assert.Less(t, took, tt.max)
		})
	}
}

// TestForgetNodeSignalsFreedOnce: a deleted node that was being disrupted signals freed; a node
// that was not does not, and signals do not pile up.
func TestForgetNodeSignalsFreedOnce(t *testing.T) {
	t.Parallel()
	s := newState()
	s.forgetNode("plain")
	assert.Empty(t, s.freed, "a node no command disrupted frees no budget")
	s.setDisrupting([]string{"a", "b"}, true)
	s.forgetNode("a")
	s.forgetNode("b")
	assert.Len(t, s.freed, 1, "one waiting signal is enough")
}

// TestWakeAt: the earliest future end of an initialized, not disrupted claim's consolidateAfter
// (counted from its latest pod event) or of a nomination; claims being deleted or disrupted,
// already consolidatable, or in a pool with consolidateAfter Never do not count.
func TestWakeAt(t *testing.T) {
	t.Parallel()
	claim := func(name string, opts ...claimOpt) *api.NodeClaim {
		nc := testClaim(name, "default", pid(name), append([]claimOpt{launched(), registered(), initialized()}, opts...)...)
		nc.Status.NodeName = name
		return nc
	}
	tests := []struct {
		name      string
		after     api.NillableDuration
		claims    []*api.NodeClaim
		events    map[string]time.Duration // node -> last pod event, relative to now
		disrupt   []string
		nominated time.Duration // a nomination ending then, relative to now; 0: none
		want      time.Duration // relative to now; 0: zero time
	}{
		{name: "no claims", after: api.NewDuration(30 * time.Second)},
		{name: "the earliest pod event's end", after: api.NewDuration(30 * time.Second),
			claims: []*api.NodeClaim{claim("a"), claim("b")},
			events: map[string]time.Duration{"a": -10 * time.Second, "b": -20 * time.Second}, want: 10 * time.Second},
		{name: "initialization counts when no pod came", after: api.NewDuration(2 * time.Minute),
			claims: []*api.NodeClaim{claim("a")}, want: time.Minute},
		{name: "already consolidatable", after: api.NewDuration(30 * time.Second),
			claims: []*api.NodeClaim{claim("a")}, events: map[string]time.Duration{"a": -time.Minute}},
		{name: "disrupted and deleting claims skipped", after: api.NewDuration(30 * time.Second),
			claims:  []*api.NodeClaim{claim("a"), claim("b", claimDeleting()), claim("c")},
			events:  map[string]time.Duration{"a": -5 * time.Second, "b": -25 * time.Second, "c": -28 * time.Second},
			disrupt: []string{"c"}, want: 25 * time.Second},
		{name: "a nomination ends first", after: api.NewDuration(30 * time.Second),
			claims: []*api.NodeClaim{claim("a")}, events: map[string]time.Duration{"a": -5 * time.Second},
			nominated: 3 * time.Second, want: 3 * time.Second},
		{name: "Never", after: api.NeverDuration(), claims: []*api.NodeClaim{claim("a")},
			events: map[string]time.Duration{"a": -5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addClass(t, "default")
			pool := poolOf("default", "default")
			pool.Spec.Disruption.ConsolidateAfter = tt.after
			e.addPool(t, pool)
			e.addClaim(t, tt.claims...)
			for node, at := range tt.events {
				e.c.state.podEvent(node, testNow.Add(at))
			}
			e.c.state.setDisrupting(tt.disrupt, true)
			if tt.nominated != 0 {
				e.c.state.nominate("x", testNow.Add(tt.nominated), testNow)
			}
			var want time.Time
			if tt.want != 0 {
				want = testNow.Add(tt.want)
			}
			assert.Equal(t, want, e.c.wakeAt(e.c.takeSnapshot()).In(time.UTC))
		})
	}
}

// TestAwaitDeletes: after a pass that started only deletes, the loop waits until their nodes are
// gone (forgetNode, as each Node's deletion arrives) before the next decision, so that decision
// counts the budget they held as free; at most a tenth of the interval, since a drain may be slow.
