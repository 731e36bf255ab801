package consolidation

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// fxGen makes random clusters whose pods fit the nodes they are bound to. With rules set it adds
// what may keep a node or a pod in place: a tainted pool, zone selectors, hostname anti-affinity,
// do-not-disrupt pods, PDBs, tight budgets, booting nodes and nodes inside consolidateAfter. With
// lifecycle set (which needs rules) some nodes are also expired or drifted (Kubernetes version).
type fxGen struct {
	r                *rand.Rand
	rules, lifecycle bool
}

func newFxGen(seed uint64, rules bool) *fxGen {
	return &fxGen{r: rand.New(rand.NewPCG(seed, seed*7919+1)), rules: rules}
}

// fxGenVersion is the Kubernetes version of the generated node class and of nodes not drifted.
const fxGenVersion = "1.33.2"

func (g *fxGen) chance(p float64) bool { return g.r.Float64() < p }

// fxGenTaint is the taint of the generator's "batch" pool.
var fxGenTaint = corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}

// fxGenSizes are the sizes of the generated catalogue.
var fxGenSizes = []int{1, 2, 3, 4, 6, 8}

func (g *fxGen) pools() []*api.NodePool {
	budgets := [][]api.Budget{{fxBudget("100%", "", 0)}, {fxBudget("50%", "", 0)}, {fxBudget("2", "", 0)},
		{fxBudget("30%", "", 0), fxBudget("1", "", 0, api.DisruptionReasonEmpty)}}
	general := fxPool("general", fxOD, fxBudgets(budgets[0]...))
	if !g.rules {
		return []*api.NodePool{general}
	}
	general = fxPool("general", fxOD, fxBudgets(budgets[g.r.IntN(len(budgets))]...))
	policies := []api.ConsolidationPolicy{api.ConsolidationPolicyWhenEmptyOrUnderutilized,
		api.ConsolidationPolicyBalanced, api.ConsolidationPolicyWhenEmpty}
	batch := fxPool("batch", fxOD, fxBudgets(budgets[g.r.IntN(len(budgets))]...),
		fxPolicy(policies[g.r.IntN(len(policies))]), fxConsolidateAfter(10*time.Minute))
	batch.Spec.Template.Spec.Taints = []corev1.Taint{fxGenTaint}
	return []*api.NodePool{general, batch}
}

// cluster builds the whole snapshot: 4 to 15 nodes.
func (g *fxGen) cluster() Input {
	c := newFxCluster(fxSizedTypes(fxGenSizes...), g.pools()...)
	c.classes = []*api.AKSNodeClass{fxClass(fxGenVersion)}
	nodes := 4 + g.r.IntN(12)
	for i := range nodes {
		g.node(c, fmt.Sprintf("node-%02d", i))
	}
	if g.rules {
		g.pdbs(c)
	}
	return c.input()
}

func (g *fxGen) node(c *fxCluster, name string) {
	pool := c.pools[g.r.IntN(len(c.pools))]
	size := fxGenSizes[g.r.IntN(len(fxGenSizes))]
	n := c.node(name, pool.Name, fxSizeName(size), fxZones[g.r.IntN(len(fxZones))], fxOD)
	n.Node.Spec.Taints = pool.Spec.Template.Spec.Taints
	n.Node.Status.NodeInfo.KubeletVersion = "v" + fxGenVersion
	g.fill(n, name, pool.Name == "batch")
	if !g.rules {
		return
	}
	if g.lifecycle {
		g.age(n)
	}
	switch {
	case g.chance(0.05):
		n.Initialized = false
	case g.chance(0.1):
		n.LastPodEventAt = fxNow.Add(-time.Duration(g.r.IntN(10)) * time.Minute)
	case g.chance(0.03):
		n.Node.Annotations = map[string]string{api.AnnotationDoNotDisrupt: "true"}
	}
}

