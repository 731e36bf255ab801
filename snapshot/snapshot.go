package snapshot

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// Snapshot is the cluster as the planners see it, derived once from Objects.
type Snapshot struct {
	Now time.Time
	// Nodes are every Node, sorted by name.
	Nodes []Node
	// Pending are the pods waiting for a node, in the order of Objects.Pods.
	Pending []*corev1.Pod
	// InFlight are the NodeClaims launched (or launching) whose Node has not registered.
	InFlight []provisioner.InFlightClaim
	// Issues are what did not fit, in the order found (empty under Options.Strict).
	Issues  []*api.FieldError
	objects Objects
}

// Take derives the snapshot of objs. Under opts.Strict the first issue (an *api.FieldError of class ErrInconsistent) is returned as the error;
// otherwise Take does not fail.
func Take(objs Objects, opts Options) (*Snapshot, error) {
	s := &Snapshot{Now: opts.Now, objects: objs}
	t := &taker{Snapshot: s, opts: opts}
	t.bindPods()
	t.matchClaims()
	t.nodes()
	t.inFlight()
	if opts.Strict && len(s.Issues) > 0 {
		return nil, s.Issues[0]
	}
	return s, nil
}

// taker holds one Take's intermediate state.
type taker struct {
	*Snapshot
	opts  Options
	bound map[string][]*corev1.Pod // by node name
	// nominated are the unbound pods nominated to an existing Node, by its name (nominatedTo).
	nominated map[string][]*corev1.Pod
	claimOf   map[string]int // node name -> index in objects.NodeClaims
	nodeOf    []string       // per NodeClaim: the matched Node's name, or ""
}

func (t *taker) issue(i *api.FieldError) { t.Issues = append(t.Issues, i) }

// nodes derives every Node's lifecycle, sorted by name.
func (t *taker) nodes() {
	nodes := slices.Clone(t.objects.Nodes)
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	for _, node := range nodes {
		t.Nodes = append(t.Nodes, t.node(node))
	}
}

// ProvisionerInput is what the provisioner plans from: the pending pods and the pods of deleting
// nodes (planned as if pending, so their new home is on its way while the drain runs, as Karpenter
// does), the registered nodes that can still take pods, the claims in flight, and the objects passed
// through. Options are the caller's.
func (s *Snapshot) ProvisionerInput(opts provisioner.Options) provisioner.Input {
	in := provisioner.Input{Pods: slices.Concat(s.Pending, s.Reschedulable()), InFlight: s.InFlight,
		NodePools: s.objects.NodePools, DaemonSets: s.objects.DaemonSets, PersistentVolumeClaims: s.objects.PersistentVolumeClaims,
		PersistentVolumes: s.objects.PersistentVolumes, Namespaces: s.objects.Namespaces, Options: opts}
	for _, n := range s.Nodes {
		if n.Registered && !n.Deleting {
			in.Nodes = append(in.Nodes, provisioner.ExistingNode{Node: n.Node.Node, Pods: n.Pods, Initialized: n.Initialized})
		}
	}
	return in
}

// ConsolidationInput is what consolidation decides on: the registered nodes (the others are in
// flight, which already counts their NodeClaims), pending pods, claims in flight and the objects
// passed through. Options are the caller's; Now is the snapshot's.
func (s *Snapshot) ConsolidationInput(opts consolidation.Options) consolidation.Input {
	in := consolidation.Input{PendingPods: s.Pending, InFlight: s.InFlight, NodePools: s.objects.NodePools,
		NodeClasses: s.objects.NodeClasses, PodDisruptionBudgets: s.objects.PodDisruptionBudgets,
		DaemonSets: s.objects.DaemonSets, PersistentVolumeClaims: s.objects.PersistentVolumeClaims,
		PersistentVolumes: s.objects.PersistentVolumes, Namespaces: s.objects.Namespaces, Now: s.Now, Options: opts}
	for _, n := range s.Nodes {
		if n.Registered {
			in.Nodes = append(in.Nodes, n.Node)
		}
	}
	return in
}

// Node returns the snapshot's Node called name.
func (s *Snapshot) Node(name string) (*Node, bool) {
	i, ok := slices.BinarySearchFunc(s.Nodes, name, func(n Node, name string) int { return strings.Compare(n.Node.Node.Name, name) })
	if !ok {
		return nil, false
	}
	return &s.Nodes[i], true
}

// Pool returns the NodePool input called name.
func (s *Snapshot) Pool(name string) (*provisioner.NodePoolInput, bool) {
	return findPool(s.objects.NodePools, name)
}

func findPool(pools []provisioner.NodePoolInput, name string) (*provisioner.NodePoolInput, bool) {
	i := slices.IndexFunc(pools, func(p provisioner.NodePoolInput) bool { return p.NodePool.Name == name })
	if i < 0 {
		return nil, false
	}
	return &pools[i], true
}
