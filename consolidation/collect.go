package consolidation

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// ErrInvalidInput classifies every error about the Input itself; test with errors.Is. errors.As
// with *api.FieldError gives the field (a Go path into Input, e.g. "Nodes[3].Node") and its value.
var ErrInvalidInput = api.InvalidClass("consolidation: invalid input")

// inputErr is an *api.FieldError of class ErrInvalidInput; value is nil for a missing entry.
func inputErr(field string, value any, format string, args ...any) error {
	return api.Invalid(ErrInvalidInput, "", field, value, format, args...)
}

// poolInfo is what collect looks up once per NodePool.
type poolInfo struct {
	pool  *api.NodePool
	class *api.AKSNodeClass
	types map[string]*instancetype.InstanceType
	zones sets.Set[string] // offeredZones
	hash  string
}

// collect validates in and works out a candidate record for every node that belongs to a NodePool
// of the input (blocker, drift and expiry filled in; methods filter by them). Nodes that cannot be
// candidates at all (no karpenter.sh/nodepool label, unknown pool, being deleted, not initialized,
// no instance-type label, a pool without instance types) are returned in skipped with the reason.
// A node whose instance type the pool's catalogue lacks IS a candidate, with instanceType nil,
// price 0 and drift InstanceTypeNotFound: drift is exactly the method that should replace it.
// Both lists are sorted by node name.
func collect(in *Input) (cands []*candidate, skipped []Blocked, err error) {
	if err := validate(in); err != nil {
		return nil, nil, err
	}
	pools := indexPools(in)
	if err := checkPlacementLabels(in, pools); err != nil {
		return nil, nil, err
	}
	pdbs := newPDBIndex(in.PodDisruptionBudgets)
	if err := pdbs.computeAllowances(in); err != nil {
		return nil, nil, err
	}
	cands, skipped = []*candidate{}, []Blocked{}
	for i := range in.Nodes {
		c, why := newCandidate(in, i, pools, pdbs)
		if why != "" {
			skipped = append(skipped, Blocked{Node: in.Nodes[i].Node.Name, Reason: why})
			continue
		}
		cands = append(cands, c)
	}
	slices.SortFunc(cands, func(a, b *candidate) int { return cmp.Compare(a.name, b.name) })
	slices.SortFunc(skipped, func(a, b Blocked) int { return cmp.Compare(a.Node, b.Node) })
	return cands, skipped, nil
}

// validate rejects what collect would have to dereference or could not tell apart.
func validate(in *Input) error {
	if in == nil {
		return inputErr("Input", nil, "is nil: the input is required")
	}
	if in.Now.IsZero() {
		return inputErr("Now", in.Now, "the decision time is required")
	}
	if f := in.Options.MinReplaceSavings; !(f >= 0 && f < 1) {
		return inputErr("Options.MinReplaceSavings", f, "want a fraction in [0, 1), such as 0.1 for 10 %%")
	}
	if err := validateNodes(in.Nodes); err != nil {
		return err
	}
	if err := validatePools(in.NodePools); err != nil {
		return err
	}
	for i, nc := range in.NodeClasses {
		if nc == nil {
			return inputErr(fmt.Sprintf("NodeClasses[%d]", i), nil, "is nil: every node class must be set")
		}
	}
	for i, pdb := range in.PodDisruptionBudgets {
		if err := validatePDB(i, pdb); err != nil {
			return err
		}
	}
	return nil
}

// validatePDB rejects what the API server would: no PDB, both minAvailable and maxUnavailable, or
// a value that is neither a count nor a percentage. A broken selector is not rejected: such a PDB
// blocks its namespace's pods (see pdbEntry.invalid).
func validatePDB(i int, pdb *policyv1.PodDisruptionBudget) error {
	field := fmt.Sprintf("PodDisruptionBudgets[%d]", i)
	if pdb == nil {
		return inputErr(field, nil, "is nil: every PodDisruptionBudget must be set")
	}
	spec := &pdb.Spec
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		return inputErr(field+".spec", nil, "is nil: minAvailable and maxUnavailable cannot both be set (PodDisruptionBudget %s/%s)", pdb.Namespace, pdb.Name)
	}
	for name, v := range map[string]*intstr.IntOrString{"minAvailable": spec.MinAvailable, "maxUnavailable": spec.MaxUnavailable} {
		if v == nil {
			continue
		}
		if n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, true); err != nil || n < 0 {
			return inputErr(field+".spec."+name, v.String(), "want a count such as 1 or a percentage such as 20%% (PodDisruptionBudget %s/%s)", pdb.Namespace, pdb.Name)
		}
	}
	return nil
}

