package schedreplay

import (
	"math/rand/v2"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Nominations is what NominationsFor chose: the pods to nominate, and the replay with them.
type Nominations struct {
	// Pods maps each chosen pod ("namespace/name") to the node it is to be nominated to.
	Pods map[string]string
	// Result is the replay of the queue with those nominations: where kube-scheduler is then
	// expected to put every pod, and the orphans no nomination could place.
	Result *Result
	// Rounds is how many replays it took.
	Rounds int
}

// NominationOptions bound and vary NominationsFor's search.
type NominationOptions struct {
	// MaxRounds bounds the rounds; below 1, one.
	MaxRounds int
	// Samples is how many varied replays (Options: ties broken at random, the queue jittered by
	// QueueJitter) each round runs besides the plain one; the orphans of any of them are
	// nominated. kube-scheduler reaches one of many outcomes, and a pod the plain replay places
	// may be stranded in another. 0: the plain replay alone.
	Samples     int
	QueueJitter int
	// Seed seeds the samples' randomness: the same input and seed give the same nominations.
	Seed uint64
}

// NominationsFor picks, greedily, the pods to nominate to the node a plan put them on (planned,
// by "namespace/name", a Node's Name) so that the replays leave no pod without a node: each
// round replays (the plain replay and opts.Samples varied ones), nominates every orphan to its
// planned node, and goes again, until no replay strands a pod that can still be nominated (none
// planned, or nominated already), or after opts.MaxRounds plain replays (Rounds). Why:
// nominating every pod of a burst costs one write per pod and makes kube-scheduler add each
// node's nominated pods in every attempt there; the orphans' nominations keep room for the pods
// LeastAllocated's spread would strand, and the others go where kube-scheduler likes. The nodes'
// own Nominated pods stay nominated. Result is the last plain replay, with every nomination chosen.
func NominationsFor(nodes []Node, queue []*corev1.Pod, planned map[string]string, opts NominationOptions) (*Nominations, error) {
	s := newNominationSearch(nodes, planned)
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(len(queue))))
	out := &Nominations{Pods: s.chosen}
	for {
		res, err := Replay(withNominated(nodes, s.extra), queue)
		if err != nil {
			return nil, err
		}
		out.Result, out.Rounds = res, out.Rounds+1
		if out.Rounds >= opts.MaxRounds {
			return out, nil
		}
		added := s.nominate(res.Orphans)
		for range opts.Samples {
			varied, err := ReplayWith(withNominated(nodes, s.extra), queue, Options{Rand: rng, QueueJitter: opts.QueueJitter})
			if err != nil {
				return nil, err
			}
			added = s.nominate(varied.Orphans) || added
		}
		if !added {
			return out, nil
		}
	}
}

// nominationSearch is NominationsFor's state: the nodes by name, the pods nominated in the input,
// and the nominations chosen so far (per node, and by pod).
type nominationSearch struct {
	byName  map[string]int
	given   map[string]bool
	planned map[string]string
	extra   [][]*corev1.Pod
	chosen  map[string]string
}

func newNominationSearch(nodes []Node, planned map[string]string) *nominationSearch {
	s := &nominationSearch{byName: make(map[string]int, len(nodes)), given: map[string]bool{}, planned: planned,
		chosen: map[string]string{}}
	for i, n := range nodes {
		s.byName[n.Name] = i
		for _, pod := range n.Nominated {
			s.given[podKey(pod)] = true
		}
	}
	return s
}

// nominate chooses each orphan that can still be nominated, and reports whether any was.
func (s *nominationSearch) nominate(orphans []*corev1.Pod) bool {
	added := false
	for _, pod := range orphans {
		key := podKey(pod)
		target, ok := s.planned[key]
		i, known := s.byName[target]
		if _, done := s.chosen[key]; !ok || !known || done || s.given[key] {
			continue
		}
		if s.extra == nil {
			s.extra = make([][]*corev1.Pod, len(s.byName))
		}
		s.extra[i] = append(s.extra[i], pod)
		s.chosen[key] = target
		added = true
	}
	return added
}

// withNominated are the nodes with extra[i]'s pods nominated to node i too (the nodes are copied,
// not changed).
func withNominated(nodes []Node, extra [][]*corev1.Pod) []Node {
	if extra == nil {
		return nodes
	}
	out := slices.Clone(nodes)
	for i := range out {
		if len(extra[i]) > 0 {
			out[i].Nominated = append(slices.Clone(out[i].Nominated), extra[i]...)
		}
	}
	return out
}
