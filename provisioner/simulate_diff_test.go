package provisioner

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// cluster draws a random snapshot for the Simulator: the property generator's pools, daemons,
// in-flight claims and a few pending pods, and a dozen nodes full of bound pods with every kind of
// constraint, some of which never move (DaemonSet, mirror and finished pods).
func (g gen) cluster() Input {
	in := g.input()
	in.Pods = in.Pods[:min(len(in.Pods), g.r.IntN(5))]
	for i := range 3 + g.r.IntN(10) {
		name := fmt.Sprintf("sim-node-%d", i)
		var bound []*corev1.Pod
		for j := range g.r.IntN(7) {
			bound = append(bound, g.boundPod(fmt.Sprintf("sim-%d-%d", i, j)))
		}
		n := node(name, g.pick(testZones...), g.pick("2", "4", "8"), g.pick("4Gi", "8Gi", "16Gi"), bound...)
		g.decorateNode(&n, in.NodePools)
		in.Nodes = append(in.Nodes, n)
	}
	return in
}

// boundPod is a bound pod, now and then one that stays with its node or is finished.
func (g gen) boundPod(name string) *corev1.Pod {
	p := g.podSpec(name)
	switch {
	case g.chance(0.05):
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds-a", Controller: &yes}}
	case g.chance(0.03):
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	case g.chance(0.03):
		p.Status.Phase = corev1.PodSucceeded
	}
	return p
}

func (g gen) decorateNode(n *ExistingNode, pools []NodePoolInput) {
	if len(pools) > 0 && g.chance(0.5) {
		n.NodePool = pools[g.r.IntN(len(pools))].NodePool.Name
	}
	if g.chance(0.15) {
		n.Node.Spec.Taints = append(n.Node.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoSchedule})
	}
	if g.chance(0.1) {
		n.Node.Spec.Taints = append(n.Node.Spec.Taints, corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule})
	}
	if g.chance(0.05) {
		n.Node.Spec.Unschedulable = true
	}
	if g.chance(0.2) {
		n.Node.Labels["team"] = g.pick(genLabels...)
	}
	n.Initialized = g.chance(0.9)
}

// question draws an Evacuate request over the snapshot's nodes.
func (g gen) question(in Input) EvacuateRequest {
	var req EvacuateRequest
	perm := g.r.Perm(len(in.Nodes))
	k := 1 + g.r.IntN(min(3, len(in.Nodes)))
	for _, i := range perm[:k] {
		req.Nodes = append(req.Nodes, in.Nodes[i].Node.Name)
	}
	for _, i := range perm[k:min(len(perm), k+g.r.IntN(3))] {
		req.NotDestinations = append(req.NotDestinations, in.Nodes[i].Node.Name)
	}
	req.AllowNewNodeClaims = g.chance(0.5)
	return req
}

// TestEvacuateMatchesReference holds the incremental Evacuate to the reference (a full Solve of
// the rebuilt input) on random clusters and questions, asked in a row of one Simulator: the same
// pods stay unschedulable, every plan passes the independent checker against the reference input,
// no plan opens more NodeClaims than the reference, and asking the first question again gives the
// same plan (each question leaves the snapshot as it found it).
func TestEvacuateMatchesReference(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	identical, compared := 0, 0
	for i := range n {
		g := gen{rand.New(rand.NewPCG(uint64(i), 11))}
		in := g.cluster()
		reqs := make([]EvacuateRequest, 6)
		for j := range reqs {
			reqs[j] = g.question(in)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			sim, err := NewSimulator(in)
			if err != nil {
				t.Fatalf("NewSimulator: %v", err)
			}
			var first []byte
			for j, req := range reqs {
				same, ok := compareEvacuate(t, sim, req)
				compared += b2i(ok)
				identical += b2i(same)
				if j == 0 {
					first = planJSON(t, sim, req)
				}
			}
			if first != nil && string(planJSON(t, sim, reqs[0])) != string(first) {
				t.Fatalf("asking %+v again gives another plan", reqs[0])
			}
		})
	}
	t.Logf("%d of %d plans identical to the reference's", identical, compared)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func planJSON(t *testing.T, sim *Simulator, req EvacuateRequest) []byte {
	t.Helper()
	plan, err := sim.Evacuate(req)
	if err != nil {
		return nil
	}
	plan.Stats.SolveMillis = 0
	out, _ := json.Marshal(plan)
	return out
}

// compareEvacuate asks one question both ways. It reports whether the plans are identical and
// whether they were compared at all (the reference cannot answer for in-flight claims without
// their pools).
func compareEvacuate(t *testing.T, sim *Simulator, req EvacuateRequest) (identical, compared bool) {
	t.Helper()
	ref, refErr := sim.evacuateReference(req)
	fast, err := sim.Evacuate(req)
	if refErr != nil {
		if !req.AllowNewNodeClaims && len(sim.in.InFlight) > 0 {
			return false, false
		}
		if err == nil {
			t.Fatalf("%+v: reference fails (%v), Evacuate does not", req, refErr)
		}
		return false, false
	}
	if err != nil {
		t.Fatalf("%+v: Evacuate: %v (reference succeeds)", req, err)
	}
	refIn, _ := sim.evacuationInput(req)
	if errs := checkPlan(refIn, fast); len(errs) > 0 {
		dump, _ := json.MarshalIndent(fast, "", " ")
		t.Fatalf("%+v: invalid plan:\n%v\n%s", req, errs, dump)
	}
	if a, b := unschedulablePods(ref), unschedulablePods(fast); !slices.Equal(a, b) {
		t.Fatalf("%+v: unschedulable differ: reference %v, Evacuate %v", req, a, b)
	}
	if len(fast.NodeClaims) > len(ref.NodeClaims) {
		t.Fatalf("%+v: %d new NodeClaims, reference %d", req, len(fast.NodeClaims), len(ref.NodeClaims))
	}
	checkQuick(t, sim, req, refIn)
	ref.Stats.SolveMillis, fast.Stats.SolveMillis = 0, 0
	a, _ := json.Marshal(ref)
	b, _ := json.Marshal(fast)
	if string(a) != string(b) {
		t.Logf("%+v: plans differ\nreference %s\nEvacuate  %s", req, a, b)
	}
	return string(a) == string(b), true
}

// checkQuick asks the question in Quick mode: the baseline's plan must be valid on its own, and
// asking it must leave the Simulator as it found it (the next full question is compared too).
func checkQuick(t *testing.T, sim *Simulator, req EvacuateRequest, refIn Input) {
	t.Helper()
	req.Quick = true
	quick, err := sim.Evacuate(req)
	if err != nil {
		t.Fatalf("%+v: Evacuate: %v (full run succeeds)", req, err)
	}
	if errs := checkPlan(refIn, quick); len(errs) > 0 {
		dump, _ := json.MarshalIndent(quick, "", " ")
		t.Fatalf("%+v: invalid quick plan:\n%v\n%s", req, errs, dump)
	}
}

func unschedulablePods(p *Plan) []string {
	out := []string{}
	for _, u := range p.Unschedulable {
		out = append(out, u.Pod)
	}
	return out
}

var _ = api.LabelZone