func validateNodes(nodes []Node) error {
	seen := make(map[string]int, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		field := fmt.Sprintf("Nodes[%d].Node", i)
		switch {
		case n.Node == nil:
			return inputErr(field, nil, "is nil: every node needs its Node")
		case n.Node.Name == "":
			return inputErr(field+".metadata.name", "", "every node needs a name")
		}
		if j, dup := seen[n.Node.Name]; dup {
			return inputErr(field+".metadata.name", n.Node.Name, "the same name as Nodes[%d]", j)
		}
		seen[n.Node.Name] = i
		for j, p := range n.Pods {
			if p == nil {
				return inputErr(fmt.Sprintf("Nodes[%d].Pods[%d]", i, j), nil, "is nil: every pod of node %q must be set", n.Node.Name)
			}
		}
	}
	return nil
}

func validatePools(pools []provisioner.NodePoolInput) error {
	seen := make(map[string]int, len(pools))
	for i, p := range pools {
		field := fmt.Sprintf("NodePools[%d].NodePool", i)
		switch {
		case p.NodePool == nil:
			return inputErr(field, nil, "is nil: every pool entry needs its NodePool")
		case p.NodePool.Name == "":
			return inputErr(field+".metadata.name", "", "every NodePool needs a name")
		}
		if j, dup := seen[p.NodePool.Name]; dup {
			return inputErr(field+".metadata.name", p.NodePool.Name, "the same name as NodePools[%d]", j)
		}
		seen[p.NodePool.Name] = i
		for j, it := range p.InstanceTypes {
			if it == nil {
				return inputErr(fmt.Sprintf("NodePools[%d].InstanceTypes[%d]", i, j), nil, "is nil: every instance type of NodePool %q must be set", p.NodePool.Name)
			}
		}
	}
	return nil
}

// indexPools resolves every pool's node class and instance types once. Among node classes or
// instance types of one name, the first wins.
func indexPools(in *Input) map[string]*poolInfo {
	classes := make(map[string]*api.AKSNodeClass, len(in.NodeClasses))
	for _, nc := range in.NodeClasses {
		if _, ok := classes[nc.Name]; !ok {
			classes[nc.Name] = nc
		}
	}
	pools := make(map[string]*poolInfo, len(in.NodePools))
	for _, p := range in.NodePools {
		info := &poolInfo{pool: p.NodePool, types: make(map[string]*instancetype.InstanceType, len(p.InstanceTypes)),
			hash: NodePoolHash(p.NodePool)}
		if ref := p.NodePool.Spec.Template.Spec.NodeClassRef; ref != nil {
			info.class = classes[ref.Name]
		}
		for _, it := range p.InstanceTypes {
			if _, ok := info.types[it.Name]; !ok {
				info.types[it.Name] = it
			}
		}
		info.zones = offeredZones(info)
		pools[p.NodePool.Name] = info
	}
	return pools
}

// newCandidate builds the record of in.Nodes[i], or says why the node cannot be one.
func newCandidate(in *Input, i int, pools map[string]*poolInfo, pdbs pdbIndex) (*candidate, string) {
	n := &in.Nodes[i]
	p, typeName, why := resolve(n, pools)
	if why != "" {
		return nil, why
	}
	labels := n.Node.Labels
	c := &candidate{
		index: i, name: n.Node.Name, node: n, pool: p.pool, class: p.class,
		instanceType: p.types[typeName],
		zone:         nodeLabel(labels, api.LabelZone),
		capacityType: labels[api.LabelCapacityType],
		pods:         movingPods(n.Pods),
	}
	c.price = offeringPrice(c.instanceType, c.zone, c.capacityType)
	c.disruptionCost = DisruptionCost(c.pods)
	c.empty = c.disruptionCost <= perNodeDisruptionCost
	c.consolidatableAt, c.consolidatable = consolidatable(n, p.pool, in.Now)
	c.blocker = nodeBlocker(n, pdbs, in.Now)
	c.charges = pdbs.charges(n.Pods)
	c.drift, c.driftChanged = driftReason(c, p.hash, in.Cluster, in.Now)
	c.expired = isExpired(n, p.pool, in.Now)
	return c, ""
}

