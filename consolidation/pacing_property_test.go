package consolidation

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/napkit/napkit/api"
)

// The pacing property test: random clusters (fxGen's, with do-not-disrupt pods, zone selectors and
// hostname anti-affinity) get DoNotSchedule spreads and PDBs of every kind — minAvailable and
// maxUnavailable, counts and percentages, with a current, stale or absent status, and one PDB
// overlapping two apps' own. Each cluster is decided to a fixed point, twice: paced, and with
// Options.UnpacedPDBs. Between passes the test plays the disruption controller (pcRefresh) so every
// PDB's status is current again. Every paced pass must keep every PDB within its allowance (worked
// out here, see pcAllowance; the single-node exception checked strictly), and every command of
// either kind of pass must replay without breaking a spread or anti-affinity (replayPlan).

// pcSpread adds a DoNotSchedule spread to pods of app-3 (zones, maxSkew 1) and app-4 (hosts,
// maxSkew 2).
func pcSpread(p *corev1.Pod) {
	key, skew := "", int32(0)
	switch p.Labels["app"] {
	case "app-3":
		key, skew = api.LabelZone, 1
	case "app-4":
		key, skew = api.LabelHostname, 2
	default:
		return
	}
	p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: skew, TopologyKey: key,
		WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}}}
}

// pcCluster is one random cluster for the pacing test.
func pcCluster(seed uint64) Input {
	g := newFxGen(seed+1000, true)
	g.lifecycle = true
	in := g.cluster()
	// A third of the clusters allow splits and M -> N moves, whose simulations use the
	// provisioner's full strategy (and its improvement phase) rather than first-fit decreasing.
	if seed%3 == 2 {
		in.Options.AllowSplit, in.Options.AllowManyToMany = true, true
	}
	for i := range in.Nodes {
		for j, p := range in.Nodes[i].Pods {
			p = p.DeepCopy()
			status := corev1.ConditionTrue
			if g.chance(0.08) {
				status = corev1.ConditionFalse
			}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
			pcSpread(p)
			in.Nodes[i].Pods[j] = p
		}
	}
	in.PodDisruptionBudgets = pcPDBs(g, in)
	return in
}

// pcPDBs makes a PDB for some of app-0..app-5 of a random kind and status, and sometimes one over
// app-1 and app-2 together (so app-1 and app-2 pods may sit under two PDBs).
func pcPDBs(g *fxGen, in Input) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for i := range 6 {
		if !g.chance(0.7) {
			continue
		}
		app := fmt.Sprintf("app-%d", i)
		out = append(out, pcPDB(g, "pdb-"+app, &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}))
	}
	if g.chance(0.4) {
		out = append(out, pcPDB(g, "pdb-front", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"app-1", "app-2"}}}}))
	}
	pods := pcAllPods(in)
	for _, pdb := range out {
		switch g.r.IntN(3) {
		case 0: // absent: computed
		case 1: // current
			pcObserve(pdb, pods)
		case 2: // stale: a status for an older spec, claiming more than the spec allows
			pcObserve(pdb, pods)
			pdb.Status.DisruptionsAllowed += 5
			pdb.Generation++
		}
	}
	return out
}

func pcPDB(g *fxGen, name string, sel *metav1.LabelSelector) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel}}
	var v intstr.IntOrString
	switch g.r.IntN(4) {
	case 0:
		v = intstr.FromInt32(int32(1 + g.r.IntN(3)))
		pdb.Spec.MinAvailable = &v
	case 1:
		v = intstr.FromString(fmt.Sprintf("%d%%", 30+10*g.r.IntN(6)))
		pdb.Spec.MinAvailable = &v
	case 2:
		v = intstr.FromInt32(int32(1 + g.r.IntN(2)))
		pdb.Spec.MaxUnavailable = &v
	default:
		v = intstr.FromString(fmt.Sprintf("%d%%", 20+10*g.r.IntN(4)))
		pdb.Spec.MaxUnavailable = &v
	}
	return pdb
}

func pcAllPods(in Input) []*corev1.Pod {
	var out []*corev1.Pod
	for _, n := range in.Nodes {
		out = append(out, n.Pods...)
	}
	return append(out, in.PendingPods...)
}

