package consolidation

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// ErrInvalidPlan classifies Apply's errors: the plan does not fit the snapshot (a node or pod it
// names is not there, a pod is sent to a node that will not exist).
var ErrInvalidPlan = errors.New("consolidation: plan does not fit the snapshot")

// Apply returns the snapshot as it will be once the plan's commands have run, so that a caller can
// decide again on it (a what-if, or a test iterating to a fixed point): the commands' nodes are
// gone; every replacement NodeClaim is an initialized Node named after the claim, with the claim's
// labels, taints, capacity and allocatable; every moved pod is bound where its move says, and a
// move with an empty To leaves the pod pending. Nodes that receive pods get a pod event at in.Now.
// Pods of removed nodes that do not move (DaemonSet, mirror and terminal pods) go with their node.
// in is not modified; the objects the result shares with it must not be modified either.
func Apply(in Input, plan *Plan) (Input, error) {
	if plan == nil {
		return in, nil
	}
	removed, pods, err := removedNodes(in, plan)
	if err != nil {
		return Input{}, err
	}
	claims := replacementNodes(plan, in.Now)
	out := in
	out.PendingPods = slices.Clone(in.PendingPods)
	arrivals := map[string][]*corev1.Pod{}
	for _, cmd := range plan.Commands {
		for _, m := range cmd.Moves {
			pod, ok := pods[m.Pod]
			if !ok {
				return Input{}, fmt.Errorf("%w: pod %s does not run on a node the plan removes", ErrInvalidPlan, m.Pod)
			}
			moved := pod.DeepCopy()
			moved.Spec.NodeName = m.To
			switch _, isClaim := claims[m.To]; {
			case m.To == "":
				out.PendingPods = append(out.PendingPods, moved)
			case isClaim || nodeStays(in, removed, m.To):
				arrivals[m.To] = append(arrivals[m.To], moved)
			default:
				return Input{}, fmt.Errorf("%w: pod %s moves to %q, which the plan neither keeps nor creates", ErrInvalidPlan, m.Pod, m.To)
			}
		}
	}
	out.Nodes = make([]Node, 0, len(in.Nodes)+len(claims))
	for _, n := range in.Nodes {
		if removed[n.Node.Name] {
			continue
		}
		if arrived := arrivals[n.Node.Name]; len(arrived) > 0 {
			n.Pods = append(slices.Clone(n.Pods), arrived...)
			n.LastPodEventAt = in.Now
		}
		out.Nodes = append(out.Nodes, n)
	}
	for _, name := range slices.Sorted(maps.Keys(claims)) {
		n := claims[name]
		n.Pods = arrivals[name]
		out.Nodes = append(out.Nodes, n)
	}
	return out, nil
}

// removedNodes checks the plan's nodes exist and indexes the pods on them.
func removedNodes(in Input, plan *Plan) (map[string]bool, map[string]*corev1.Pod, error) {
	index := make(map[string]*Node, len(in.Nodes))
	for i := range in.Nodes {
		if in.Nodes[i].Node == nil {
			return nil, nil, fmt.Errorf("%w: nodes[%d] has no Node", ErrInvalidPlan, i)
		}
		index[in.Nodes[i].Node.Name] = &in.Nodes[i]
	}
	removed := map[string]bool{}
	pods := map[string]*corev1.Pod{}
	for _, cmd := range plan.Commands {
		for _, name := range cmd.Nodes {
			n, ok := index[name]
			if !ok {
				return nil, nil, fmt.Errorf("%w: command removes node %q, which the snapshot lacks", ErrInvalidPlan, name)
			}
			removed[name] = true
			for _, pod := range n.Pods {
				if pod != nil {
					pods[podKey(pod)] = pod
				}
			}
		}
	}
	return removed, pods, nil
}

func nodeStays(in Input, removed map[string]bool, name string) bool {
	if removed[name] {
		return false
	}
	for i := range in.Nodes {
		if in.Nodes[i].Node.Name == name {
			return true
		}
	}
	return false
}

// replacementNodes turns the plan's replacement NodeClaims into the Nodes they become.
func replacementNodes(plan *Plan, now time.Time) map[string]Node {
	out := map[string]Node{}
	for _, cmd := range plan.Commands {
		for _, nc := range commandClaims(cmd) {
			out[nc.Name] = claimNode(nc, now)
		}
	}
	return out
}

// commandClaims are a command's replacements, whichever field carries them.
func commandClaims(cmd Command) []provisioner.NodeClaim {
	if len(cmd.Replacements) > 0 {
		return cmd.Replacements
	}
	if cmd.Replacement != nil {
		return []provisioner.NodeClaim{*cmd.Replacement}
	}
	return nil
}

// claimNode is the initialized Node a replacement becomes; the labels consolidation reads a node
// by (pool, instance type, zone, capacity type, hostname) are set whatever the claim's labels say.
func claimNode(nc provisioner.NodeClaim, now time.Time) Node {
	labels := make(map[string]string, len(nc.Labels)+5)
	maps.Copy(labels, nc.Labels)
	labels[api.LabelNodePool] = nc.NodePool
	labels[api.LabelInstanceType] = nc.InstanceType
	labels[api.LabelZone] = nc.Zone
	labels[api.LabelCapacityType] = nc.CapacityType
	labels[api.LabelHostname] = nc.Name
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: labels, CreationTimestamp: metav1.NewTime(now)},
		Spec:       corev1.NodeSpec{Taints: slices.Clone(nc.Taints)},
		Status:     corev1.NodeStatus{Capacity: nc.Capacity.DeepCopy(), Allocatable: nc.Allocatable.DeepCopy()},
	}
	return Node{Node: node, Initialized: true, InitializedAt: now, LastPodEventAt: now}
}