// age makes a few nodes expired (a one-hour expireAfter on their NodeClaim) or drifted.
func (g *fxGen) age(n *Node) {
	switch {
	case g.chance(0.06):
		fxClaim(n).Spec.ExpireAfter = api.NewDuration(time.Hour)
	case g.chance(0.06):
		n.Node.Status.NodeInfo.KubeletVersion = "v1.32.6"
	}
}

// fill binds pods to n until a random share of its allocatable CPU and memory is used.
func (g *fxGen) fill(n *Node, name string, tainted bool) {
	alloc := n.Node.Status.Allocatable
	target := 0.1 + 0.8*g.r.Float64()
	cpuLeft := int64(float64(alloc.Cpu().MilliValue()) * target)
	memLeft := int64(float64(alloc.Memory().Value()) * target)
	steps := max(1, min(15, int(alloc.Cpu().MilliValue()/300)))
	anti := map[string]bool{}
	for i := 0; ; i++ {
		cpu, mem := int64(100+100*g.r.IntN(steps)), int64(64<<20)*int64(1+g.r.IntN(8))
		if cpu > cpuLeft || mem > memLeft {
			return
		}
		cpuLeft, memLeft = cpuLeft-cpu, memLeft-mem
		p := fxPod(fmt.Sprintf("%s-%d", name, i), fmt.Sprintf("%dm", cpu), fmt.Sprint(mem))
		p.Labels["app"] = fmt.Sprintf("app-%d", g.r.IntN(6))
		if tainted || (g.rules && g.chance(0.2)) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: fxGenTaint.Key, Operator: corev1.TolerationOpEqual,
				Value: fxGenTaint.Value, Effect: fxGenTaint.Effect}}
		}
		if g.rules {
			g.constrain(p, n, anti)
		}
		fxBind(n, p)
	}
}

// constrain adds the rules that may pin a pod: a zone selector, hostname anti-affinity (one pod per
// group and node), do-not-disrupt.
func (g *fxGen) constrain(p *corev1.Pod, n *Node, anti map[string]bool) {
	if g.chance(0.15) {
		p.Spec.NodeSelector = map[string]string{api.LabelZone: n.Node.Labels[api.LabelZone]}
	}
	if group := fmt.Sprintf("anti-%d", g.r.IntN(2)); g.chance(0.2) && !anti[group] {
		anti[group] = true
		p.Labels["app"] = group
		fxAntiAffinity(group)(p)
	}
	switch {
	case g.chance(0.03):
		fxAnnotate(api.AnnotationDoNotDisrupt, "true")(p)
	case g.chance(0.03):
		fxAnnotate(api.AnnotationDoNotDisrupt, "30m")(p)
		fxStartedAgo(time.Duration(g.r.IntN(60)) * time.Minute)(p)
	}
}

func (g *fxGen) pdbs(c *fxCluster) {
	for i := range 6 {
		if g.chance(0.3) {
			c.pdb(fxPDB(fmt.Sprintf("pdb-%d", i), fmt.Sprintf("app-%d", i), int32(g.r.IntN(2))))
		}
	}
	if g.chance(0.3) {
		c.pdb(fxPDB("pdb-overlap", "app-0", 3))
	}
}

// TestPropertyCommandsAreSafe checks every plan Decide makes on random clusters against rules
// worked out here independently of the package: see fxCheckPlan.
func TestPropertyCommandsAreSafe(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			g := newFxGen(seed, true)
			g.lifecycle = true
			in := g.cluster()
			plan, err := Decide(in)
			require.NoError(t, err)
			t.Logf("%d nodes: %v", len(in.Nodes), fxSummary(plan))
			fxCheckSafe(t, in, plan)
		})
	}
}

// fxCheckSafe checks a plan against its snapshot and applies it: no rule broken before, every
// move carried out after. It returns the snapshot after the plan.
func fxCheckSafe(t *testing.T, in Input, plan *Plan) Input {
	t.Helper()
	for _, problem := range fxCheckPlan(in, plan) {
		t.Error(problem)
	}
	next, err := Apply(in, plan)
	require.NoError(t, err)
	for _, problem := range fxCheckApplied(plan, next) {
		t.Error(problem)
	}
	return next
}