// pcMatches reports the pods pdb selects.
func pcMatches(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) []*corev1.Pod {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil
	}
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Namespace == pdb.Namespace && sel.Matches(k8slabels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// pcAllowance is the test's own reading of a PDB: a current status (observedGeneration set and
// not behind) as is, else the disruption controller's arithmetic (upstream: kubernetes
// pkg/controller/disruption/disruption.go), the workload's scale being its live controlled pods.
func pcAllowance(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) int {
	if st := pdb.Status; st.ObservedGeneration > 0 && st.ObservedGeneration >= pdb.Generation {
		return int(max(st.DisruptionsAllowed, 0))
	}
	matched := pcMatches(pdb, pods)
	healthy, scale := 0, 0
	for _, p := range matched {
		live := p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
		if live && metav1.GetControllerOf(p) != nil {
			scale++
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
				healthy++
			}
		}
	}
	ceilPct := func(v *intstr.IntOrString, of int) int {
		if v.Type == intstr.Int {
			return int(v.IntVal)
		}
		var pct int
		fmt.Sscanf(v.StrVal, "%d%%", &pct)
		return (pct*of + 99) / 100
	}
	expected, desired := 0, 0
	switch s := pdb.Spec; {
	case s.MaxUnavailable != nil:
		expected, desired = scale, max(scale-ceilPct(s.MaxUnavailable, scale), 0)
	case s.MinAvailable != nil && s.MinAvailable.Type == intstr.Int:
		expected, desired = len(matched), int(s.MinAvailable.IntVal)
	case s.MinAvailable != nil:
		expected, desired = scale, ceilPct(s.MinAvailable, scale)
	}
	if expected == 0 || healthy < desired {
		return 0
	}
	return healthy - desired
}

// pcObserve writes the status the disruption controller would.
func pcObserve(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) {
	pdb.Status = policyv1.PodDisruptionBudgetStatus{}
	allowed := pcAllowance(pdb, pods)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: int32(allowed)}
}

// pcRefresh is the disruption controller between passes: every PDB's status current again.
func pcRefresh(in *Input) {
	pods := pcAllPods(*in)
	out := make([]*policyv1.PodDisruptionBudget, len(in.PodDisruptionBudgets))
	for i, pdb := range in.PodDisruptionBudgets {
		out[i] = pdb.DeepCopy()
		pcObserve(out[i], pods)
	}
	in.PodDisruptionBudgets = out
}

// pcCheckPDBs returns every way the plan's evictions exceed a PDB's allowance: per PDB, the pods
// of the commands' nodes that a drain evicts and the PDB selects, summed over the graceful
// commands, stay within what the allowance leaves after the forceful Expired commands (which are
// charged first and never held back), unless exactly one command (of one node, holding more such
// pods than the allowance, which is above 0 and untouched by expiration) charges the PDB and names
// it in PacedBy. Every PacedBy PDB must be such a one; every deferred command names a PDB it would
// overdraw.
func pcCheckPDBs(in Input, plan *Plan) []string {
	var problems []string
	pods := pcAllPods(in)
	nodes := map[string]Node{}
	for _, n := range in.Nodes {
		nodes[n.Node.Name] = n
	}
	for _, pdb := range in.PodDisruptionBudgets {
		key := pdb.Namespace + "/" + pdb.Name
		allowed, expired := pcAllowance(pdb, pods), 0
		total, chargedBy := 0, []int{}
		perCommand := map[int]int{}
		for i, c := range plan.Commands {
			for _, name := range c.Nodes {
				for _, p := range pcMatches(pdb, fxLivePods(nodes[name].Pods)) {
					if fxEvacuates(p) {
						perCommand[i]++
					}
				}
			}
			switch {
			case perCommand[i] == 0:
			case c.Reason == ReasonExpired:
				expired += perCommand[i]
			default:
				total += perCommand[i]
				chargedBy = append(chargedBy, i)
			}
		}
		allowed = max(allowed-expired, 0)
		for i, c := range plan.Commands {
			if c.Reason != ReasonExpired && slices.Contains(c.PacedBy, key) && perCommand[i] <= allowed {
				problems = append(problems, fmt.Sprintf("command %d names %s in pacedBy but asks %d of %d", i, key, perCommand[i], allowed))
			}
		}
		if total <= allowed {
			continue
		}
		if len(chargedBy) == 1 {
			c := plan.Commands[chargedBy[0]]
			if len(c.Nodes) == 1 && allowed > 0 && expired == 0 && slices.Contains(c.PacedBy, key) {
				continue
			}
		}
		problems = append(problems, fmt.Sprintf("pdb %s allows %d, commands %v evict %d", key, allowed, chargedBy, total))
	}
	for _, d := range plan.Deferred {
		if !slices.ContainsFunc(d.Budgets, func(b DeferredBudget) bool { return b.Evictions > b.Allowed }) {
			problems = append(problems, fmt.Sprintf("deferred %v names no overdrawn PDB: %+v", d.Nodes, d.Budgets))
		}
	}
	return problems
}

// pcPass is one pass's figures.
type pcPass struct {
	savings   float64
	evictions int
	moves     int
	deferred  int
	pacedBy   int
	overdrew  bool
}

