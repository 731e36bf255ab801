package provisioner

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// podInfo is one pending pod (or capacity-buffer replica) and where the plan puts it.
type podInfo struct {
	pod    *corev1.Pod
	key    string // namespace/name
	buffer string // capacity buffer name, for virtual pods
	class  *podClass
	// idx is the pod's position in the compiled problem's pods, its index in state.placed.
	idx int
}

// podPlace is where a run placed a pod: its bin (nil: pending), the class variant it was placed
// under, and the run's placement clock at its last placement (see placementOrder).
type podPlace struct {
	bin     *bin
	variant int
	at      int64
}

// podClass groups pods that are interchangeable for scheduling: same namespace, requests, node
// constraints, tolerations, topology terms, host ports, volumes and the labels any selector reads.
// The solver reasons about classes and places their pods in bulk.
type podClass struct {
	id     int
	sig    string
	pods   []*podInfo
	next   int
	rep    *corev1.Pod
	ns     string
	labels map[string]string
	reqMap map[corev1.ResourceName]int64
	req    resVec
	tols   []corev1.Toleration
	tolKey string
	ports  []hostPort
	// pre is set when the pods cannot be planned at all (gated, unsupported, missing volume).
	pre      Code
	preMsg   string
	terms    podTerms
	variants []*variant
	free     bool
	// zMatch/hMatch: groups (zone-like / hostname) whose selector matches the class; zOwn/hOwn:
	// required anti-affinity groups it owns; inverse: required anti groups it matches (checked).
	zMatch, hMatch, zOwn, hOwn, inverse []int32
	matches                             map[int32]bool
	cursor                              []int
	stuck                               bool
	// termGroups are the groups the class's own terms interned, preferences included;
	// err is a compile error a lenient engine deferred (see engine.lenient).
	termGroups []int32
	err        error
}

// classQueue is a run's queue of one class: pods[:next] are placed, pods[next:] wait; cursor[v]
// is the first bin variant v may still fit (bins before it rejected the class for good); stuck
// marks a free class no new NodeClaim can take.
type classQueue struct {
	pods   []*podInfo
	next   int
	cursor []int
	stuck  bool
}

// podTerms are a class's constraints before relaxation.
type podTerms struct {
	alts     []requirements.Requirements // nodeSelector ∧ each required node affinity term
	strict   []*reqSet
	volume   requirements.Requirements
	prefNode []weighted[requirements.Requirements]
	required []int32 // required pod (anti-)affinity and DoNotSchedule spread groups
	prefAff  []weighted[int32]
	prefAnti []weighted[int32]
	soft     []weighted[int32] // ScheduleAnyway spreads, in declaration order
}

// groups lists every group the terms name, required and preferred.
func (t *podTerms) groups() []int32 {
	out := slices.Clone(t.required)
	for _, list := range [][]weighted[int32]{t.prefAff, t.prefAnti, t.soft} {
		for _, w := range list {
			out = append(out, w.v)
		}
	}
	return out
}

type weighted[T any] struct {
	weight int32
	v      T
	desc   string
}

var errUnsupported = errors.New("unsupported")

// nodeAlternatives returns nodeSelector ∧ term for each required node affinity term (one
// alternative when there are none). A term with matchFields is unsupported, as in Karpenter; an
// empty term matches nothing and is skipped.
func (e *engine) nodeAlternatives(spec *corev1.PodSpec, object, path string) ([]requirements.Requirements, error) {
	base := requirements.FromLabels(spec.NodeSelector)
	na := spec.Affinity
	if na == nil || na.NodeAffinity == nil || na.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return []requirements.Requirements{base}, nil
	}
	terms := na.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return []requirements.Requirements{base}, nil
	}
	var alts []requirements.Requirements
	for i, t := range terms {
		field := fmt.Sprintf("%s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", path, i)
		if len(t.MatchFields) > 0 {
			return nil, api.Invalid(ErrInvalidInput, object, field+".matchFields", nil, "%w", errUnsupported)
		}
		if len(t.MatchExpressions) == 0 {
			continue
		}
		rs, err := termRequirements(t)
		if err != nil {
			return nil, api.Invalid(ErrInvalidInput, object, field, nil, "%w", err)
		}
		alts = append(alts, merged(base, rs))
	}
	return alts, nil
}

// compilePods turns the input pods and buffers into podInfos grouped in classes.
func (e *engine) compilePods() error {
	e.collectRelevantKeys()
	bySig := map[string]*podClass{}
	seen := map[string]bool{}
	add := func(pod *corev1.Pod, key, buffer string) error {
		if seen[key] {
			return inputErr("Pod "+key, "metadata.name", "appears twice")
		}
		seen[key] = true
		pi := &podInfo{pod: pod, key: key, buffer: buffer, idx: len(e.pods)}
		e.pods = append(e.pods, pi)
		return e.classify(pi, bySig)
	}
	for i, pod := range e.in.Pods {
		if pod == nil {
			return inputErr(fmt.Sprintf("Pod #%d", i), "", "is nil")
		}
		key := pod.Namespace + "/" + pod.Name
		if pod.Spec.NodeName != "" {
			return badValue("Pod "+key, "spec.nodeName", pod.Spec.NodeName, "the pod is bound; pass it in Nodes")
		}
		if err := add(pod, key, ""); err != nil {
			return err
		}
	}
	for _, buf := range e.in.CapacityBuffers {
		for i := range buf.Replicas {
			pod := &corev1.Pod{ObjectMeta: *buf.PodTemplate.ObjectMeta.DeepCopy(), Spec: buf.PodTemplate.Spec}
			pod.Name = fmt.Sprintf("%s-%d", buf.Name, i)
			if err := add(pod, "buffer/"+pod.Name, buf.Name); err != nil {
				return err
			}
		}
	}
	e.sortClasses()
	return nil
}