// fxCheckApplied: in the snapshot Apply returns, the removed nodes are gone and every moved pod is
// bound to its move's destination.
func fxCheckApplied(plan *Plan, next Input) []string {
	var problems []string
	where := map[string]string{}
	for _, n := range next.Nodes {
		for _, p := range n.Pods {
			where[p.Namespace+"/"+p.Name] = n.Node.Name
		}
	}
	for _, c := range plan.Commands {
		for _, name := range c.Nodes {
			if slices.ContainsFunc(next.Nodes, func(n Node) bool { return n.Node.Name == name }) {
				problems = append(problems, fmt.Sprintf("Apply kept removed node %s", name))
			}
		}
		for _, m := range c.Moves {
			if m.To != "" && where[m.Pod] != m.To {
				problems = append(problems, fmt.Sprintf("Apply put %s on %q, the plan on %q", m.Pod, where[m.Pod], m.To))
			}
		}
	}
	return problems
}

// fxPNode is a node as the checker sees it after the plan ran.
type fxPNode struct {
	name        string
	labels      map[string]string
	taints      []corev1.Taint
	allocatable corev1.ResourceList
	pods        []*corev1.Pod
	moved       []*corev1.Pod
	// booting marks uninitialized or deleting nodes, never destinations; windowed marks nodes inside
	// their consolidateAfter window, which consolidation does not move pods to.
	booting, windowed, removed bool
}

// fxChecker replays a plan on its input.
type fxChecker struct {
	in       Input
	plan     *Plan
	nodes    map[string]*fxPNode
	problems []string
}

func (ck *fxChecker) errorf(format string, args ...any) {
	ck.problems = append(ck.problems, fmt.Sprintf(format, args...))
}

// fxCheckPlan returns every rule the plan breaks: commands touch known, initialized, not-deleting
// nodes once; every pod of a removed node moves (except under Expired) to a node that stays, is
// initialized and outside its consolidateAfter window, or to a replacement; the destination fits
// the pods' requests, taints, node selectors, required node affinity and hostname anti-affinity;
// budgets, PDBs and do-not-disrupt hold; consolidation replacements are cheaper and of another type.
func fxCheckPlan(in Input, plan *Plan) []string {
	ck := &fxChecker{in: in, plan: plan, nodes: map[string]*fxPNode{}}
	ck.indexNodes()
	for i, c := range plan.Commands {
		ck.command(i, c)
	}
	for _, n := range ck.nodes {
		if len(n.moved) > 0 {
			ck.checkDestination(n)
		}
	}
	ck.checkBudgets()
	return ck.problems
}

func (ck *fxChecker) indexNodes() {
	for _, n := range ck.in.Nodes {
		ck.nodes[n.Node.Name] = &fxPNode{name: n.Node.Name, labels: fxHostLabels(n.Node.Labels, n.Node.Name),
			taints: n.Node.Spec.Taints, allocatable: n.Node.Status.Allocatable, pods: fxLivePods(n.Pods),
			booting: !n.Initialized || n.Deleting, windowed: ck.inWindow(n)}
	}
}

// inWindow reports a node whose last pod event is less than its pool's consolidateAfter ago.
func (ck *fxChecker) inWindow(n Node) bool {
	pool := ck.pool(n.Node.Labels[api.LabelNodePool])
	if pool == nil {
		return false
	}
	after := pool.Spec.Disruption.ConsolidateAfter
	if after.IsNever() {
		return true
	}
	last := n.LastPodEventAt
	if last.IsZero() {
		last = n.InitializedAt
	}
	if last.IsZero() {
		last = n.Node.CreationTimestamp.Time
	}
	return ck.in.Now.Sub(last) < *after.Duration
}

