package azuresim

import (
	"fmt"
	"net/http"
	"time"
)

// Operation statuses, as ARM's Azure-AsyncOperation endpoint reports them.
const (
	statusInProgress = "InProgress"
	statusSucceeded  = "Succeeded"
	statusFailed     = "Failed"
)

// operation is a long-running operation. finish runs once, under the state
// lock, after OperationPolls InProgress answers and not before readyAt; its
// error fails the operation.
type operation struct {
	id      string
	name    string
	pending int
	readyAt time.Time
	status  string
	err     *armError
	finish  func() *armError
}

// startOperation registers an operation and returns it with its status URL.
func (s *Sim) startOperation(c call, provider string, finish func() *armError) (*operation, string) {
	op := &operation{
		id:      fmt.Sprintf("op-%06d", s.newID()),
		name:    c.name,
		pending: s.opts.OperationPolls,
		readyAt: s.opts.Clock().Add(s.opts.OperationTime[c.op]),
		status:  statusInProgress,
		finish:  finish,
	}
	s.operations[op.id] = op
	return op, fmt.Sprintf("%s/subscriptions/%s/providers/%s/locations/%s/operations/%s?api-version=%s",
		c.base, s.opts.SubscriptionID, provider, s.opts.Location, op.id, c.query.Get("api-version"))
}

// asyncReply is an accepted long-running operation: the reply plus the
// Azure-AsyncOperation header the SDK's poller follows.
func asyncReply(r reply, opURL string) reply {
	r.header.Set("Azure-AsyncOperation", opURL)
	return r
}

// pollOperation answers an operation status GET.
func (s *Sim) pollOperation(c call) reply {
	op, ok := s.operations[c.opID]
	if !ok {
		return errorReply(http.StatusNotFound, "NotFound", fmt.Sprintf("operation %s not found", c.opID))
	}
	op.advance(s.opts.Clock())
	body := map[string]any{"name": op.id, "status": op.status}
	if op.err != nil {
		body["error"] = op.err
	}
	return jsonReply(http.StatusOK, body)
}

// advance moves the operation one poll on at now; ARM progresses an
// operation whether or not anyone watches, and a poll, a GET of its resource
// or a list that shows the resource is when the simulator looks. (Lists
// count too: a VM that AKS or Compute has finished boots whether or not its
// creator has polled, and a launcher may follow its creates by listing.)
func (op *operation) advance(now time.Time) {
	if op.status != statusInProgress {
		return
	}
	if op.pending > 0 {
		op.pending--
		return
	}
	if now.Before(op.readyAt) {
		return
	}
	op.err = op.finish()
	op.status = statusSucceeded
	if op.err != nil {
		op.status = statusFailed
	}
}
