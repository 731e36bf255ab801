package controller

import (
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/napkit/napkit/snapshot"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// state is what the controller remembers between passes that the API does not hold. Losing it
// (a restart) costs at most some churn: every field has a safe default.
type state struct {
	mu sync.Mutex
	// launching names NodeClaims with a launch in progress, so a reconcile never starts a second.
	launching map[string]bool
	// nominated holds, per node or NodeClaim name, until when the provisioner counts on it for
	// pending pods; consolidation leaves such nodes alone.
	nominated map[string]time.Time
	// lastPodEvent is, per node, when a pod last bound to it or left it (consolidateAfter).
	lastPodEvent map[string]time.Time
	// disrupting names the nodes a disruption command is acting on, and after it succeeded, until
	// their Node is deleted (forgetNode).
	disrupting map[string]bool
	// podEvents is the last scheduling message sent per pod, so a message is sent once.
	podEvents map[types.UID]string
	// lastClaim is the highest NodeClaim number issued per NodePool.
	lastClaim map[string]int
	// drainOrder is, per node a command removes, the order its drain evicts pods in (pdbgate.go).
	drainOrder map[string][]string
	// held is, per node, the PDBs (namespace/name) its drain was refused under and has not got
	// past; no command touching them starts meanwhile.
	held map[string][]string
	// freed wakes an idle disruption loop (idleWait) when a node being disrupted is gone: the
	// budget it held is free again. One buffered signal is enough: the loop looks at the whole
	// cluster when it wakes.
	freed chan struct{}
}

func newState() *state {
	return &state{
		launching: map[string]bool{}, nominated: map[string]time.Time{}, lastPodEvent: map[string]time.Time{},
		disrupting: map[string]bool{}, podEvents: map[types.UID]string{}, lastClaim: map[string]int{},
		freed: make(chan struct{}, 1),
	}
}

// startLaunch marks a launch as started; false means one is already running.
func (s *state) startLaunch(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.launching[name] {
		return false
	}
	s.launching[name] = true
	return true
}

func (s *state) endLaunch(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.launching, name)
}

func (s *state) isLaunching(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.launching[name]
}

// nominate records a nomination, dropping the ones that have run out.
func (s *state) nominate(name string, until time.Time, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, t := range s.nominated {
		if !t.After(now) {
			delete(s.nominated, n)
		}
	}
	s.nominated[name] = until
}

func (s *state) isNominated(name string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nominated[name].After(now)
}

func (s *state) podEvent(node string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastPodEvent[node] = at
}

func (s *state) lastPodEventAt(node string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastPodEvent[node]
}

func (s *state) setDisrupting(nodes []string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range nodes {
		if on {
			s.disrupting[n] = true
		} else {
			delete(s.disrupting, n)
		}
	}
}

func (s *state) isDisrupting(node string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disrupting[node]
}

// memory is what a snapshot taken at now needs from the state: pod events, the nominations still
// running and the nodes being disrupted, copied.
func (s *state) memory(now time.Time) snapshot.Memory {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := snapshot.Memory{LastPodEvents: maps.Clone(s.lastPodEvent), Nominated: sets.New[string](),
		Disrupting: sets.KeySet(s.disrupting)}
	for name, until := range s.nominated {
		if until.After(now) {
			m.Nominated.Insert(name)
		}
	}
	return m
}

// forgetPod drops what was remembered about a deleted pod.
func (s *state) forgetPod(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.podEvents, uid)
}

// forgetNode drops what was remembered about a deleted node; a node that was being disrupted
// signals freed.
func (s *state) forgetNode(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.lastPodEvent, name)
	delete(s.nominated, name)
	delete(s.drainOrder, name)
	delete(s.held, name)
	if s.disrupting[name] {
		select {
		case s.freed <- struct{}{}:
		default: // a signal is already waiting
		}
	}
	delete(s.disrupting, name)
}

// nextNominationEnd is the earliest nomination still running at now, or the zero time.
func (s *state) nextNominationEnd(now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, until := range s.nominated {
		if until.After(now) && (next.IsZero() || until.Before(next)) {
			next = until
		}
	}
	return next
}

// newPodMessage records msg for the pod and reports whether it differs from the last one sent.
func (s *state) newPodMessage(uid types.UID, msg string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.podEvents[uid] == msg {
		return false
	}
	s.podEvents[uid] = msg
	return true
}

var claimNumber = regexp.MustCompile(`^(.*)-([0-9]+)$`)

// highestClaimNumbers reads, once per batch, the highest number in use per NodePool among the
// names ("<pool>-<n>"), so that naming n claims costs O(n) and not O(n) per claim.
func highestClaimNumbers(names []string) map[string]int {
	out := map[string]int{}
	for _, name := range names {
		if m := claimNumber.FindStringSubmatch(name); m != nil {
			if n, err := strconv.Atoi(m[2]); err == nil && n > out[m[1]] {
				out[m[1]] = n
			}
		}
	}
	return out
}

// claimName returns "<pool>-<n>" with n above both every number this process issued for the pool
// and inUse (the highest number among the existing NodeClaims, highestClaimNumbers): the plan
// only knows the names of in-flight claims, and reusing the name of a claim deleted a moment ago
// could meet its VM still being deleted.
func (s *state) claimName(pool string, inUse int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := max(s.lastClaim[pool], inUse) + 1
	s.lastClaim[pool] = next
	return fmt.Sprintf("%s-%d", pool, next)
}
