package controller

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// Reserve claims are the NodeClaims a batch plans for the pods the replay predicts kube-scheduler
// will leave without room (coverOrphans). Their nodes keep karpenter.sh/unregistered, so
// kube-scheduler sees them only once it has placed what it can of the batch on the batch's other
// nodes: released with the others, they would take their share of the burst (LeastAllocated
// favours empty nodes) and the orphans would be left without room again.
const (
	// reserveStall is how long the batch's pending pods must stop going down, once the batch's
	// other claims are initialized, before the reserve nodes are released: kube-scheduler is
	// then done with the others.
	reserveStall = 3 * time.Second
	// reservePoll is how often a reserve claim's node looks again.
	reservePoll = time.Second
)

// reservedClaims remembers which claims are reserves of which batch. It is memory only: after a
// restart a reserve claim's node registers as any other.
type reservedClaims struct {
	mu      sync.Mutex
	batches map[string]*reserveBatch // by reserve claim name
}

// reserveBatch is one batch's reserve: its other claims, its pods, and how its pending count moved.
type reserveBatch struct {
	others []string
	pods   []string // "namespace/name"
	// orphans is how many pods the reserve claims were planned for: once no more of the batch is
	// pending, kube-scheduler has placed the rest and the reserve may go at once.
	orphans int
	created time.Time
	pending int
	changed time.Time
}

func newReservedClaims() *reservedClaims { return &reservedClaims{batches: map[string]*reserveBatch{}} }

// add records a batch's reserve claims, planned for orphans pods.
func (r *reservedClaims) add(reserves, others, pods []string, orphans int, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := &reserveBatch{others: others, pods: pods, orphans: orphans, created: now, pending: -1, changed: now}
	for _, name := range reserves {
		r.batches[name] = b
	}
}

// reserveWait is how long before a reserve claim's node is looked at again (0: register it now).
// Released once the batch's other claims are initialized and either no more of its pods are
// pending than the reserve was planned for, or its pending pods stopped going down for
// reserveStall; whatever happens to the others, after the cap.
func (c *Controller) reserveWait(nc *api.NodeClaim) time.Duration {
	r := c.reserved
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.batches[nc.Name]
	if b == nil {
		return 0
	}
	now := c.now()
	pending := c.pendingOf(b.pods)
	if pending != b.pending {
		b.pending, b.changed = pending, now
	}
	settled := c.allInitialized(b.others) && (pending <= b.orphans || now.Sub(b.changed) >= reserveStall)
	if settled || pending == 0 || now.Sub(b.created) >= c.reserveCap() {
		delete(r.batches, nc.Name)
		c.log.Info("releasing reserve NodeClaim", "nodeClaim", nc.Name, "pendingPodsOfBatch", pending,
			"afterSeconds", now.Sub(b.created).Seconds())
		return 0
	}
	return reservePoll
}

// reserveCap bounds the hold: the planned pods' grace past a boot (Config.PlannedPodGrace), plus
// a minute for kube-scheduler to place the batch.
func (c *Controller) reserveCap() time.Duration { return max(c.cfg.PlannedPodGrace, 0) + time.Minute }

// pendingOf counts the pods that still exist and are not bound.
func (c *Controller) pendingOf(keys []string) int {
	n := 0
	for _, key := range keys {
		obj, ok, _ := c.inf.pods.GetStore().GetByKey(key)
		if pod, _ := obj.(*corev1.Pod); ok && pod != nil && pod.Spec.NodeName == "" && pod.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

// allInitialized: every named claim is initialized, failed or gone.
func (c *Controller) allInitialized(names []string) bool {
	for _, name := range names {
		if nc := c.claim(name); nc != nil && nc.DeletionTimestamp == nil && !claimInitialized(nc) {
			return false
		}
	}
	return true
}
