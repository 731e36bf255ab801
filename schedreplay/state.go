package schedreplay

import (
	"math/rand/v2"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// Defaults kube-scheduler's scoring counts for a pod that requests no cpu or memory
// (pkg/scheduler/util/pod_resources.go: DefaultMilliCPURequest, DefaultMemoryRequest).
const (
	defaultMilliCPU = 100
	defaultMemory   = 200 * 1024 * 1024
)

// nodeState is a node as the replay fills it: room in provisioner.PodRequests' units.
type nodeState struct {
	name   string
	labels map[string]string
	taints []corev1.Taint
	// cpu, memory and pods are kept apart from other resources: every pod asks for them.
	allocCPU, allocMem, allocPods int64
	usedCPU, usedMem, usedPods    int64
	// nzCPU and nzMem are the requests with kube-scheduler's non-zero defaults, for scoring.
	nzCPU, nzMem int64
	allocOther   map[corev1.ResourceName]int64
	usedOther    map[corev1.ResourceName]int64
}

// state is the replay's cluster: nodes, the pods placed on each, and the pod groups that
// affinities and spreads count.
type state struct {
	nodes  []nodeState
	pods   [][]*corev1.Pod // per node, for counting a group registered late
	groups map[string]*group
	// holders are the placed pods' required anti-affinity terms, which the incoming pod must not
	// match in their domain (the symmetric half of InterPodAffinity's filter).
	holders map[term]*holder
	// byKey numbers the domains of each topology key asked for (see domains).
	byKey map[string]*domainIndex
	// feasibleBuf is reused by every attempt's list of feasible nodes.
	feasibleBuf []int
	// nominated are, per node, the pods nominated to it and not placed yet; nominatedTo is each
	// such pod's node, by "namespace/name".
	nominated   [][]nominee
	nominatedTo map[string]int
	// rand, when set, breaks ties between equal best scores (Options.Rand).
	rand *rand.Rand
}

// domainIndex numbers the values of one topology key: of[i] is node i's domain, -1 when the
// node lacks the key; n is the number of domains.
type domainIndex struct {
	of []int
	n  int
}

// domains returns (building it once) the domain index of key: lookups by slice instead of by
// label map are what keep 10,000 pods on 900 nodes within a second.
func (st *state) domains(key string) *domainIndex {
	if d, ok := st.byKey[key]; ok {
		return d
	}
	d := &domainIndex{of: make([]int, len(st.nodes))}
	ids := map[string]int{}
	for i := range st.nodes {
		v, ok := st.nodes[i].labels[key]
		if !ok {
			d.of[i] = -1
			continue
		}
		id, seen := ids[v]
		if !seen {
			id = len(ids)
			ids[v] = id
		}
		d.of[i] = id
	}
	d.n = len(ids)
	st.byKey[key] = d
	return d
}

func newState(nodes []Node) (*state, error) {
	st := &state{nodes: make([]nodeState, len(nodes)), pods: make([][]*corev1.Pod, len(nodes)),
		groups: map[string]*group{}, holders: map[term]*holder{}, byKey: map[string]*domainIndex{},
		nominated: make([][]nominee, len(nodes)), nominatedTo: map[string]int{}}
	seen := make(map[string]bool, len(nodes))
	for i, n := range nodes {
		if n.Name == "" || seen[n.Name] {
			return nil, api.Invalid(ErrInvalidInput, "", "nodes["+strconv.Itoa(i)+"].name", n.Name, "want a unique, non-empty node name")
		}
		seen[n.Name] = true
		st.nodes[i] = newNodeState(n)
		for _, pod := range n.Pods {
			if err := st.place(pod, i); err != nil {
				return nil, err
			}
		}
	}
	return st, st.nominate(nodes)
}

func newNodeState(n Node) nodeState {
	ns := nodeState{name: n.Name, labels: n.Labels, taints: n.Taints, allocOther: map[corev1.ResourceName]int64{},
		usedOther: map[corev1.ResourceName]int64{}}
	for name, q := range n.Allocatable {
		v := provisioner.QuantityValue(name, q)
		switch name {
		case corev1.ResourceCPU:
			ns.allocCPU = v
		case corev1.ResourceMemory:
			ns.allocMem = v
		case corev1.ResourcePods:
			ns.allocPods = v
		default:
			ns.allocOther[name] = v
		}
	}
	ns.add(n.Reserved)
	ns.nzCPU, ns.nzMem = ns.usedCPU, ns.usedMem
	return ns
}

// add counts requests as used (for the filters).
func (ns *nodeState) add(req map[corev1.ResourceName]int64) {
	for name, v := range req {
		switch name {
		case corev1.ResourceCPU:
			ns.usedCPU += v
		case corev1.ResourceMemory:
			ns.usedMem += v
		case corev1.ResourcePods:
			ns.usedPods += v
		default:
			ns.usedOther[name] += v
		}
	}
}

// fits is NodeResourcesFit's filter.
func (ns *nodeState) fits(pc *podCtx) bool { return ns.fitsWith(pc, extraUse{}) }

// extraUse is room counted as used besides a node's own: the pods nominated to it. other holds
// only the incoming pod's other resources (nil when none).
type extraUse struct {
	cpu, mem, pods int64
	other          map[corev1.ResourceName]int64
}

// fitsWith is NodeResourcesFit's filter with extra counted as used.
func (ns *nodeState) fitsWith(pc *podCtx, extra extraUse) bool {
	if ns.usedCPU+extra.cpu+pc.cpu > ns.allocCPU && pc.cpu > 0 || ns.usedMem+extra.mem+pc.mem > ns.allocMem && pc.mem > 0 ||
		ns.usedPods+extra.pods+pc.pods > ns.allocPods && pc.pods > 0 {
		return false
	}
	for name, v := range pc.other {
		if v > 0 && ns.usedOther[name]+extra.other[name]+v > ns.allocOther[name] {
			return false
		}
	}
	return true
}

// place puts pod on node i: its room, the groups it belongs to, its anti-affinity terms; a
// nomination it had no longer holds room.
func (st *state) place(pod *corev1.Pod, i int) error {
	st.dropNomination(podKey(pod))
	req := provisioner.PodRequests(pod)
	ns := &st.nodes[i]
	ns.add(req)
	cpu, mem := nonZero(req)
	ns.nzCPU += cpu
	ns.nzMem += mem
	st.pods[i] = append(st.pods[i], pod)
	for _, g := range st.groups {
		if g.match(pod) {
			g.add(st, i, 1)
		}
	}
	terms, err := st.antiTerms(pod)
	if err != nil {
		return err
	}
	for _, t := range terms {
		if d := st.domains(t.key).of[i]; d >= 0 {
			st.holder(t).count[d]++
		}
	}
	return nil
}

// nonZero is the cpu and memory kube-scheduler's scoring counts for a request.
func nonZero(req map[corev1.ResourceName]int64) (cpu, mem int64) {
	cpu, mem = req[corev1.ResourceCPU], req[corev1.ResourceMemory]
	if cpu == 0 {
		cpu = defaultMilliCPU
	}
	if mem == 0 {
		mem = defaultMemory
	}
	return cpu, mem
}
