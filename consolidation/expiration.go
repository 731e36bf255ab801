package consolidation

import (
	"time"

	"github.com/napkit/napkit/api"
)

// expireAfter is the node's lifetime limit: the NodeClaim's spec.expireAfter when set, else the
// pool template's, else the CRD default of 720h. never reports "Never".
func expireAfter(n *Node, pool *api.NodePool) (d time.Duration, never bool) {
	setting := api.NillableDuration{}
	switch {
	case n.NodeClaim != nil && n.NodeClaim.Spec.ExpireAfter.IsSet():
		setting = n.NodeClaim.Spec.ExpireAfter
	case pool != nil && pool.Spec.Template.Spec.ExpireAfter.IsSet():
		setting = pool.Spec.Template.Spec.ExpireAfter
	default:
		return api.DefaultExpireAfter, false
	}
	if setting.IsNever() {
		return 0, true
	}
	return *setting.Duration, false
}

// expiresAt is when the node expires, measured from the NodeClaim's creation (the Node's when there
// is no NodeClaim or it has no creation time). ok is false when it never expires: expireAfter
// Never, or no creation time to measure from (a snapshot that does not say how old a node is
// cannot prove it old enough to delete by force).
func expiresAt(n *Node, pool *api.NodePool) (at time.Time, ok bool) {
	d, never := expireAfter(n, pool)
	if never {
		return time.Time{}, false
	}
	var created time.Time
	if n.NodeClaim != nil {
		created = n.NodeClaim.CreationTimestamp.Time
	}
	if created.IsZero() && n.Node != nil {
		created = n.Node.CreationTimestamp.Time
	}
	if created.IsZero() {
		return time.Time{}, false
	}
	return created.Add(d), true
}

// isExpired reports now − creation ≥ expireAfter.
func isExpired(n *Node, pool *api.NodePool, now time.Time) bool {
	at, ok := expiresAt(n, pool)
	return ok && !now.Before(at)
}
