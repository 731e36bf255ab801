package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/napkit/napkit/launch"
)

// GarbageCollector is the optional part of a Launcher that removes VMs and NICs no NodeClaim owns
// (a crash between create and the NodeClaim update, a claim deleted mid-launch).
// *azure.Launcher (package launch/azure) implements it.
type GarbageCollector interface {
	CollectGarbage(ctx context.Context, owned func(nodeClaimName string) bool, gracePeriod time.Duration,
		now time.Time) (launch.GCResult, error)
}

// gcLoop collects garbage every GCInterval, if the launcher can.
func (c *Controller) gcLoop(ctx context.Context) {
	gc, ok := c.cfg.Launcher.(GarbageCollector)
	if !ok {
		c.log.Info("launcher has no garbage collector; orphan VMs are not collected")
		return
	}
	wait.UntilWithContext(ctx, func(ctx context.Context) { c.collectGarbage(ctx, gc) }, c.cfg.GCInterval)
}

// collectGarbage runs one pass. Ownership is read from the cache; the grace period covers claims
// created so recently that the cache has not seen them yet. A claim in the cache owns its VM
// whether or not it decodes: the pass asks for every VM and NIC, and decoding a claim per question
// (a JSON round trip) took a tenth of the test process's CPU in a 10,000-pod scale-up.
func (c *Controller) collectGarbage(ctx context.Context, gc GarbageCollector) {
	owned := func(name string) bool { return c.hasClaim(name) || c.state.isLaunching(name) }
	res, err := gc.CollectGarbage(ctx, owned, c.cfg.GCGracePeriod, c.now())
	if err != nil && ctx.Err() == nil {
		c.log.Error("garbage collection failed", "error", err)
	}
	if len(res.DeletedVMs)+len(res.DeletedNICs) > 0 {
		c.log.Info("garbage collected", "vms", res.DeletedVMs, "nics", res.DeletedNICs)
	}
}
