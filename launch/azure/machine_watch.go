package azure

import (
	"context"
	"sync"
	"time"
)

// machineWatch answers the polls of the machines being built, in both Machine API modes, from
// LISTs of the agent pool that all waiters share, instead of one GET (or operation poll) per
// machine per poll.
//
// Why: a burst of a thousand machines goes out as twenty PUTs, but a GET per machine every
// PollFrequency is hundreds of reads a second, and ARM refills a subscription's reads at 25 a
// second: paced under that, each machine was looked at about once a minute (docs/benchmarks.md,
// eleventh session). One list of the pool is one read per page and answers for every machine on
// it. Azure's provider polls its machine creates from a cache refreshed by LIST for the same
// reason (Azure/karpenter-provider-azure designs/0011-machine-cache.md).
//
// A list costs a read per page whether one machine is awaited or a thousand, so a waiter lists
// only while the machines awaited outnumber the pages the last list took; otherwise it GETs its
// own machine. A machine the last list did not show (just created, or gone) is also read by
// GET, so a missing machine ends its wait with not-found as before.
type machineWatch struct {
	list func(ctx context.Context) (machines []*machineResource, pages int, err error)
	freq time.Duration

	mu       sync.Mutex
	waiting  int                         // waiters registered
	pages    int                         // pages the last list took (1 before any)
	listing  bool                        // a list is in flight
	done     chan struct{}               // closed when the list in flight ends
	machines map[string]*machineResource // by name, from the last list
	err      error                       // the last list's error
	listedAt time.Time                   // when the last list ended, by the monotonic clock the sleeps between polls use
}

// listTimeout bounds one list of the pool, 429 waits included: a waiter whose list failed reads
// its machine by GET instead.
const listTimeout = time.Minute

func newMachineWatch(list func(context.Context) ([]*machineResource, int, error), freq time.Duration) *machineWatch {
	return &machineWatch{list: list, freq: freq, pages: 1}
}

// join registers a waiter; the returned function unregisters it.
func (w *machineWatch) join() (leave func()) {
	w.mu.Lock()
	w.waiting++
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		w.waiting--
		w.mu.Unlock()
	}
}

// worthListing reports whether enough machines are awaited for a list to cost fewer reads than
// their GETs.
func (w *machineWatch) worthListing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.waiting > w.pages
}

// look returns the named machine as a list no older than freq showed it: it joins the list in
// flight, or starts one when the last is stale. ok is false when the list failed or did not show
// the machine.
func (w *machineWatch) look(ctx context.Context, name string) (m *machineResource, ok bool, err error) {
	w.mu.Lock()
	fresh := !w.listedAt.IsZero() && time.Since(w.listedAt) < w.freq
	if !fresh && !w.listing {
		w.listing, w.done = true, make(chan struct{})
		go w.refresh(ctx, w.done)
	}
	done := w.done
	w.mu.Unlock()
	if !fresh {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return nil, false, nil
	}
	m, ok = w.machines[name]
	return m, ok, nil
}

// refresh lists the pool once and publishes the result. It runs detached from the waiter that
// started it, since others wait on it too, bounded by listTimeout.
func (w *machineWatch) refresh(ctx context.Context, done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(listTimeout, 10*w.freq))
	defer cancel()
	all, pages, err := w.list(ctx)
	byName := make(map[string]*machineResource, len(all))
	for _, m := range all {
		byName[m.Name] = m
	}
	w.mu.Lock()
	w.machines, w.err, w.listedAt, w.listing = byName, err, time.Now(), false
	if err == nil {
		w.pages = max(1, pages)
	}
	w.mu.Unlock()
	close(done)
}

// listAnswered lists the pool's machines, waiting out ARM's 429 as the polls do, and says how many
// pages (reads) the list took.
func (l *Launcher) listAnswered(ctx context.Context) ([]*machineResource, int, error) {
	type listed struct {
		machines []*machineResource
		pages    int
	}
	r, err := untilAnswered(ctx, l.opts.PollFrequency, func() (listed, error) {
		all, pages, err := l.listMachinePages(ctx)
		return listed{all, pages}, err
	})
	return r.machines, r.pages, err
}
