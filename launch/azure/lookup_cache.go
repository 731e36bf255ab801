package azure

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// lookupTimeout bounds one lookup, which outlives the caller that started it
// because every concurrent caller waits for the same result.
const lookupTimeout = 2 * time.Minute

// lookupCache holds one looked-up value for ttl. Concurrent misses share one
// fetch: a hundred launches starting together cost one ARM read, not a hundred.
type lookupCache[T any] struct {
	ttl   time.Duration
	clock func() time.Time
	calls singleflight.Group

	mu      sync.Mutex
	value   T
	fetched time.Time
	valid   bool
}

func newLookupCache[T any](ttl time.Duration, clock func() time.Time) *lookupCache[T] {
	return &lookupCache[T]{ttl: ttl, clock: clock}
}

// get returns the cached value, or fetches it. Failures are not cached.
func (c *lookupCache[T]) get(ctx context.Context, fetch func(context.Context) (T, error)) (T, error) {
	if v, ok := c.cached(); ok {
		return v, nil
	}
	ch := c.calls.DoChan("", func() (any, error) {
		// A caller that missed just before another's fetch ended finds its value here.
		if v, ok := c.cached(); ok {
			return v, nil
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		defer cancel()
		v, err := fetch(fctx)
		if err == nil {
			c.store(v)
		}
		return v, err
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			var zero T
			return zero, r.Err
		}
		return r.Val.(T), nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// invalidate drops the value, so the next get fetches afresh.
func (c *lookupCache[T]) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid = false
}

func (c *lookupCache[T]) cached() (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.valid && c.clock().Sub(c.fetched) < c.ttl {
		return c.value, true
	}
	var zero T
	return zero, false
}

func (c *lookupCache[T]) store(v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.value, c.fetched, c.valid = v, c.clock(), true
}
