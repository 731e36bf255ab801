package consolidation

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/api"
)

// The replay checker plays a plan's commands the way the cluster would carry them out and checks
// every move at the moment it happens, as kube-scheduler's filters would (upstream: kubernetes
// pkg/scheduler/framework/plugins/podtopologyspread/filtering.go and
// interpodaffinity/filtering.go): it shares no code with the planner or the provisioner.
//
// Model: commands run in plan order, each on the cluster the earlier ones left. A command's
// replacements exist (empty) before its drain starts; its nodes' pods are taken off and its nodes
// leave the topology (they are tainted and go away, as the simulation assumes); then each move
// lands in the listed order, and is checked against the pods placed so far:
//
//   - required pod anti-affinity, both ways: the pod's terms against the pods in the same
//     topology domain, and every placed pod's terms against the pod;
//   - every DoNotSchedule topology spread of the pod: with domains the nodes that carry the key and
//     pass the pod's node selector and required node affinity (nodeAffinityPolicy Honor,
//     nodeTaintsPolicy Ignore: the defaults), matchNum + selfMatch − min ≤ maxSkew, min being 0
//     while fewer domains than minDomains exist.

// rpNode is a node during the replay.
type rpNode struct {
	name   string
	labels map[string]string
	pods   []*corev1.Pod
}

// rpState is the cluster during the replay.
type rpState struct {
	nodes map[string]*rpNode
}

func newRPState(in Input) *rpState {
	s := &rpState{nodes: map[string]*rpNode{}}
	for _, n := range in.Nodes {
		s.nodes[n.Node.Name] = &rpNode{name: n.Node.Name, labels: fxHostLabels(n.Node.Labels, n.Node.Name),
			pods: fxLivePods(n.Pods)}
	}
	return s
}

// sorted lists the nodes by name, so problems come out in a stable order.
func (s *rpState) sorted() []*rpNode {
	out := make([]*rpNode, 0, len(s.nodes))
	for _, n := range s.nodes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *rpNode) int {
		if a.name < b.name {
			return -1
		}
		if a.name > b.name {
			return 1
		}
		return 0
	})
	return out
}

// replayPlan replays plan on in and returns every break it finds, and the number of moves checked.
func replayPlan(in Input, plan *Plan) (problems []string, moves int) {
	s := newRPState(in)
	for i, c := range plan.Commands {
		where := fmt.Sprintf("command %d (%s %v)", i, c.Reason, c.Nodes)
		for _, nc := range fxReplacements(c) {
			labels := map[string]string{}
			for k, v := range nc.Labels {
				labels[k] = v
			}
			labels[api.LabelZone], labels[api.LabelHostname], labels[api.LabelNodePool] = nc.Zone, nc.Name, nc.NodePool
			s.nodes[nc.Name] = &rpNode{name: nc.Name, labels: labels}
		}
		leaving := map[string]*corev1.Pod{}
		for _, name := range c.Nodes {
			if n := s.nodes[name]; n != nil {
				for _, p := range n.pods {
					leaving[p.Namespace+"/"+p.Name] = p
				}
				delete(s.nodes, name)
			}
		}
		for j, m := range c.Moves {
			pod, dest := leaving[m.Pod], s.nodes[m.To]
			switch {
			case m.To == "":
				continue
			case pod == nil:
				problems = append(problems, fmt.Sprintf("%s move %d: pod %s is not on the command's nodes", where, j, m.Pod))
				continue
			case dest == nil:
				problems = append(problems, fmt.Sprintf("%s move %d: pod %s goes to unknown node %s", where, j, m.Pod, m.To))
				continue
			}
			moves++
			for _, why := range s.check(pod, dest) {
				problems = append(problems, fmt.Sprintf("%s move %d: pod %s to %s: %s", where, j, m.Pod, m.To, why))
			}
			moved := pod.DeepCopy()
			moved.Spec.NodeName = dest.name
			dest.pods = append(dest.pods, moved)
		}
	}
	return problems, moves
}

// check says what placing pod on dest now would break.
func (s *rpState) check(pod *corev1.Pod, dest *rpNode) []string {
	var out []string
	out = append(out, s.checkAntiAffinity(pod, dest)...)
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.DoNotSchedule {
			if why := s.checkSpread(pod, dest, c); why != "" {
				out = append(out, why)
			}
		}
	}
	return out
}

// rpTermMatches reports whether a required (anti-)affinity term of owner selects pod.
func rpTermMatches(t corev1.PodAffinityTerm, owner, pod *corev1.Pod) bool {
	namespaces := t.Namespaces
	if len(namespaces) == 0 && t.NamespaceSelector == nil {
		namespaces = []string{owner.Namespace}
	}
	if t.NamespaceSelector == nil && !slices.Contains(namespaces, pod.Namespace) {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	return err == nil && sel.Matches(k8slabels.Set(pod.Labels))
}

func rpAntiTerms(p *corev1.Pod) []corev1.PodAffinityTerm {
	if p.Spec.Affinity == nil || p.Spec.Affinity.PodAntiAffinity == nil {
		return nil
	}
	return p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
}

func (s *rpState) checkAntiAffinity(pod *corev1.Pod, dest *rpNode) []string {
	var out []string
	for _, n := range s.sorted() {
		for _, other := range n.pods {
			for _, t := range rpAntiTerms(pod) {
				if v, ok := dest.labels[t.TopologyKey]; ok && n.labels[t.TopologyKey] == v && rpTermMatches(t, pod, other) {
					out = append(out, fmt.Sprintf("its anti-affinity (%s) excludes %s/%s on %s", t.TopologyKey, other.Namespace, other.Name, n.name))
				}
			}
			for _, t := range rpAntiTerms(other) {
				if v, ok := n.labels[t.TopologyKey]; ok && dest.labels[t.TopologyKey] == v && rpTermMatches(t, other, pod) {
					out = append(out, fmt.Sprintf("the anti-affinity (%s) of %s/%s on %s excludes it", t.TopologyKey, other.Namespace, other.Name, n.name))
				}
			}
		}
	}
	return out
}

func (s *rpState) checkSpread(pod *corev1.Pod, dest *rpNode, c corev1.TopologySpreadConstraint) string {
	domain, ok := dest.labels[c.TopologyKey]
	if !ok {
		return fmt.Sprintf("the node lacks the spread's key %s", c.TopologyKey)
	}
	sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil {
		return err.Error()
	}
	counts := map[string]int{}
	for _, n := range s.nodes {
		v, has := n.labels[c.TopologyKey]
		if !has || !fxNodeSelectorMet(pod, n.labels) {
			continue
		}
		counts[v] += 0
		for _, other := range n.pods {
			if other.Namespace == pod.Namespace && other.DeletionTimestamp == nil && sel.Matches(k8slabels.Set(other.Labels)) {
				counts[v]++
			}
		}
	}
	lowest := -1
	for _, n := range counts {
		if lowest < 0 || n < lowest {
			lowest = n
		}
	}
	if c.MinDomains != nil && len(counts) < int(*c.MinDomains) {
		lowest = 0
	}
	self := 0
	if sel.Matches(k8slabels.Set(pod.Labels)) {
		self = 1
	}
	if skew := counts[domain] + self - max(lowest, 0); skew > int(c.MaxSkew) {
		return fmt.Sprintf("spread on %s: domain %s would hold %d against a minimum of %d, skew %d > maxSkew %d",
			c.TopologyKey, domain, counts[domain]+self, lowest, skew, c.MaxSkew)
	}
	return ""
}
