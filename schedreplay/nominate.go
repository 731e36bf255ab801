package schedreplay

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// A nominated pod, as kube-scheduler v1.37 treats it: while it waits, every attempt of a pod of
// equal or lower priority filters its nominated node with the nominated pod's requests added
// (RunFilterPluginsWithNominatedPods, pkg/scheduler/framework/runtime/framework.go, which adds
// the pods of priority >= the incoming pod's); the scores ignore it (they read the snapshot of
// bound pods); when its own turn comes the nominated node is tried first and taken if it passes
// (evaluateNominatedNode); a failed attempt clears the nomination. The replay adds the nominated
// pods' requests to the resource filter and their required anti-affinity, both ways, to
// InterPodAffinity's (the PreFilter extensions' AddPod), and count them in the incoming pod's
// DoNotSchedule spreads (PodTopologySpread's AddPod, plugins/podtopologyspread/filtering.go), not
// their affinities.
type nominee struct {
	key      string
	pod      *corev1.Pod
	priority int32
	req      map[corev1.ResourceName]int64
	anti     []term
}

// nominate records the nodes' nominated pods; a pod nominated twice is an input error.
func (st *state) nominate(nodes []Node) error {
	for i, n := range nodes {
		for k, pod := range n.Nominated {
			key := podKey(pod)
			if _, dup := st.nominatedTo[key]; dup {
				return api.Invalid(ErrInvalidInput, "", "nodes["+strconv.Itoa(i)+"].nominated["+strconv.Itoa(k)+"]", key,
					"want each pod nominated to one node at most")
			}
			anti, err := st.antiTerms(pod)
			if err != nil {
				return err
			}
			st.nominatedTo[key] = i
			st.nominated[i] = append(st.nominated[i], nominee{key: key, pod: pod, priority: priority(pod),
				req: provisioner.PodRequests(pod), anti: anti})
		}
	}
	return nil
}

// dropNomination forgets the pod's nomination, if it has one: placed, or failed an attempt.
func (st *state) dropNomination(key string) {
	i, ok := st.nominatedTo[key]
	if !ok {
		return
	}
	delete(st.nominatedTo, key)
	list := st.nominated[i]
	for k := range list {
		if list[k].key == key {
			st.nominated[i] = append(list[:k], list[k+1:]...)
			return
		}
	}
}

// fitsNominated is NodeResourcesFit's filter on node i with the pods nominated there (of no lower
// priority than the incoming pod, the pod itself left out) counted as placed.
func (st *state) fitsNominated(pc *podCtx, i int) bool {
	var extra extraUse
	for _, nom := range st.nominated[i] {
		if nom.key == pc.key || nom.priority < pc.priority {
			continue
		}
		extra.cpu += nom.req[corev1.ResourceCPU]
		extra.mem += nom.req[corev1.ResourceMemory]
		extra.pods += nom.req[corev1.ResourcePods]
		for name := range pc.other {
			if extra.other == nil {
				extra.other = map[corev1.ResourceName]int64{}
			}
			extra.other[name] += nom.req[name]
		}
	}
	return st.nodes[i].fitsWith(pc, extra)
}

// nominatedAntiOK is InterPodAffinity's filter against the pods nominated to node i (of no lower
// priority, the pod itself left out): kube-scheduler adds them to the node it evaluates, so
// neither the incoming pod's anti-affinity terms may select one of them nor theirs the pod,
// where node i has the term's topology key.
func (st *state) nominatedAntiOK(pc *podCtx, i int) bool {
	for _, nom := range st.nominated[i] {
		if nom.key == pc.key || nom.priority < pc.priority {
			continue
		}
		for _, t := range pc.antiTerms {
			if st.domains(t.key).of[i] >= 0 && t.group.match(nom.pod) {
				return false
			}
		}
		for _, t := range nom.anti {
			if st.domains(t.key).of[i] >= 0 && t.group.match(pc.pod) {
				return false
			}
		}
	}
	return true
}

// nominatedSpreadOK is PodTopologySpread's filter in the pass with the pods nominated to node i
// added (of no lower priority, the pod itself left out): each one its constraint selects (in the
// pod's namespace) raises the count of node i's domain, and the minimum with it when that domain
// held it. So two replicas of a zone-spread Deployment nominated to one node can refuse each
// other there: with the zones level, the first counts the second and finds a skew of 2.
// kube-scheduler requires both passes (RunFilterPluginsWithNominatedPods); spreadOK is the other.
func (st *state) nominatedSpreadOK(pc *podCtx, i int, mins []minimum) bool {
	if len(pc.hard) == 0 || len(st.nominated[i]) == 0 {
		return true
	}
	for k, c := range pc.hard {
		extra := 0
		for _, nom := range st.nominated[i] {
			if nom.key != pc.key && nom.priority >= pc.priority && c.group.match(nom.pod) {
				extra++
			}
		}
		if extra == 0 {
			continue
		}
		n, _ := c.count(i, c.host)
		if n+extra+c.self-mins[k].raised(c.domainOf(i), n, extra) > c.maxSkew {
			return false
		}
	}
	return true
}

// priority is the pod's scheduling priority (0 when unset, as kube-scheduler's corev1helpers.PodPriority).
func priority(pod *corev1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}
