package azuresim

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateLimit is one token bucket: it holds at most Bucket tokens, starts full,
// and gets RefillPerSecond tokens back each second; every request takes one.
// A zero Bucket leaves its class unlimited. A RefillPerSecond of zero or less
// never refills, so the class serves Bucket requests in all.
type RateLimit struct {
	Bucket          int
	RefillPerSecond float64
}

// RateLimits are ARM's subscription buckets, one per operation type: reads
// are GET and HEAD, deletes DELETE, writes PUT, PATCH and POST.
type RateLimits struct {
	Reads, Writes, Deletes RateLimit
}

// ARMSubscriptionLimits are the buckets ARM gives one subscription (per
// principal and region) since its 2024 move to "Regional throttling and token
// bucket algorithm", as
// https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling
// lists them: reads 250 refilled at 25/s, writes and deletes 200 at 10/s.
func ARMSubscriptionLimits() RateLimits {
	return RateLimits{
		Reads:   RateLimit{Bucket: 250, RefillPerSecond: 25},
		Writes:  RateLimit{Bucket: 200, RefillPerSecond: 10},
		Deletes: RateLimit{Bucket: 200, RefillPerSecond: 10},
	}
}

// ClassCount is what the limiter did with one operation type's requests.
type ClassCount struct {
	// Served passed the limiter (took a token, or the class is unlimited);
	// Throttled found the bucket empty and got 429.
	Served, Throttled int
}

// RateCounts are the limiter's counts per operation type.
type RateCounts struct {
	Reads, Writes, Deletes ClassCount
}

// RateLimited counts the requests the limiter served and throttled; they
// stay zero without Options.RateLimits.
func (s *Sim) RateLimited() RateCounts {
	if s.limiter == nil {
		return RateCounts{}
	}
	s.limiter.mu.Lock()
	defer s.limiter.mu.Unlock()
	c := s.limiter.counts
	return RateCounts{Reads: c[classReads], Writes: c[classWrites], Deletes: c[classDeletes]}
}

// rateClass is an operation type; it indexes the limiter's buckets.
type rateClass int

const (
	classReads rateClass = iota
	classWrites
	classDeletes
	classCount
)

// classNames are the operation type as a 429 names it and the header that
// reports its tokens left.
var classNames = [classCount]struct{ opType, header string }{
	classReads:   {"Read", "x-ms-ratelimit-remaining-subscription-reads"},
	classWrites:  {"Write", "x-ms-ratelimit-remaining-subscription-writes"},
	classDeletes: {"Delete", "x-ms-ratelimit-remaining-subscription-deletes"},
}

// classOf is the operation type ARM counts a method against.
func classOf(method string) rateClass {
	switch method {
	case http.MethodGet, http.MethodHead:
		return classReads
	case http.MethodDelete:
		return classDeletes
	}
	return classWrites
}

// limiter holds the buckets. It has its own lock so that throttling does not
// contend with the state lock.
type limiter struct {
	clock   func() time.Time
	mu      sync.Mutex
	buckets [classCount]bucket
	counts  [classCount]ClassCount
}

func newLimiter(limits *RateLimits, clock func() time.Time) *limiter {
	if limits == nil {
		return nil
	}
	l := &limiter{clock: clock}
	now := clock()
	for c, rl := range [classCount]RateLimit{limits.Reads, limits.Writes, limits.Deletes} {
		l.buckets[c] = bucket{limit: rl, tokens: float64(rl.Bucket), at: now}
	}
	return l
}

// admission is the limiter's verdict on one request.
type admission struct {
	class     rateClass
	took      bool          // a token was taken: stamp the remaining header
	remaining int           // whole tokens left after this request's
	wait      time.Duration // > 0: refused until a token is back
}

// admit takes a token for the request or refuses it. Retail Prices calls
// are not ARM's, and unmetered ones are the simulation's own, so no bucket
// applies to either and neither is counted.
func (s *Sim) admit(req *http.Request, op Op) admission {
	if s.limiter == nil || op == OpRetailPrices || req.Header.Get(UnmeteredHeader) != "" {
		return admission{}
	}
	return s.limiter.take(classOf(req.Method))
}

func (l *limiter) take(c rateClass) admission {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := &l.buckets[c]
	if b.limit.Bucket <= 0 {
		l.counts[c].Served++
		return admission{class: c}
	}
	remaining, wait := b.take(l.clock())
	if wait > 0 {
		l.counts[c].Throttled++
		return admission{class: c, wait: wait}
	}
	l.counts[c].Served++
	return admission{class: c, took: true, remaining: remaining}
}

// refusal is the 429 a refused request gets.
func (a admission) refusal() (reply, bool) {
	if a.wait <= 0 {
		return reply{}, false
	}
	return throttledFor(classNames[a.class].opType, a.wait), true
}

// stamp adds the tokens left to the reply, as ARM does on the answers it lets through.
func (a admission) stamp(r reply) reply {
	if !a.took {
		return r
	}
	h := r.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(classNames[a.class].header, strconv.Itoa(a.remaining))
	r.header = h
	return r
}

// bucket is one class's tokens as of time at.
type bucket struct {
	limit  RateLimit
	tokens float64
	at     time.Time
}

// epsilon absorbs float error, so a caller that waits exactly the
// Retry-After it was given finds its token.
const epsilon = 1e-9

// noRefill is the Retry-After of a bucket that never refills.
const noRefill = time.Hour

// take refills the bucket up to now and takes a token: it returns the whole
// tokens left, or how long until one is back.
func (b *bucket) take(now time.Time) (int, time.Duration) {
	if d := now.Sub(b.at); d > 0 && b.limit.RefillPerSecond > 0 {
		b.tokens = min(float64(b.limit.Bucket), b.tokens+d.Seconds()*b.limit.RefillPerSecond)
	}
	if now.After(b.at) {
		b.at = now // a clock that steps back refills nothing
	}
	if b.tokens < 1-epsilon {
		return 0, b.untilToken()
	}
	b.tokens = max(0, b.tokens-1)
	return int(b.tokens + epsilon), 0
}

// untilToken is how long until the bucket holds one token, rounded up to
// whole milliseconds (the finest Retry-After ARM's headers carry).
func (b *bucket) untilToken() time.Duration {
	if b.limit.RefillPerSecond <= 0 {
		return noRefill
	}
	// The slop keeps float error from adding a millisecond to an exact wait.
	ms := math.Ceil((1-b.tokens)/b.limit.RefillPerSecond*1000 - 1e-9)
	return max(time.Millisecond, time.Duration(ms)*time.Millisecond)
}
