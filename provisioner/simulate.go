package provisioner

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Simulator answers many "what if these nodes went away" questions about one cluster snapshot, the
// question consolidation asks for every candidate. It is built once from an Input whose Nodes are the
// cluster (Input.Pods are pods already pending) and is not safe for concurrent use.
type Simulator struct {
	in Input
	// index maps a node name to its position in in.Nodes.
	index map[string]int
}

// EvacuateRequest names the nodes to take away and what the simulation may use instead.
type EvacuateRequest struct {
	// Nodes are removed; their pods (other than DaemonSet-owned and mirror pods, and terminal pods)
	// become pending and are placed with the pods already pending.
	Nodes []string
	// NotDestinations are nodes that stay in the cluster (their pods still count for topology) but
	// must not receive moved pods: nodes inside their own consolidateAfter window, say.
	NotDestinations []string
	// AllowNewNodeClaims lets the simulation open new NodeClaims from Input.NodePools; without it a
	// pod that fits nowhere else is unschedulable.
	AllowNewNodeClaims bool
}

// NewSimulator compiles the snapshot. The Input is kept by reference: do not modify it afterwards.
func NewSimulator(in Input) (*Simulator, error) {
	s := &Simulator{in: in, index: make(map[string]int, len(in.Nodes))}
	for i, n := range in.Nodes {
		if n.Node == nil {
			return nil, fmt.Errorf("%w: nodes[%d] has no Node", ErrInvalidInput, i)
		}
		if _, dup := s.index[n.Node.Name]; dup {
			return nil, fmt.Errorf("%w: node %q appears twice", ErrInvalidInput, n.Node.Name)
		}
		s.index[n.Node.Name] = i
	}
	return s, nil
}

// Evacuate simulates removing req.Nodes and returns the provisioner's plan for their pods: where
// each lands (ExistingNodes, InFlightClaims), which NodeClaims would be created and which pods
// would stay unschedulable. The simulator's snapshot is unchanged afterwards.
func (s *Simulator) Evacuate(req EvacuateRequest) (*Plan, error) {
	in, err := s.evacuationInput(req)
	if err != nil {
		return nil, err
	}
	return Solve(in)
}

// evacuationInput is the Solve input the reference implementation of Evacuate runs.
func (s *Simulator) evacuationInput(req EvacuateRequest) (Input, error) {
	gone := make(map[string]bool, len(req.Nodes))
	for _, name := range req.Nodes {
		if _, ok := s.index[name]; !ok {
			return Input{}, fmt.Errorf("%w: evacuate: unknown node %q", ErrInvalidInput, name)
		}
		gone[name] = true
	}
	in := s.in
	in.Pods = slices.Clone(s.in.Pods)
	in.Nodes = make([]ExistingNode, 0, len(s.in.Nodes))
	for _, n := range s.in.Nodes {
		if !gone[n.Node.Name] {
			in.Nodes = append(in.Nodes, n)
			continue
		}
		for _, p := range n.Pods {
			if evacuates(p) {
				moved := p.DeepCopy()
				moved.Spec.NodeName = ""
				in.Pods = append(in.Pods, moved)
			}
		}
	}
	in.Nodes = markNotDestinations(in.Nodes, req.NotDestinations)
	if !req.AllowNewNodeClaims {
		in.NodePools = nil
	}
	return in, nil
}

// evacuates says whether a pod on a removed node has to find a new place: DaemonSet and mirror pods
// go with their node, terminal pods are gone already.
func evacuates(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return false
		}
	}
	return true
}

// markNotDestinations keeps the named nodes but taints them so no moved pod lands there.
func markNotDestinations(nodes []ExistingNode, names []string) []ExistingNode {
	if len(names) == 0 {
		return nodes
	}
	skip := make(map[string]bool, len(names))
	for _, n := range names {
		skip[n] = true
	}
	out := slices.Clone(nodes)
	for i, n := range out {
		if !skip[n.Node.Name] {
			continue
		}
		node := n.Node.DeepCopy()
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: NotDestinationTaint, Effect: corev1.TaintEffectNoSchedule})
		out[i].Node = node
	}
	return out
}

// NotDestinationTaint is the taint the reference Evacuate puts on nodes named in NotDestinations.
const NotDestinationTaint = "napkit.io/not-a-destination"