// collectRelevantKeys finds the pod label keys any selector reads.
func (e *engine) collectRelevantKeys() {
	e.relevantKeys = map[string]bool{}
	visit := func(pod *corev1.Pod) {
		if pod == nil {
			return
		}
		for _, c := range pod.Spec.TopologySpreadConstraints {
			e.markKeys(selectorKeys(c.LabelSelector), c.MatchLabelKeys)
		}
		a := pod.Spec.Affinity
		if a == nil {
			return
		}
		for _, terms := range [][]corev1.PodAffinityTerm{affinityTerms(a.PodAffinity), antiTerms(a.PodAntiAffinity)} {
			for _, t := range terms {
				e.markKeys(selectorKeys(t.LabelSelector), append(slices.Clone(t.MatchLabelKeys), t.MismatchLabelKeys...))
			}
		}
	}
	for _, p := range e.in.Pods {
		visit(p)
	}
	for _, n := range e.in.Nodes {
		for _, p := range n.Pods {
			visit(p)
		}
	}
	for _, f := range e.in.InFlight {
		for _, p := range f.Pods {
			visit(p)
		}
	}
	for i := range e.in.CapacityBuffers {
		visit(&corev1.Pod{Spec: e.in.CapacityBuffers[i].PodTemplate.Spec})
	}
	e.relevantList = sortedKeys(e.relevantKeys)
}

func (e *engine) markKeys(lists ...[]string) {
	for _, l := range lists {
		for _, k := range l {
			e.relevantKeys[k] = true
		}
	}
}

// affinityTerms lists required and preferred pod affinity terms.
func affinityTerms(pa *corev1.PodAffinity) []corev1.PodAffinityTerm {
	if pa == nil {
		return nil
	}
	out := slices.Clone(pa.RequiredDuringSchedulingIgnoredDuringExecution)
	for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
		out = append(out, w.PodAffinityTerm)
	}
	return out
}

func antiTerms(pa *corev1.PodAntiAffinity) []corev1.PodAffinityTerm {
	if pa == nil {
		return nil
	}
	out := slices.Clone(pa.RequiredDuringSchedulingIgnoredDuringExecution)
	for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
		out = append(out, w.PodAffinityTerm)
	}
	return out
}

// signature is the class key of a pod.
func (e *engine) signature(pod *corev1.Pod, reqs map[corev1.ResourceName]int64) string {
	var s sig
	s.str(pod.Namespace)
	s.requests(reqs)
	s.tag("L")
	for _, k := range e.relevantList {
		if v, ok := pod.Labels[k]; ok {
			s.str(k)
			s.str(v)
		}
	}
	s.tag("S")
	if len(pod.Spec.NodeSelector) > 0 {
		s.strMap(pod.Spec.NodeSelector)
	}
	s.affinity(pod.Spec.Affinity)
	s.tag("T")
	s.str(tolerationsCanon(pod.Spec.Tolerations))
	s.spread(pod.Spec.TopologySpreadConstraints)
	s.tag("P")
	for _, hp := range podHostPorts(&pod.Spec) {
		s.str(hp.String())
	}
	s.tag("V")
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			s.str(v.PersistentVolumeClaim.ClaimName)
		}
	}
	s.int(int64(len(pod.Spec.SchedulingGates)))
	return s.String()
}

// sigCache keeps each pod's requests and signature, so that the baseline engine, built from the
// same input, does not compute them again. Entries are read-only once stored.
type sigCache map[string]sigEntry

type sigEntry struct {
	reqs map[corev1.ResourceName]int64
	sig  string
}

func (e *engine) classify(pi *podInfo, bySig map[string]*podClass) error {
	entry, ok := e.sigs[pi.key]
	if !ok {
		if err := negativeRequest("Pod "+pi.key, pi.pod); err != nil {
			return err
		}
		entry.reqs = podRequests(pi.pod)
		entry.sig = e.signature(pi.pod, entry.reqs)
		e.sigs[pi.key] = entry
	}
	reqs, s := entry.reqs, entry.sig
	c, ok := bySig[s]
	if !ok {
		c = &podClass{id: len(e.classes), sig: s, rep: pi.pod, ns: pi.pod.Namespace, labels: pi.pod.Labels, reqMap: reqs}
		bySig[s] = c
		e.classes = append(e.classes, c)
	}
	c.pods = append(c.pods, pi)
	pi.class = c
	return nil
}

// sortClasses orders classes the way Karpenter's queue orders pods (CPU, then memory, descending)
// with the signature as a total tie-break, and each class's pods by age, then name.
func (e *engine) sortClasses() {
	slices.SortStableFunc(e.classes, func(a, b *podClass) int {
		return cmp.Or(
			cmp.Compare(b.reqMap[corev1.ResourceCPU], a.reqMap[corev1.ResourceCPU]),
			cmp.Compare(b.reqMap[corev1.ResourceMemory], a.reqMap[corev1.ResourceMemory]),
			strings.Compare(a.sig, b.sig))
	})
	for i, c := range e.classes {
		c.id = i
		// Older pods first, as Karpenter's queue does; then by name, so the order is total.
		slices.SortFunc(c.pods, func(a, b *podInfo) int {
			return cmp.Or(a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time), strings.Compare(a.key, b.key))
		})
	}
}
