package controller

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/snapshot"
)

// A batch's nodes released together (with --nominate-pods, NominatePolicy): each keeps
// karpenter.sh/unregistered until every NodeClaim of its batch has a node (or failed, or went),
// at most batchReleaseCap after the batch's first node appeared; then the batch's nominations
// are written, and only then the taints go. Why: the nominations of a pod are written when its
// node registers, and a node registered a second before its batch's others takes the first pods
// of kube-scheduler's queue, nominated elsewhere or not, whatever the plan put there; the pods
// planned on it then strand (docs/benchmarks.md, issue 18: the 1,000-pod batch's nodes appear
// within ~2 s, and kube-scheduler places hundreds of pods a second). The replay behind
// NominatePredicted assumes the same: every node of the batch at once.
const (
	batchReleaseCap  = 10 * time.Second
	batchReleasePoll = 250 * time.Millisecond
)

// batchMates remembers which claims were created in one batch. Memory only: after a restart a
// claim's node registers as any other.
type batchMates struct {
	mu      sync.Mutex
	batches map[string]*mateBatch // by claim name
	// adopted are the claims whose Node a batch release already adopted (adoptMates), with
	// whether the node was then initialized: their registration writes only the claim's status.
	adopted map[string]bool
}

type mateBatch struct {
	names []string
	first time.Time // when a node of the batch was first seen; zero until then
	// releasing is set while the claim that found the batch complete writes its nominations:
	// the mates wait for them (a mate registering meanwhile would let kube-scheduler at its node
	// before its pods' nominations exist, which is what the wait is for).
	releasing bool
}

func newBatchMates() *batchMates {
	return &batchMates{batches: map[string]*mateBatch{}, adopted: map[string]bool{}}
}

// forget drops a claim that will never register (gone, deleting, failed): its mates no longer
// wait for it (allHaveNodes skips it too), and a batch none of whose claims registers leaves
// nothing behind.
func (b *batchMates) forget(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.batches, name)
	delete(b.adopted, name)
}

// add records one batch's claims (a batch of one has nobody to wait for).
func (b *batchMates) add(names []string) {
	if len(names) < 2 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	batch := &mateBatch{names: names}
	for _, name := range names {
		b.batches[name] = batch
	}
}

// batchWait is how long before the claim's node is looked at again (0: register it now): while
// some claim of its batch has no node yet, within batchReleaseCap of the batch's first node. The
// claim that finds the batch complete writes the whole batch's nominations first, then removes
// every node's taint at once (adoptMates), then requeues the others to write their claims'
// status, so that their taints go together (each registration's own nominations and claim
// writes would otherwise space them by round trips).
func (c *Controller) batchWait(ctx context.Context, nc *api.NodeClaim) time.Duration {
	names, wait := c.mates.release(nc.Name, c.now(), c.allHaveNodes)
	if wait > 0 || names == nil {
		return wait
	}
	start := time.Now()
	c.nominateMates(ctx, names)
	nominated := time.Now()
	c.adoptMates(ctx, names)
	c.log.Info("released a batch's nodes", "nodeClaims", len(names), "nominationSeconds", nominated.Sub(start).Seconds(),
		"taintSeconds", time.Since(nominated).Seconds())
	c.mates.released(names)
	for _, name := range names {
		if name != nc.Name {
			c.claimQ.Add(name)
		}
	}
	return 0
}

// release reports whether the claim's batch may go (its names, marked releasing now; nil for a
// claim in no batch), or how long to wait: complete reports whether every claim of it has a
// node. The caller writes the batch's nominations, then calls released.
func (b *batchMates) release(name string, now time.Time, complete func([]string) bool) ([]string, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	batch := b.batches[name]
	switch {
	case batch == nil:
		return nil, 0
	case batch.releasing:
		return nil, batchReleasePoll // requeued by the releasing claim once the nominations are out
	}
	if batch.first.IsZero() {
		batch.first = now
	}
	if now.Sub(batch.first) < batchReleaseCap && !complete(batch.names) {
		return nil, batchReleasePoll
	}
	batch.releasing = true
	return batch.names, 0
}

// released forgets a batch whose nominations are written: its claims register as any other.
func (b *batchMates) released(names []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range names {
		delete(b.batches, n)
	}
}

// nominateMates writes the nominations of every claim of a released batch whose node is there,
// nominateWorkers claims at a time.
func (c *Controller) nominateMates(ctx context.Context, names []string) {
	var g errgroup.Group
	g.SetLimit(nominateWorkers)
	for _, name := range names {
		obj, ok, _ := c.inf.claims.GetStore().GetByKey(name)
		nc, _ := obj.(*api.NodeClaim)
		if !ok || nc == nil {
			continue
		}
		if node := c.nodeFor(nc.Status.ProviderID); node != nil {
			g.Go(func() error {
				c.nominateOnRegistration(ctx, nc, node)
				return nil
			})
		}
	}
	_ = g.Wait() // nominateOnRegistration logs its own failures
}

// allHaveNodes: every named claim has its node, or failed its launch, is being deleted or is gone
// (read from the shared claim cache).
func (c *Controller) allHaveNodes(names []string) bool {
	for _, name := range names {
		obj, ok, _ := c.inf.claims.GetStore().GetByKey(name)
		if !ok {
			continue
		}
		nc, ok := obj.(*api.NodeClaim)
		if !ok || nc.DeletionTimestamp != nil || snapshot.LaunchFailed(nc) {
			continue
		}
		if c.nodeFor(nc.Status.ProviderID) == nil {
			return false
		}
	}
	return true
}
