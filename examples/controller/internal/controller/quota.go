package controller

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/napkit/napkit/launch/discovery"
	"github.com/napkit/napkit/quota"
)

// quotaState is the last good usage table and a sequence number that changes with it, so cached
// catalogues are rebuilt when quota changes.
type quotaState struct {
	mu        sync.Mutex
	table     *quota.Table
	fetchedAt time.Time
	seq       uint64
}

func (q *quotaState) current() (*quota.Table, uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.table, q.seq
}

func (q *quotaState) set(t *quota.Table, at time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.table, q.fetchedAt = t, at
	q.seq++
}

// quotaLoop refreshes the vCPU usages every Upkeep.QuotaInterval, when a usage source is set.
func (c *Controller) quotaLoop(ctx context.Context) {
	if c.cfg.Upkeep.Usage == nil {
		return
	}
	wait.UntilWithContext(ctx, c.refreshQuota, c.cfg.Upkeep.QuotaInterval)
}

// refreshQuota fetches the usages. On failure the last table stays in force until it is older
// than discovery.MaxStaleness, then quota fails open (no offering held back), as upstream's.
func (c *Controller) refreshQuota(ctx context.Context) {
	usages, at, err := c.cfg.Upkeep.Usage.List(ctx)
	if err == nil {
		c.quota.set(quota.NewTable(usages), at)
		return
	}
	if ctx.Err() != nil {
		return
	}
	c.log.Error("listing vCPU usages failed; keeping the last quota table", "error", err)
	c.quota.mu.Lock()
	stale := c.quota.table != nil && c.now().Sub(c.quota.fetchedAt) > discovery.MaxStaleness
	c.quota.mu.Unlock()
	if stale {
		c.log.Warn("quota table older than its maximum staleness; quota no longer holds offerings back")
		c.quota.set(nil, time.Time{})
	}
}
