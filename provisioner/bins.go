package provisioner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/requirements"
)

// binKind says where a bin's capacity comes from.
type binKind uint8

const (
	binNode     binKind = iota // an existing node
	binInFlight                // a launched NodeClaim without a node yet
	binNew                     // a NodeClaim this plan creates
)

// bin is a place pods can go. Existing nodes and in-flight claims have fixed labels and capacity;
// new NodeClaims carry a bitset of the pool's pairs they may still launch as, the requirements
// pods added on keys the pairs cannot express, and a target instance type whose allocatable caps
// what is packed into them (baseline bins instead keep every type that still fits).
type bin struct {
	id     int
	kind   binKind
	name   string
	pool   *pool
	seq    int
	closed bool // cordoned or deleting: holds pods but takes none
	// cap is what pods may use: for nodes allocatable minus bound pods and pending daemons; for new
	// NodeClaims the target type's allocatable net of daemons.
	cap  resVec
	used resVec
	// nodes and in-flight claims
	labels   map[string]string
	taints   []corev1.Taint
	boundPod []*corev1.Pod
	// new NodeClaims
	mask     bitset
	target   int
	creqs    requirements.Requirements
	fitList  []int32 // baseline bins: types in mask that fit, cheapest first
	charge   []int64 // what the bin takes from its pool's limits
	relaxed  bool    // minValues lowered (BestEffort)
	growable bool    // baseline bin: no target, any type that still fits
	quota    []quota // pods per shape the fleet plan meant for this NodeClaim
	ports    []hostPort
	host     []hostCount
	classes  []classCount
	pods     []*podInfo
	domCache []domEntry
	// dead: a new NodeClaim retired, or a node a Simulator took away for one question.
	dead    bool
	touched bool // changed by the current run (see engine.touch)
}

type hostCount struct {
	g            int32
	match, owner int32
}

type classCount struct {
	c *podClass
	n int32
}

type domEntry struct {
	key  string
	doms []int32
}

func (b *bin) hostCount(g int32) *hostCount {
	for i := range b.host {
		if b.host[i].g == g {
			return &b.host[i]
		}
	}
	return nil
}

func (b *bin) addHost(g int32, match, owner int32) {
	if h := b.hostCount(g); h != nil {
		h.match += match
		h.owner += owner
		return
	}
	b.host = append(b.host, hostCount{g: g, match: match, owner: owner})
}

// free returns what is left for pods.
func (b *bin) free() resVec {
	f := make(resVec, len(b.cap))
	for i := range f {
		f[i] = b.cap[i] - b.used[i]
	}
	return f
}

// binTaints are the taints placement must tolerate.
func (e *engine) binTaints(b *bin) []corev1.Taint {
	if b.kind == binNew {
		return b.pool.taints
	}
	return b.taints
}