func (ck *fxChecker) pool(name string) *api.NodePool {
	for _, p := range ck.in.NodePools {
		if p.NodePool.Name == name {
			return p.NodePool
		}
	}
	return nil
}

func (ck *fxChecker) inputNode(name string) *Node {
	for i := range ck.in.Nodes {
		if ck.in.Nodes[i].Node.Name == name {
			return &ck.in.Nodes[i]
		}
	}
	return nil
}

func fxHostLabels(labels map[string]string, name string) map[string]string {
	out := map[string]string{api.LabelHostname: name}
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// fxEvacuates says whether a pod of a removed node has to move: not DaemonSet-owned, not a mirror
// pod, not terminal.
func fxEvacuates(p *corev1.Pod) bool {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return false
		}
	}
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

func fxLivePods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p)
		}
	}
	return out
}

// command removes the command's nodes, adds its replacements and moves its pods.
func (ck *fxChecker) command(i int, c Command) {
	where := fmt.Sprintf("command %d (%s %s %v)", i, c.Kind, c.Reason, c.Nodes)
	leaving := map[string]*corev1.Pod{}
	for _, name := range c.Nodes {
		ck.removeNode(where, c, name, leaving)
	}
	for _, r := range fxReplacements(c) {
		if _, dup := ck.nodes[r.Name]; dup {
			ck.errorf("%s: replacement %s reuses a node name", where, r.Name)
			continue
		}
		ck.nodes[r.Name] = &fxPNode{name: r.Name, labels: fxHostLabels(r.Labels, r.Name), taints: r.Taints,
			allocatable: r.Allocatable}
	}
	ck.checkReplacement(where, c)
	for _, m := range c.Moves {
		ck.move(where, c, m, leaving)
	}
	if c.Reason == ReasonExpired {
		return
	}
	for key := range leaving {
		ck.errorf("%s: pod %s has no move", where, key)
	}
}

func (ck *fxChecker) removeNode(where string, c Command, name string, leaving map[string]*corev1.Pod) {
	n, ok := ck.nodes[name]
	src := ck.inputNode(name)
	switch {
	case !ok || src == nil:
		ck.errorf("%s: unknown node %s", where, name)
		return
	case n.removed:
		ck.errorf("%s: node %s is removed twice", where, name)
		return
	case !src.Initialized || src.Deleting:
		ck.errorf("%s: node %s is not initialized or already deleting", where, name)
	}
	n.removed = true
	if c.Reason != ReasonExpired {
		ck.checkNotBlocked(where, src)
	}
	for _, p := range n.pods {
		if fxEvacuates(p) {
			leaving[p.Namespace+"/"+p.Name] = p
		}
	}
}

func (ck *fxChecker) move(where string, c Command, m Move, leaving map[string]*corev1.Pod) {
	p, ok := leaving[m.Pod]
	if !ok {
		ck.errorf("%s: move of %s, which is not on a removed node (or moves twice)", where, m.Pod)
		return
	}
	delete(leaving, m.Pod)
	dst, ok := ck.nodes[m.To]
	switch {
	case m.To == "" && c.Reason == ReasonExpired:
		// expiration is forceful: the pod may be left pending
	case !ok:
		ck.errorf("%s: %s moves to unknown %s", where, m.Pod, m.To)
	case dst.removed:
		ck.errorf("%s: %s moves to removed node %s", where, m.Pod, m.To)
	case dst.booting:
		ck.errorf("%s: %s moves to %s, which is not initialized or is being deleted", where, m.Pod, m.To)
	case dst.windowed && (c.Reason == ReasonEmpty || c.Reason == ReasonUnderutilized):
		ck.errorf("%s: %s moves to %s, which is inside its consolidateAfter window", where, m.Pod, m.To)
	default:
		dst.moved = append(dst.moved, p)
	}
}