// resolve finds the node's pool and instance-type name, or says why the node is no candidate.
func resolve(n *Node, pools map[string]*poolInfo) (p *poolInfo, typeName, why string) {
	poolName, ok := n.Node.Labels[api.LabelNodePool]
	if !ok {
		return nil, "", "not managed by a NodePool (no " + api.LabelNodePool + " label)"
	}
	p = pools[poolName]
	typeName = nodeLabel(n.Node.Labels, api.LabelInstanceType)
	switch {
	case p == nil:
		return nil, "", fmt.Sprintf("NodePool %q is not in the input", poolName)
	case isDeleting(n):
		return nil, "", "being deleted"
	case n.Nominated:
		// Karpenter's NewCandidate refuses it the same way ("node is nominated for a pending pod",
		// kubernetes-sigs/karpenter pkg/controllers/disruption/types.go): pods are on their way.
		return nil, "", "nominated for pending pods"
	case !n.Initialized:
		return nil, "", "not initialized"
	case typeName == "":
		return nil, "", "no " + api.LabelInstanceType + " label"
	case len(p.types) == 0:
		// Without a catalogue every node would look like InstanceTypeNotFound drift; an input that
		// lists no types proves nothing about the node's, so it is left alone.
		return nil, "", fmt.Sprintf("NodePool %q has no instance types in the input", poolName)
	}
	return p, typeName, ""
}

// isDeleting reports a node already on its way out: marked by the caller (Deleting or Departing),
// or with a deletion timestamp on its Node or NodeClaim.
func isDeleting(n *Node) bool {
	return n.Deleting || n.Departing || (n.Node != nil && n.Node.DeletionTimestamp != nil) ||
		(n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil)
}

// nodeLabel reads a well-known label by its stable key, or by a deprecated alias of it.
func nodeLabel(labels map[string]string, key string) string {
	if v, ok := labels[key]; ok {
		return v
	}
	for _, alias := range api.AliasesOf(key) {
		if v, ok := labels[alias]; ok {
			return v
		}
	}
	return ""
}

// offeringPrice is the hourly price of the node's offering; 0 when the type is unknown, a label is
// missing or the type has no such offering (the node then looks free, so consolidation never
// counts savings it cannot prove).
func offeringPrice(it *instancetype.InstanceType, zone, capacityType string) float64 {
	if it == nil {
		return 0
	}
	if o, ok := findOffering(it, zone, capacityType); ok {
		return o.Price
	}
	return 0
}

// movingPods are the pods that must find a new node if this one goes: the same test the
// provisioner's simulation applies (DaemonSet-controlled and mirror pods go with the node,
// terminal pods are gone already), so disruption costs and simulated moves agree.
func movingPods(pods []*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		if provisioner.Evacuates(p) {
			out = append(out, p)
		}
	}
	return out
}

// consolidatable reports when the node may be consolidated (consolidateAfter after its last pod
// event) and whether that time has come. consolidateAfter Never gives the zero time and false.
func consolidatable(n *Node, pool *api.NodePool, now time.Time) (at time.Time, ok bool) {
	after, never := consolidateAfter(pool)
	if never {
		return time.Time{}, false
	}
	at = lastPodEvent(n).Add(after)
	return at, !now.Before(at)
}

// lastPodEvent is Node.LastPodEventAt, else the NodeClaim's status.lastPodEventTime, else when the
// node became initialized, else its creation. A snapshot that gives none of them says nothing
// recent happened, so the zero time is returned and the node is consolidatable.
func lastPodEvent(n *Node) time.Time {
	switch {
	case !n.LastPodEventAt.IsZero():
		return n.LastPodEventAt
	case n.NodeClaim != nil && !n.NodeClaim.Status.LastPodEventTime.IsZero():
		return n.NodeClaim.Status.LastPodEventTime.Time
	case !n.InitializedAt.IsZero():
		return n.InitializedAt
	case n.Node != nil:
		return n.Node.CreationTimestamp.Time
	}
	return time.Time{}
}

// consolidateAfter is the pool's spec.disruption.consolidateAfter: absent is the CRD default 0s,
// "Never" turns consolidation and emptiness off. A nil pool never consolidates.
func consolidateAfter(pool *api.NodePool) (d time.Duration, never bool) {
	if pool == nil {
		return 0, true
	}
	ca := pool.Spec.Disruption.ConsolidateAfter
	switch {
	case !ca.IsSet():
		return api.DefaultConsolidateAfter, false
	case ca.IsNever():
		return 0, true
	}
	return *ca.Duration, false
}

// poolPolicy returns the pool's consolidation policy (the CRD default WhenEmptyOrUnderutilized when
// unset) and whether consolidateAfter is Never. A nil pool reports the default and never.
func poolPolicy(pool *api.NodePool) (policy api.ConsolidationPolicy, never bool) {
	_, never = consolidateAfter(pool)
	if pool == nil || pool.Spec.Disruption.ConsolidationPolicy == "" {
		return api.DefaultConsolidationPolicy, never
	}
	return pool.Spec.Disruption.ConsolidationPolicy, never
}
