package provisioner

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// evacuateReference answers an Evacuate question by rebuilding a Solve input: the taken nodes are
// dropped and their evacuable pods become pending, NotDestinations are cordoned (a cordoned node
// keeps its pods and their topology counts but takes none, whatever the pod tolerates), and the
// NodePools are dropped unless new NodeClaims are allowed. It compiles the whole cluster per call;
// the tests hold Evacuate to it.
//
// Dropping the NodePools also drops what the existing nodes owe them: an in-flight claim's pool is
// then missing (Solve rejects the input), and a booting node's startup taints are no longer
// recognised. Evacuate keeps both (the pools still exist; they only may not launch).
func (s *Simulator) evacuateReference(req EvacuateRequest) (*Plan, error) {
	in, err := s.evacuationInput(req)
	if err != nil {
		return nil, err
	}
	return Solve(in)
}

// evacuationInput is the Solve input of the reference implementation.
func (s *Simulator) evacuationInput(req EvacuateRequest) (Input, error) {
	gone := make(map[string]bool, len(req.Nodes))
	for _, name := range req.Nodes {
		if _, ok := s.index[name]; !ok {
			return Input{}, badValue("EvacuateRequest", "nodes", name, "unknown node")
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
			if p != nil && Evacuates(p) {
				moved := p.DeepCopy()
				moved.Spec.NodeName = ""
				in.Pods = append(in.Pods, moved)
			}
		}
	}
	in.Nodes = cordonNotDestinations(in.Nodes, req.NotDestinations)
	if !req.AllowNewNodeClaims {
		in.NodePools = nil
	}
	return in, nil
}

// Evacuates says whether a pod on a removed node has to find a new place: DaemonSet and mirror
// pods go with their node, terminal pods are gone already. It is the rule Evacuate applies, so a
// caller counting the pods a removal moves agrees with the simulation.
func Evacuates(p *corev1.Pod) bool {
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

// cordonNotDestinations keeps the named nodes but cordons them so no moved pod lands there. (A
// taint would not do: a pod tolerating every taint would ignore it, and a spread honouring taints
// would stop counting the node's pods.)
func cordonNotDestinations(nodes []ExistingNode, names []string) []ExistingNode {
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
		node.Spec.Unschedulable = true
		out[i].Node = node
	}
	return out
}