// checkNotBlocked: the node and its pods allow graceful disruption.
func (ck *fxChecker) checkNotBlocked(where string, n *Node) {
	if n.Node.Annotations[api.AnnotationDoNotDisrupt] == "true" {
		ck.errorf("%s: node %s has do-not-disrupt", where, n.Node.Name)
	}
	for _, p := range fxLivePods(n.Pods) {
		if v, ok := p.Annotations[api.AnnotationDoNotDisrupt]; ok && fxDNDActive(v, p, ck.in.Now) {
			ck.errorf("%s: pod %s/%s has do-not-disrupt=%s", where, p.Namespace, p.Name, v)
		}
		if why := ck.pdbBlocks(p); why != "" {
			ck.errorf("%s: pod %s/%s: %s", where, p.Namespace, p.Name, why)
		}
	}
}

func fxDNDActive(v string, p *corev1.Pod, now time.Time) bool {
	if v == "true" {
		return true
	}
	d, err := time.ParseDuration(v)
	return err == nil && d > 0 && (p.Status.StartTime == nil || now.Sub(p.Status.StartTime.Time) < d)
}

func (ck *fxChecker) pdbBlocks(p *corev1.Pod) string {
	var matched []string
	allowed := int32(0)
	for _, pdb := range ck.in.PodDisruptionBudgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if pdb.Namespace == p.Namespace && err == nil && sel.Matches(k8slabels.Set(p.Labels)) {
			matched = append(matched, pdb.Name)
			allowed = pdb.Status.DisruptionsAllowed
		}
	}
	switch {
	case len(matched) > 1:
		return "matches PDBs " + strings.Join(matched, ", ")
	case len(matched) == 1 && allowed <= 0:
		return "PDB " + matched[0] + " allows no disruption"
	}
	return ""
}

// checkReplacement: consolidation replacements cost less than the nodes they replace and are of
// another type.
func (ck *fxChecker) checkReplacement(where string, c Command) {
	reps := fxReplacements(c)
	if c.Reason != ReasonUnderutilized || len(reps) == 0 {
		return
	}
	removed, added := 0.0, 0.0
	types := map[string]bool{}
	for _, name := range c.Nodes {
		n := ck.inputNode(name)
		if n == nil {
			continue
		}
		types[n.Node.Labels[api.LabelInstanceType]] = true
		removed += ck.nodePrice(n)
	}
	for _, r := range reps {
		added += r.PricePerHour
		if len(c.Nodes) == 1 && types[r.InstanceType] {
			ck.errorf("%s: replacement %s is of the removed node's type %s", where, r.Name, r.InstanceType)
		}
	}
	if added >= removed {
		ck.errorf("%s: replacements cost %.4f, not less than the %.4f removed", where, added, removed)
	}
	if c.SavingsPerHour <= 0 {
		ck.errorf("%s: savings %.4f", where, c.SavingsPerHour)
	}
}

// nodePrice is the price of the node's offering in the pool's catalogue (0 when unknown).
func (ck *fxChecker) nodePrice(n *Node) float64 {
	return fxNodePrice(ck.in, n)
}

// fxNodePrice is the hourly price of the offering the node's labels name.
func fxNodePrice(in Input, n *Node) float64 {
	l := n.Node.Labels
	for _, p := range in.NodePools {
		if p.NodePool.Name != l[api.LabelNodePool] {
			continue
		}
		for _, it := range p.InstanceTypes {
			if it.Name == l[api.LabelInstanceType] {
				return fxOfferingPrice(it, l[api.LabelZone], l[api.LabelCapacityType])
			}
		}
	}
	return 0
}

func fxOfferingPrice(it *instancetype.InstanceType, zone, capacityType string) float64 {
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o.Price
		}
	}
	return 0
}