// addNodeBins turns existing nodes (initialized first, then by name) and in-flight claims into bins.
func (e *engine) addNodeBins() error {
	nodes := slices.Clone(e.in.Nodes)
	for i, n := range nodes {
		if n.Node == nil {
			return inputErr(fmt.Sprintf("Node #%d", i), "node", "is nil")
		}
	}
	slices.SortStableFunc(nodes, func(a, b ExistingNode) int {
		if a.Initialized != b.Initialized {
			if a.Initialized {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Node.Name, b.Node.Name)
	})
	for _, n := range nodes {
		e.addNodeBin(n)
	}
	flights := slices.Clone(e.in.InFlight)
	slices.SortStableFunc(flights, func(a, b InFlightClaim) int { return cmp.Compare(a.Name, b.Name) })
	for _, f := range flights {
		if err := e.addInFlightBin(f); err != nil {
			return err
		}
	}
	return nil
}

func (e *engine) addNodeBin(n ExistingNode) {
	node := n.Node
	b := &bin{id: len(e.bins), kind: binNode, name: node.Name, target: -1}
	b.labels = normalizedLabels(node.Labels)
	if _, ok := b.labels[api.LabelHostname]; !ok {
		b.labels[api.LabelHostname] = node.Name
	}
	poolName := n.NodePool
	if poolName == "" {
		poolName = node.Labels[api.LabelNodePool]
	}
	b.pool = e.poolByName[poolName]
	b.taints = e.effectiveTaints(node.Spec.Taints, n.Initialized, b.pool)
	b.closed = node.Spec.Unschedulable || node.DeletionTimestamp != nil
	alloc := node.Status.Allocatable
	if len(alloc) == 0 {
		alloc = node.Status.Capacity
	}
	b.cap = e.rt.fromList(alloc)
	b.boundPod = livePods(n.Pods)
	e.reserveBound(b)
	if b.pool != nil {
		b.charge = b.pool.limitVector(node.Status.Capacity)
		e.charge(b.pool, b.charge, 1)
	}
	e.appendBin(b)
}

// effectiveTaints drops, for a node still booting, its pool's startup taints and the ephemeral
// taints every booting node has: pods are planned onto it as if they were gone.
func (e *engine) effectiveTaints(taints []corev1.Taint, initialized bool, p *pool) []corev1.Taint {
	if initialized {
		return taints
	}
	var out []corev1.Taint
	for _, t := range taints {
		if api.IsEphemeralTaint(t.Key) || (p != nil && containsTaint(p.startupTaints, t)) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func containsTaint(list []corev1.Taint, t corev1.Taint) bool {
	for _, x := range list {
		if x.Key == t.Key && x.Effect == t.Effect {
			return true
		}
	}
	return false
}

// livePods drops pods that no longer hold resources.
func livePods(pods []*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		if p == nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		out = append(out, p)
	}
	return out
}

// reserveBound subtracts bound pods and not-yet-running daemons from the bin's capacity.
func (e *engine) reserveBound(b *bin) {
	for _, p := range b.boundPod {
		b.cap = b.cap.subFloor(e.rt.fromMap(podRequests(p)))
		b.ports = append(b.ports, podHostPorts(&p.Spec)...)
	}
	pending, ports := e.pendingDaemons(b.labels, b.taints, b.boundPod)
	b.cap = b.cap.subFloor(pending)
	b.ports = append(b.ports, ports...)
	b.used = e.rt.zero()
}

func (e *engine) addInFlightBin(f InFlightClaim) error {
	object := "InFlightClaim " + f.Name
	p := e.poolByName[f.NodePool]
	if p == nil {
		return badValue(object, "nodePool", f.NodePool, "no such NodePool among the NodePools")
	}
	it, off := e.findOffering(p, f)
	if it == nil {
		return badValue(object, "instanceType", f.InstanceType, "not among NodePool %s's instance types", p.name)
	}
	b := &bin{id: len(e.bins), kind: binInFlight, name: f.Name, pool: p, target: -1}
	b.labels = inFlightLabels(p, it, off, f)
	b.taints = p.taints
	b.cap = e.rt.fromList(it.Allocatable())
	b.boundPod = livePods(f.Pods)
	e.reserveBound(b)
	b.charge = p.limitVector(it.Capacity)
	e.charge(p, b.charge, 1)
	e.appendBin(b)
	return nil
}

func (e *engine) findOffering(p *pool, f InFlightClaim) (*instancetype.InstanceType, *instancetype.Offering) {
	for _, it := range e.poolTypes[p.name] {
		if it == nil || it.Name != f.InstanceType {
			continue
		}
		for i := range it.Offerings {
			o := &it.Offerings[i]
			if (f.Zone == "" || o.Zone == f.Zone) && (f.CapacityType == "" || o.CapacityType == f.CapacityType) {
				return it, o
			}
		}
		return it, nil
	}
	return nil, nil
}

// inFlightLabels are the labels the claim's node will carry.
func inFlightLabels(p *pool, it *instancetype.InstanceType, off *instancetype.Offering, f InFlightClaim) map[string]string {
	labels := it.Requirements.Labels()
	if off != nil {
		for k, v := range off.Requirements.Labels() {
			labels[k] = v
		}
	}
	for k, v := range p.custom.Labels() {
		labels[k] = v
	}
	for k, v := range normalizedLabels(f.Labels) {
		labels[k] = v
	}
	if f.Zone != "" {
		labels[api.LabelZone] = f.Zone
	}
	if f.CapacityType != "" {
		labels[api.LabelCapacityType] = f.CapacityType
	}
	labels[api.LabelHostname] = f.Name
	return labels
}

func (e *engine) appendBin(b *bin) {
	e.bins = append(e.bins, b)
	e.tree.push(e.binFree(b))
}
