package controller

import (
	"context"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// adoptMates writes the Node half of the registration (adopt: the karpenter.sh/unregistered
// taint goes) of every claim of a released batch at once, before any claim's status is written;
// register then writes only the claims' status (takeAdopted).
//
// Why: kube-scheduler moves every pending pod to its active queue at the first taint it sees
// removed, and places the pods at the head of that queue on the nodes released so far, so the
// batch's taints should go as close together as the API server allows. With each registration
// writing its Node and then its claim, the claims' status writes queued beside the later Nodes'
// writes: at 1,000 pods the window (first to last Node write) was a median 0.66 s, 0.26 s this
// way. How often kube-scheduler strands pods of the batch did not measurably change with it
// (docs/benchmarks.md, "Twentieth session").
func (c *Controller) adoptMates(ctx context.Context, names []string) {
	var g errgroup.Group
	g.SetLimit(max(c.cfg.ClaimWorkers, 1)) // as many Node writes in flight as registrations had
	for _, name := range names {
		nc := c.claim(name)
		if nc == nil || nc.DeletionTimestamp != nil || claimRegistered(nc) {
			continue
		}
		node := c.nodeFor(nc.Status.ProviderID)
		if node == nil {
			continue
		}
		g.Go(func() error {
			c.adoptNode(ctx, nc, node)
			return nil
		})
	}
	_ = g.Wait() // adoptNode logs its own failures; register writes such a Node itself
}

// adoptNode writes adopt's changes to the claim's Node and records them for register.
func (c *Controller) adoptNode(ctx context.Context, nc *api.NodeClaim, node *corev1.Node) {
	initNow, err := c.writeAdoption(ctx, nc, node)
	if err != nil {
		c.log.Warn("releasing a batch's node failed; its registration tries again", "nodeClaim", nc.Name, "node", node.Name, "error", err)
		return
	}
	c.mates.recordAdopted(nc.Name, initNow)
}

// recordAdopted remembers that the claim's Node is adopted, and whether it was initialized then.
func (b *batchMates) recordAdopted(name string, initNow bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.adopted[name] = initNow
}

// takeAdopted reports whether a batch release adopted the claim's Node (and whether it was
// initialized then), forgetting it: a later registration of the claim writes the Node itself.
func (b *batchMates) takeAdopted(name string) (initNow, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	initNow, ok = b.adopted[name]
	delete(b.adopted, name)
	return initNow, ok
}
