package consolidation

import (
	"errors"
	"time"

	"github.com/napkit/napkit/api"
)

// DisruptionsAllowed returns how many more of the pool's nodes its budgets let any disruption
// take now: the smallest limit over the budgeted reasons, less the nodes already being deleted.
// nodes is the pool's node count. Callers outside Decide that disrupt for reasons Karpenter does
// not budget (napkit's node repair) use it so that they still respect every budget. A
// misconfigured budget allows 0 and is returned as the error (errors.Is ErrBudget).
func DisruptionsAllowed(pool *api.NodePool, nodes, deleting int, now time.Time) (int, error) {
	limit, problems := poolLimits(pool, nodes, now)
	allowed := unbounded
	for _, r := range budgetReasons {
		allowed = min(allowed, limit[r])
	}
	return max(allowed-deleting, 0), errors.Join(problems...)
}