// checkDestination: the node fits what it holds after the plan, and its new pods accept it.
func (ck *fxChecker) checkDestination(n *fxPNode) {
	all := append(append([]*corev1.Pod{}, n.pods...), n.moved...)
	for name, used := range fxSumRequests(all) {
		if have, ok := n.allocatable[name]; ok && used.Cmp(have) > 0 {
			ck.errorf("node %s: %s requests %s exceed allocatable %s", n.name, name, used.String(), have.String())
		}
	}
	for _, p := range n.moved {
		key := p.Namespace + "/" + p.Name
		if !fxTolerates(p.Spec.Tolerations, n.taints) {
			ck.errorf("pod %s moved to %s, whose taints it does not tolerate", key, n.name)
		}
		if !fxNodeSelectorMet(p, n.labels) {
			ck.errorf("pod %s moved to %s, which its node selector or affinity excludes", key, n.name)
		}
		for _, other := range all {
			if other != p && (fxAntiAffine(p, other) || fxAntiAffine(other, p)) {
				ck.errorf("pod %s moved to %s next to %s/%s, against hostname anti-affinity", key, n.name, other.Namespace, other.Name)
			}
		}
	}
}

// fxSumRequests adds the pods' container requests, and one "pods" each.
func fxSumRequests(pods []*corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(int64(len(pods)), resource.DecimalSI)}
	for _, p := range pods {
		for _, c := range p.Spec.Containers {
			for name, q := range c.Resources.Requests {
				sum := out[name].DeepCopy()
				sum.Add(q)
				out[name] = sum
			}
		}
	}
	return out
}

func fxTolerates(tolerations []corev1.Toleration, taints []corev1.Taint) bool {
	for _, taint := range taints {
		if taint.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		ok := false
		for _, t := range tolerations {
			ok = ok || fxToleratesTaint(t, taint)
		}
		if !ok {
			return false
		}
	}
	return true
}

func fxToleratesTaint(t corev1.Toleration, taint corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Operator == corev1.TolerationOpExists {
		return t.Key == "" || t.Key == taint.Key
	}
	return t.Key == taint.Key && t.Value == taint.Value
}

// fxNodeSelectorMet checks spec.nodeSelector and required node affinity (terms ORed, expressions
// ANDed) against the node's labels.
func fxNodeSelectorMet(p *corev1.Pod, labels map[string]string) bool {
	for k, v := range p.Spec.NodeSelector {
		if labels[k] != v {
			return false
		}
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if fxTermMet(term.MatchExpressions, labels) {
			return true
		}
	}
	return false
}

func fxTermMet(exprs []corev1.NodeSelectorRequirement, labels map[string]string) bool {
	for _, e := range exprs {
		v, has := labels[e.Key]
		in := false
		for _, want := range e.Values {
			in = in || v == want
		}
		ok := map[corev1.NodeSelectorOperator]bool{
			corev1.NodeSelectorOpIn: has && in, corev1.NodeSelectorOpNotIn: !in,
			corev1.NodeSelectorOpExists: has, corev1.NodeSelectorOpDoesNotExist: !has,
		}[e.Operator]
		if !ok {
			return false
		}
	}
	return true
}

// fxAntiAffine reports that p refuses to share a host with other.
func fxAntiAffine(p, other *corev1.Pod) bool {
	a := p.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if term.TopologyKey == api.LabelHostname && err == nil && other.Namespace == p.Namespace && sel.Matches(k8slabels.Set(other.Labels)) {
			return true
		}
	}
	return false
}

// checkBudgets: per pool and budgeted reason, the nodes the plan removes fit in what the pool's
// budgets allow, worked out here from the NodePool alone.
func (ck *fxChecker) checkBudgets() {
	taken := map[string]map[Reason]int{}
	for _, c := range ck.plan.Commands {
		for _, name := range c.Nodes {
			n := ck.inputNode(name)
			if n == nil {
				continue
			}
			pool := n.Node.Labels[api.LabelNodePool]
			if taken[pool] == nil {
				taken[pool] = map[Reason]int{}
			}
			taken[pool][c.Reason]++
		}
	}
	for pool, byReason := range taken {
		for reason, count := range byReason {
			if allowed := ck.allowed(pool, reason); count > allowed {
				ck.errorf("pool %s: %d nodes removed for %s, budgets allow %d", pool, count, reason, allowed)
			}
		}
	}
}