// pcSettle decides in to a fixed point (at most 8 passes), checking every pass, and returns the
// passes' figures. paced says whether the PDB checks apply.
func pcSettle(t *testing.T, in Input, paced bool) []pcPass {
	t.Helper()
	in.Options.UnpacedPDBs = !paced
	var passes []pcPass
	for range 8 {
		plan, err := Decide(in)
		require.NoError(t, err)
		if len(plan.Commands) == 0 {
			break
		}
		pdbProblems := pcCheckPDBs(in, plan)
		if paced {
			for _, p := range pdbProblems {
				t.Errorf("pass %d: %s", len(passes), p)
			}
		}
		replayProblems, moves := replayPlan(in, plan)
		for _, p := range replayProblems {
			t.Errorf("pass %d (paced %t): %s", len(passes), paced, p)
		}
		for _, p := range fxCheckPlan(in, plan) {
			if !strings.Contains(p, "PDB") {
				t.Errorf("pass %d (paced %t): %s", len(passes), paced, p)
			}
		}
		pass := pcPass{savings: plan.Stats.SavingsPerHour, evictions: plan.Stats.Evictions,
			moves: moves, deferred: len(plan.Deferred), overdrew: len(pdbProblems) > 0}
		for _, c := range plan.Commands {
			if len(c.PacedBy) > 0 {
				pass.pacedBy++
			}
		}
		passes = append(passes, pass)
		next, err := Apply(in, plan)
		require.NoError(t, err)
		next.Now = in.Now.Add(15 * time.Minute)
		pcRefresh(&next)
		in = next
	}
	return passes
}

// TestPropertyPacedPasses runs the pacing property over random clusters and reports the cost of
// pacing: the savings of the paced passes against the unpaced ones, per pass and at the fixed
// point (where the unpaced figure counts evictions the eviction API would refuse).
func TestPropertyPacedPasses(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	var paced, unpaced [8]float64
	var total struct {
		passes, evictions, moves, deferred, pacedBy, overdrawn, firstOverdrawn int
		paced, unpaced                                                         float64
	}
	for seed := range uint64(seeds) {
		in := pcCluster(seed)
		var p, u []pcPass
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			p = pcSettle(t, in, true)
			u = pcSettle(t, in, false)
		})
		for i, x := range p {
			paced[i] += x.savings
			total.passes++
			total.evictions += x.evictions
			total.moves += x.moves
			total.deferred += x.deferred
			total.pacedBy += x.pacedBy
			total.paced += x.savings
		}
		for i, x := range u {
			unpaced[i] += x.savings
			total.moves += x.moves
			total.unpaced += x.savings
			if x.overdrew {
				total.overdrawn++
			}
		}
		if len(u) > 0 && u[0].overdrew {
			total.firstOverdrawn++
		}
	}
	for i := range paced {
		if paced[i] > 0 || unpaced[i] > 0 {
			t.Logf("pass %d: paced $%.4f/h, unpaced $%.4f/h", i+1, paced[i], unpaced[i])
		}
	}
	t.Logf("%d clusters, %d paced passes, %d evictions within every allowance, %d commands drained one allowance at a time, %d deferred commands; %d moves replayed",
		seeds, total.passes, total.evictions, total.pacedBy, total.deferred, total.moves)
	t.Logf("unpaced: %d passes overdrew a PDB, %d of %d first passes", total.overdrawn, total.firstOverdrawn, seeds)
	if total.unpaced > 0 {
		t.Logf("cost of pacing at the fixed point: paced $%.4f/h = %.1f%% of unpaced $%.4f/h", total.paced, 100*total.paced/total.unpaced, total.unpaced)
	}
	require.Positive(t, total.firstOverdrawn, "no unpaced pass overdrew a PDB: the clusters do not exercise pacing")
}

// TestDriftLeavesDestinations: a drift command that moves a pod onto another drifted node leaves
// that node alone for the rest of the pass (the random cluster of seed 22 once got a second drift
// command removing node-03 after the first had sent node-02-0 there, a plan Apply refuses).
func TestDriftLeavesDestinations(t *testing.T) {
	in := pcCluster(22)
	plan, err := Decide(in)
	require.NoError(t, err)
	dest, removed := map[string]bool{}, map[string]bool{}
	for _, c := range plan.Commands {
		for _, n := range c.Nodes {
			removed[n] = true
		}
		for _, m := range c.Moves {
			dest[m.To] = true
		}
	}
	require.NotEmpty(t, plan.Commands)
	for n := range removed {
		require.False(t, dest[n], "node %s both removed and a destination", n)
	}
	_, err = Apply(in, plan)
	require.NoError(t, err)
}
