package schedreplay

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// ErrInvalidInput is the class of every input error Replay returns (an unparsable selector, a
// node without a name, two nodes of one name, a pod nominated twice).
var ErrInvalidInput = api.InvalidClass("schedreplay: invalid input")

// Node is a node kube-scheduler may bind the pods to.
type Node struct {
	// Name must be unique; Replay sets no hostname label, so give the node one (Labels) if pods
	// spread or repel each other per host.
	Name        string
	Labels      map[string]string
	Taints      []corev1.Taint
	Allocatable corev1.ResourceList
	// Pods are already there (bound, or expected to be): they use room and count for affinities
	// and spreads.
	Pods []*corev1.Pod
	// Reserved is room taken by pods not listed (DaemonSets), in provisioner.PodRequests' units
	// (cpu in millicores, "pods" as a count).
	Reserved map[corev1.ResourceName]int64
	// Nominated are pods of the queue nominated to this node (status.nominatedNodeName). Until
	// one is placed, its requests count against the node for every pod of no higher priority,
	// and when its turn comes it goes here if the node passes the filters (see nominate.go).
	Nominated []*corev1.Pod
}

// Result is where the replay put each pod.
type Result struct {
	// Placed maps "namespace/name" to the node's name.
	Placed map[string]string
	// Orphans are the pods no node took, in queue order.
	Orphans []*corev1.Pod
}

// Replay places queue's pods on nodes as kube-scheduler's default profile would (see the package
// documentation), in order, then tries the pods left over once more. Neither argument is changed.
// Of equal best scores it takes the first node.
func Replay(nodes []Node, queue []*corev1.Pod) (*Result, error) {
	return ReplayWith(nodes, queue, Options{})
}

// ReplayWith is Replay with the variations of Options: one of the outcomes kube-scheduler may
// reach, where Replay gives the one it reaches with the first node of every tie.
func ReplayWith(nodes []Node, queue []*corev1.Pod, opts Options) (*Result, error) {
	st, err := newState(nodes)
	if err != nil {
		return nil, err
	}
	st.rand = opts.Rand
	queue = opts.jitter(queue)
	res := &Result{Placed: make(map[string]string, len(queue))}
	var left []*corev1.Pod
	for _, pod := range queue {
		placed, err := st.schedule(pod)
		if err != nil {
			return nil, err
		}
		if placed < 0 {
			left = append(left, pod)
			continue
		}
		res.Placed[podKey(pod)] = st.nodes[placed].name
	}
	for _, pod := range left {
		placed, err := st.schedule(pod)
		if err != nil {
			return nil, err
		}
		if placed < 0 {
			res.Orphans = append(res.Orphans, pod)
			continue
		}
		res.Placed[podKey(pod)] = st.nodes[placed].name
	}
	return res, nil
}

func podKey(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }

func podObject(pod *corev1.Pod) string { return fmt.Sprintf("Pod %s", podKey(pod)) }