// allowed evaluates schedule-less budgets: the minimum over those naming the reason (all when none
// named), percentages of the pool's initialized, not-deleting nodes rounded up, less the nodes
// already deleting.
func (ck *fxChecker) allowed(pool string, reason Reason) int {
	np := ck.pool(pool)
	if reason == ReasonExpired || np == nil {
		return 1 << 30
	}
	total, deleting := 0, 0
	for _, n := range ck.in.Nodes {
		if n.Node.Labels[api.LabelNodePool] != pool || !n.Initialized {
			continue
		}
		if n.Deleting {
			deleting++
		} else {
			total++
		}
	}
	limit := 1 << 30
	for _, b := range np.Spec.Disruption.Budgets {
		if len(b.Reasons) > 0 && !fxBudgetNames(b.Reasons, reason) {
			continue
		}
		limit = min(limit, fxBudgetCount(b.Nodes, total))
	}
	return max(limit-deleting, 0)
}

func fxBudgetNames(reasons []api.DisruptionReason, r Reason) bool {
	for _, x := range reasons {
		if string(x) == string(r) {
			return true
		}
	}
	return false
}

func fxBudgetCount(nodes string, total int) int {
	var n int
	if pct, ok := strings.CutSuffix(nodes, "%"); ok {
		fmt.Sscan(pct, &n)
		return (n*total + 99) / 100
	}
	fmt.Sscan(nodes, &n)
	return n
}

// TestCheckPlanCatchesViolations makes sure the checker the property test relies on does object.
func TestCheckPlanCatchesViolations(t *testing.T) {
	del := func(reason Reason, nodes []string, moves ...Move) *Plan {
		return &Plan{Kind: PlanKind, Commands: []Command{{Kind: CommandDelete, Reason: reason, Nodes: nodes, Moves: moves, SavingsPerHour: 0.4}}}
	}
	tests := []struct {
		name  string
		in    func() Input
		plan  *Plan
		wants string
	}{
		{"valid", fxTwoSmallNodes("100m"), del(ReasonUnderutilized, []string{"b"}, Move{"default/b-0", "a"}), ""},
		{"pod left behind", fxTwoSmallNodes("100m"), del(ReasonUnderutilized, []string{"b"}), "pod default/b-0 has no move"},
		{"unknown destination", fxTwoSmallNodes("100m"), del(ReasonUnderutilized, []string{"b"}, Move{"default/b-0", "c"}), "moves to unknown c"},
		{"overcommitted", fxTwoSmallNodes("900m"), del(ReasonUnderutilized, []string{"b"}, Move{"default/b-0", "a"}), "exceed allocatable"},
		{"PDB", fxTwoSmallNodes("100m", fxPDB("b", "b", 0)), del(ReasonUnderutilized, []string{"b"}, Move{"default/b-0", "a"}), "allows no disruption"},
		{"budget", func() Input {
			in := fxTwoSmallNodes("100m")()
			in.NodePools[0].NodePool.Spec.Disruption.Budgets = []api.Budget{fxBudget("0", "", 0)}
			return in
		}, del(ReasonUnderutilized, []string{"b"}, Move{"default/b-0", "a"}), "budgets allow 0"},
		{"booting destination", func() Input {
			in := fxTwoSmallNodes("100m")()
			in.Nodes[0].Initialized = false
			return in
		}, del(ReasonUnderutilized, []string{"b"}, Move{"default/b-0", "a"}), "not initialized"},
		{"anti-affinity", fxRow34, del(ReasonUnderutilized, []string{"c"}, Move{"default/c", "a"}), "anti-affinity"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			problems := strings.Join(fxCheckPlan(tc.in(), tc.plan), "\n")
			if tc.wants == "" {
				assert.Empty(t, problems)
				return
			}
			assert.Contains(t, problems, tc.wants)
		})
	}
}
