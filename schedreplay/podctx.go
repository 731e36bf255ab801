package schedreplay

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// spread is one topology spread constraint of the incoming pod.
type spread struct {
	termView
	group   *group
	key     string
	maxSkew int
	self    int // 1 when the pod itself matches the constraint's selector
}

// podCtx is what the filters and scores ask of the incoming pod, worked out once per attempt.
type podCtx struct {
	pod *corev1.Pod
	// key ("namespace/name") and priority tell the pod apart from the pods nominated to a node.
	key      string
	priority int32
	req      map[corev1.ResourceName]int64
	// cpu, mem and pods are req's, other the rest of it (nil when none).
	cpu, mem, pods int64
	other          map[corev1.ResourceName]int64
	nzCPU          int64
	nzMem          int64
	bestEffort     bool
	nodeSel        labels.Selector   // nodeSelector; nil: any node
	nodeTerms      []labels.Selector // required node affinity, ORed; nil: any node
	anti           []termView
	antiTerms      []term // anti's terms, for the pods nominated to a node (nominatedAntiOK)
	affinity       []termView
	// affinityFirst: no placed pod matches the affinity terms and the pod matches them itself, so
	// the first pod of a self-affine group may go anywhere (InterPodAffinity's special case).
	affinityFirst bool
	repelledBy    []*holder // placed pods' anti-affinity terms that select this pod
	hard, soft    []spread
	softOwn       bool // the soft constraints are the pod's own (nodes lacking a key are not scored)
}

func (st *state) podContext(pod *corev1.Pod) (*podCtx, error) {
	pc := &podCtx{pod: pod, key: podKey(pod), priority: priority(pod), req: provisioner.PodRequests(pod)}
	pc.nzCPU, pc.nzMem = nonZero(pc.req)
	for name, v := range pc.req {
		switch name {
		case corev1.ResourceCPU:
			pc.cpu = v
		case corev1.ResourceMemory:
			pc.mem = v
		case corev1.ResourcePods:
			pc.pods = v
		default:
			if pc.other == nil {
				pc.other = map[corev1.ResourceName]int64{}
			}
			pc.other[name] = v
		}
	}
	pc.bestEffort = pc.req[corev1.ResourceCPU] == 0 && pc.req[corev1.ResourceMemory] == 0
	if len(pod.Spec.NodeSelector) > 0 {
		pc.nodeSel = labels.SelectorFromSet(pod.Spec.NodeSelector)
	}
	var err error
	if pc.nodeTerms, err = nodeAffinity(pod); err != nil {
		return nil, err
	}
	anti, err := st.antiTerms(pod)
	if err != nil {
		return nil, err
	}
	affinity, err := st.affinityTerms(pod)
	if err != nil {
		return nil, err
	}
	pc.affinityFirst = len(affinity) > 0
	pc.antiTerms = anti
	for _, t := range anti {
		pc.anti = append(pc.anti, t.view(st))
	}
	for _, t := range affinity {
		pc.affinity = append(pc.affinity, t.view(st))
		pc.affinityFirst = pc.affinityFirst && t.group.match(pod) && sum(t.group.perNode) == 0
	}
	for _, h := range st.holders {
		if h.group.match(pod) {
			pc.repelledBy = append(pc.repelledBy, h)
		}
	}
	return pc, st.spreads(pc)
}

// spreads sorts the pod's topology spread constraints into hard and soft ones; a pod with none
// and a controller gets the system defaults (soft, per host and per zone).
func (st *state) spreads(pc *podCtx) error {
	pod := pc.pod
	for i, c := range pod.Spec.TopologySpreadConstraints {
		field := "spec.topologySpreadConstraints[" + strconv.Itoa(i) + "].labelSelector"
		g, err := st.selectorGroup(pod, field, c.LabelSelector, nil)
		if err != nil {
			return err
		}
		s := spread{termView: term{group: g, key: c.TopologyKey}.view(st), group: g, key: c.TopologyKey, maxSkew: int(c.MaxSkew)}
		if g.match(pod) {
			s.self = 1
		}
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			pc.soft = append(pc.soft, s)
		} else {
			pc.hard = append(pc.hard, s)
		}
	}
	pc.softOwn = len(pod.Spec.TopologySpreadConstraints) > 0
	if g := st.ownerGroup(pod); g != nil && !pc.softOwn {
		pc.soft = []spread{
			{termView: term{group: g, key: corev1.LabelHostname}.view(st), group: g, key: corev1.LabelHostname, maxSkew: 3},
			{termView: term{group: g, key: corev1.LabelTopologyZone}.view(st), group: g, key: corev1.LabelTopologyZone, maxSkew: 5},
		}
	}
	return nil
}

// nodeAffinity turns the pod's required node affinity into selectors, one per term (ORed).
func nodeAffinity(pod *corev1.Pod) ([]labels.Selector, error) {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil, nil
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	out := make([]labels.Selector, 0, len(terms))
	for i, t := range terms {
		sel := labels.NewSelector()
		for j, e := range t.MatchExpressions {
			r, err := labels.NewRequirement(e.Key, nodeOperator(e.Operator), e.Values)
			if err != nil {
				field := "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[" +
					strconv.Itoa(i) + "].matchExpressions[" + strconv.Itoa(j) + "]"
				return nil, api.Invalid(ErrInvalidInput, podObject(pod), field, e, "unusable node selector requirement: %w", err)
			}
			sel = sel.Add(*r)
		}
		if len(t.MatchExpressions) == 0 {
			sel = labels.Nothing() // a term of matchFields only: node names are not modelled
		}
		out = append(out, sel)
	}
	return out, nil
}

func nodeOperator(op corev1.NodeSelectorOperator) selection.Operator {
	switch op {
	case corev1.NodeSelectorOpIn:
		return selection.In
	case corev1.NodeSelectorOpNotIn:
		return selection.NotIn
	case corev1.NodeSelectorOpExists:
		return selection.Exists
	case corev1.NodeSelectorOpDoesNotExist:
		return selection.DoesNotExist
	case corev1.NodeSelectorOpGt:
		return selection.GreaterThan
	case corev1.NodeSelectorOpLt:
		return selection.LessThan
	}
	return selection.Operator(op)
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
