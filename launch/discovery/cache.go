package discovery

import (
	"sync"
	"time"
)

// ttlCache holds answers per key until they are older than ttl.
type ttlCache[T any] struct {
	ttl   time.Duration
	clock func() time.Time
	mu    sync.Mutex
	items map[string]cached[T]
}

type cached[T any] struct {
	value T
	at    time.Time
}

func newTTLCache[T any](ttl time.Duration, clock func() time.Time) *ttlCache[T] {
	return &ttlCache[T]{ttl: ttl, clock: clock, items: map[string]cached[T]{}}
}

// get returns the cached value and when it was fetched, if it is still fresh.
func (c *ttlCache[T]) get(key string) (T, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[key]
	if !ok || c.clock().Sub(it.at) >= c.ttl {
		var zero T
		return zero, time.Time{}, false
	}
	return it.value, it.at, true
}

func (c *ttlCache[T]) put(key string, v T) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.clock()
	c.items[key] = cached[T]{value: v, at: at}
	return at
}
