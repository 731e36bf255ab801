package azure

import (
	"math"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"golang.org/x/time/rate"
)

// RequestRates are the ARM calls per second a launcher allows itself, per
// operation type as ARM counts them (reads are GET and HEAD, deletes DELETE,
// writes the rest). ARM refills a subscription's buckets, per principal, at
// 25 reads, 10 writes and 10 deletes a second (bucket sizes 250, 200, 200;
// learn.microsoft.com request-limits-and-throttling); a caller that sends
// more gets 429s, and a launch whose PUT is still refused after azcore's
// retries fails. Keeping under the refill on the client side, as
// kubernetes-sigs/cloud-provider-azure does with its per-client read and
// write rate limits (pkg/provider/azure_ratelimit.go), makes a burst of
// hundreds of launches wait for its turn instead. A zero field takes its
// default; math.Inf(1) does not limit.
type RequestRates struct {
	Reads, Writes, Deletes float64
}

// DefaultRequestRates are four fifths of ARM's refill per subscription and
// principal, leaving the rest to whatever else calls ARM as that principal.
func DefaultRequestRates() RequestRates {
	return RequestRates{Reads: 20, Writes: 8, Deletes: 8}
}

// UnlimitedRequestRates limit nothing: for a simulated Azure that has no
// buckets and should answer as fast as a test needs.
func UnlimitedRequestRates() RequestRates {
	inf := math.Inf(1)
	return RequestRates{Reads: inf, Writes: inf, Deletes: inf}
}

// withDefaults fills zero fields.
func (r RequestRates) withDefaults() RequestRates {
	d := DefaultRequestRates()
	for _, f := range []struct{ v, def *float64 }{{&r.Reads, &d.Reads}, {&r.Writes, &d.Writes}, {&r.Deletes, &d.Deletes}} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	return r
}

// invalid names the first negative or NaN field.
func (r RequestRates) invalid() (string, float64, bool) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"Reads", r.Reads}, {"Writes", r.Writes}, {"Deletes", r.Deletes}} {
		if f.v < 0 || math.IsNaN(f.v) {
			return f.name, f.v, true
		}
	}
	return "", 0, false
}

// budget is the azcore policy that spends RequestRates: each call waits for
// its operation type's token before it is sent. It is a per-call policy, so
// the wait counts against the caller's context and not against one try's
// timeout; azcore's retries of a refused call wait their Retry-After instead.
type budget struct {
	reads, writes, deletes *rate.Limiter
}

func newBudget(r RequestRates) *budget {
	return &budget{reads: limiter(r.Reads), writes: limiter(r.Writes), deletes: limiter(r.Deletes)}
}

// limiter is a token bucket of perSecond tokens a second holding ten
// seconds' worth, as ARM's buckets do (250 reads at 25 a second): at the
// default rates that is four fifths of ARM's bucket, so a burst of launches
// (a 1,000-pod batch's 150 writes) goes out at once, as ARM allows, and the
// budget never spends faster than ARM refills.
func limiter(perSecond float64) *rate.Limiter {
	if math.IsInf(perSecond, 1) {
		return rate.NewLimiter(rate.Inf, 0)
	}
	return rate.NewLimiter(rate.Limit(perSecond), max(1, int(math.Ceil(10*perSecond))))
}

// Do waits for the call's token, then sends it.
func (b *budget) Do(req *policy.Request) (*http.Response, error) {
	if err := b.limiterFor(req.Raw().Method).Wait(req.Raw().Context()); err != nil {
		return nil, err
	}
	return req.Next()
}

func (b *budget) limiterFor(method string) *rate.Limiter {
	switch method {
	case http.MethodGet, http.MethodHead:
		return b.reads
	case http.MethodDelete:
		return b.deletes
	}
	return b.writes
}
