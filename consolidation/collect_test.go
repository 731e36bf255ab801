package consolidation

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

func TestCollectValidation(t *testing.T) {
	valid := func() *Input {
		return ruleInput([]*api.NodePool{rulePool("p")}, []*instancetype.InstanceType{ruleType("D2", 0.1)},
			ruleNode("n1", "p", "D2", "eastus-1", api.CapacityTypeOnDemand, rulePod("a", "a")))
	}
	tests := []struct {
		name   string
		change func(in *Input)
		want   string
	}{
		{"no decision time", func(in *Input) { in.Now = time.Time{} }, "Now: the decision time is required, got \"0001-01-01 00:00:00 +0000 UTC\""},
		{"nil Node", func(in *Input) { in.Nodes = append(in.Nodes, Node{}) }, "Nodes[1].Node: is nil"},
		{"unnamed node", func(in *Input) { in.Nodes[0].Node.Name = "" }, `Nodes[0].Node.metadata.name: every node needs a name, got ""`},
		{"duplicate node", func(in *Input) { in.Nodes = append(in.Nodes, in.Nodes[0]) },
			`Nodes[1].Node.metadata.name: the same name as Nodes[0], got "n1"`},
		{"nil pod", func(in *Input) { in.Nodes[0].Pods = append(in.Nodes[0].Pods, nil) }, "Nodes[0].Pods[1]: is nil"},
		{"nil NodePool", func(in *Input) { in.NodePools = append(in.NodePools, provisioner.NodePoolInput{}) },
			"NodePools[1].NodePool: is nil"},
		{"unnamed NodePool", func(in *Input) { in.NodePools[0].NodePool.Name = "" }, `NodePools[0].NodePool.metadata.name: every NodePool needs a name, got ""`},
		{"duplicate NodePool", func(in *Input) { in.NodePools = append(in.NodePools, in.NodePools[0]) },
			`NodePools[1].NodePool.metadata.name: the same name as NodePools[0], got "p"`},
		{"nil instance type", func(in *Input) { in.NodePools[0].InstanceTypes = append(in.NodePools[0].InstanceTypes, nil) },
			"NodePools[0].InstanceTypes[1]: is nil"},
		{"nil node class", func(in *Input) { in.NodeClasses = append(in.NodeClasses, nil) }, "NodeClasses[1]: is nil"},
		{"nil PDB", func(in *Input) { in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, nil) }, "PodDisruptionBudgets[0]: is nil"},
		{"MinReplaceSavings 1", func(in *Input) { in.Options.MinReplaceSavings = 1 }, "Options.MinReplaceSavings: want a fraction in [0, 1), such as 0.1 for 10 %, got 1"},
		{"MinReplaceSavings negative", func(in *Input) { in.Options.MinReplaceSavings = -0.1 }, "Options.MinReplaceSavings: want a fraction in [0, 1), such as 0.1 for 10 %, got -0.1"},
		{"MinReplaceSavings NaN", func(in *Input) { in.Options.MinReplaceSavings = math.NaN() }, "Options.MinReplaceSavings: want a fraction in [0, 1), such as 0.1 for 10 %, got NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			tt.change(in)
			_, _, err := collect(in)
			require.ErrorIs(t, err, ErrInvalidInput)
			var ie *api.FieldError
			require.True(t, errors.As(err, &ie))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, _, err := collect(nil)
	require.ErrorIs(t, err, ErrInvalidInput)
	_, _, err = collect(valid())
	require.NoError(t, err)
}

func TestCollectSkips(t *testing.T) {
	unlabelled := ruleNode("a-plain", "", "D2", "eastus-1", api.CapacityTypeOnDemand)
	unknownPool := ruleNode("b-unknown", "gone", "D2", "eastus-1", api.CapacityTypeOnDemand)
	deleting := ruleNode("c-deleting", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	deleting.Deleting = true
	deletedNode := ruleNode("d-deleted", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	now := metav1.NewTime(ruleNow)
	deletedNode.Node.DeletionTimestamp = &now
	deletedClaim := ruleNode("e-claim-deleted", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	deletedClaim.NodeClaim = ruleClaim("e", ruleNow)
	deletedClaim.NodeClaim.DeletionTimestamp = &now
	booting := ruleNode("f-booting", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	booting.Initialized = false
	untyped := ruleNode("g-untyped", "p", "", "eastus-1", api.CapacityTypeOnDemand)
	retired := ruleNode("h-retired", "p", "D1_v1", "eastus-1", api.CapacityTypeOnDemand)
	ok := ruleNode("i-ok", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	nominated := ruleNode("f2-nominated", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	nominated.Nominated = true // Karpenter's NewCandidate: "node is nominated for a pending pod"

	in := ruleInput([]*api.NodePool{rulePool("p")}, []*instancetype.InstanceType{ruleType("D2", 0.1)},
		ok, retired, untyped, nominated, booting, deletedClaim, deletedNode, deleting, unknownPool, unlabelled)
	cands, skipped, err := collect(in)
	require.NoError(t, err)
	assert.Equal(t, []Blocked{
		{Node: "a-plain", Reason: "not managed by a NodePool (no karpenter.sh/nodepool label)"},
		{Node: "b-unknown", Reason: `NodePool "gone" is not in the input`},
		{Node: "c-deleting", Reason: "being deleted"},
		{Node: "d-deleted", Reason: "being deleted"},
		{Node: "e-claim-deleted", Reason: "being deleted"},
		{Node: "f-booting", Reason: "not initialized"},
		{Node: "f2-nominated", Reason: "nominated for pending pods"},
		{Node: "g-untyped", Reason: "no node.kubernetes.io/instance-type label"},
	}, skipped)
	require.Len(t, cands, 2)
	assert.Equal(t, "h-retired", cands[0].name)
	assert.Nil(t, cands[0].instanceType)
	assert.Equal(t, DriftInstanceTypeNotFound, cands[0].drift)
	assert.Zero(t, cands[0].price)
	assert.Equal(t, "i-ok", cands[1].name)
	assert.Equal(t, "default", cands[1].class.Name)
	assert.Equal(t, 0, cands[1].index)
	assert.Empty(t, cands[1].drift)
}

func TestCollectPoolWithoutCatalogue(t *testing.T) {
	in := ruleInput([]*api.NodePool{rulePool("p")}, nil, ruleNode("n1", "p", "D2", "eastus-1", api.CapacityTypeOnDemand))
	cands, skipped, err := collect(in)
	require.NoError(t, err)
	assert.Empty(t, cands)
	assert.Equal(t, []Blocked{{Node: "n1", Reason: `NodePool "p" has no instance types in the input`}}, skipped)
}

func TestCollectCandidate(t *testing.T) {
	pods := []*corev1.Pod{
		rulePod("web-1", "web"),
		rulePod("web-2", "web", annotated(api.AnnotationDoNotDisrupt, "true")),
		rulePod("ds-1", "ds", ownedBy("DaemonSet", "apps/v1")),
		rulePod("static", "kp", annotated(corev1.MirrorPodAnnotationKey, "x")),
		rulePod("done", "job", inPhase(corev1.PodSucceeded)),
	}
	n := ruleNode("n1", "p", "D2", "", api.CapacityTypeSpot, pods...)
	n.Node.Labels["failure-domain.beta.kubernetes.io/zone"] = "eastus-1"
	empty := ruleNode("n2", "p", "D2", "eastus-2", api.CapacityTypeOnDemand,
		rulePod("cheap", "cheap", annotated(corev1.PodDeletionCost, "-1000000000")))
	in := ruleInput([]*api.NodePool{rulePool("p")}, []*instancetype.InstanceType{ruleType("D2", 0.2)}, n, empty)
	in.NodeClasses = append(in.NodeClasses, &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}})

	cands, skipped, err := collect(in)
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, cands, 2)
	c := cands[0]
	assert.Equal(t, "eastus-1", c.zone, "the beta zone label is read")
	assert.Equal(t, api.CapacityTypeSpot, c.capacityType)
	assert.InDelta(t, 0.1, c.price, 1e-12)
	assert.Equal(t, "default", c.class.Name)
	assert.Equal(t, "D2", c.instanceType.Name)
	var moving []string
	for _, p := range c.pods {
		moving = append(moving, p.Name)
	}
	assert.Equal(t, []string{"web-1", "web-2"}, moving)
	assert.InDelta(t, 3, c.disruptionCost, 1e-12)
	assert.False(t, c.empty)
	assert.Equal(t, "pod default/web-2 has karpenter.sh/do-not-disrupt=true", c.blocker)
	assert.True(t, c.consolidatable)
	assert.False(t, c.expired)

	assert.True(t, cands[1].empty, "a pod with negative cost leaves the node empty")
	assert.InDelta(t, 0.2, cands[1].price, 1e-12)
	assert.Empty(t, cands[1].blocker)
}

func TestCollectPDBIndex(t *testing.T) {
	n := ruleNode("n1", "p", "D2", "eastus-1", api.CapacityTypeOnDemand, rulePod("web-1", "web"))
	in := ruleInput([]*api.NodePool{rulePool("p")}, []*instancetype.InstanceType{ruleType("D2", 0.1)}, n)
	in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, rulePDB("web", "web", 0))
	cands, _, err := collect(in)
	require.NoError(t, err)
	assert.Equal(t, "pdb default/web allows 0 disruptions (pod default/web-1)", cands[0].blocker)
}

func TestCollectExpiredAndDrifted(t *testing.T) {
	pool := rulePool("p", func(p *api.NodePool) { p.Spec.Template.Spec.ExpireAfter = api.NewDuration(24 * time.Hour) })
	n := ruleNode("n1", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	n.NodeClaim = ruleClaim("nc1", ruleNow.Add(-25*time.Hour))
	n.NodeClaim.Annotations = map[string]string{api.AnnotationNodePoolHash: "stale", AnnotationNodePoolHashVersion: NodePoolHashVersion}
	fresh := ruleNode("n2", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	fresh.NodeClaim = ruleClaim("nc2", ruleNow.Add(-time.Hour))
	fresh.NodeClaim.Annotations = map[string]string{api.AnnotationNodePoolHash: NodePoolHash(pool), AnnotationNodePoolHashVersion: NodePoolHashVersion}
	in := ruleInput([]*api.NodePool{pool}, []*instancetype.InstanceType{ruleType("D2", 0.1)}, n, fresh)
	cands, _, err := collect(in)
	require.NoError(t, err)
	assert.True(t, cands[0].expired)
	assert.Equal(t, DriftNodePool, cands[0].drift)
	assert.False(t, cands[1].expired)
	assert.Empty(t, cands[1].drift)
}

func TestConsolidatable(t *testing.T) {
	after := func(d time.Duration) *api.NodePool {
		return rulePool("p", func(p *api.NodePool) { p.Spec.Disruption.ConsolidateAfter = api.NewDuration(d) })
	}
	never := rulePool("p", func(p *api.NodePool) { p.Spec.Disruption.ConsolidateAfter = api.NeverDuration() })
	ago := func(d time.Duration) time.Time { return ruleNow.Add(-d) }
	tests := []struct {
		name   string
		pool   *api.NodePool
		change func(*Node)
		wantAt time.Time
		want   bool
	}{
		{name: "pod event inside the window", pool: after(10 * time.Minute),
			change: func(n *Node) { n.LastPodEventAt = ago(5 * time.Minute) }, wantAt: ago(-5 * time.Minute), want: false},
		{name: "pod event before the window", pool: after(10 * time.Minute),
			change: func(n *Node) { n.LastPodEventAt = ago(15 * time.Minute) }, wantAt: ago(5 * time.Minute), want: true},
		{name: "window ends now", pool: after(10 * time.Minute),
			change: func(n *Node) { n.LastPodEventAt = ago(10 * time.Minute) }, wantAt: ruleNow, want: true},
		{name: "Never", pool: never, change: func(n *Node) { n.LastPodEventAt = ago(1000 * time.Hour) }},
		{name: "default 0s", pool: rulePool("p"), change: func(n *Node) { n.LastPodEventAt = ruleNow }, wantAt: ruleNow, want: true},
		{name: "NodeClaim's lastPodEventTime", pool: after(time.Hour), change: func(n *Node) {
			n.NodeClaim = ruleClaim("nc", ago(48*time.Hour))
			n.NodeClaim.Status.LastPodEventTime = metav1.NewTime(ago(30 * time.Minute))
			n.InitializedAt = ago(47 * time.Hour)
		}, wantAt: ago(-30 * time.Minute), want: false},
		{name: "InitializedAt", pool: after(time.Hour), change: func(n *Node) { n.InitializedAt = ago(90 * time.Minute) },
			wantAt: ago(30 * time.Minute), want: true},
		{name: "node creation", pool: after(time.Hour), wantAt: ago(47 * time.Hour), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ruleNode("n1", "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
			if tt.change != nil {
				tt.change(n)
			}
			at, ok := consolidatable(n, tt.pool, ruleNow)
			assert.Equal(t, tt.want, ok)
			assert.True(t, tt.wantAt.Equal(at), "at %s, want %s", at, tt.wantAt)
		})
	}
}

func TestPoolPolicy(t *testing.T) {
	tests := []struct {
		name       string
		pool       *api.NodePool
		wantPolicy api.ConsolidationPolicy
		wantNever  bool
	}{
		{"defaults", rulePool("p"), api.ConsolidationPolicyWhenEmptyOrUnderutilized, false},
		{"Balanced", rulePool("p", func(p *api.NodePool) { p.Spec.Disruption.ConsolidationPolicy = api.ConsolidationPolicyBalanced }),
			api.ConsolidationPolicyBalanced, false},
		{"Never", rulePool("p", func(p *api.NodePool) {
			p.Spec.Disruption.ConsolidationPolicy = api.ConsolidationPolicyWhenEmpty
			p.Spec.Disruption.ConsolidateAfter = api.NeverDuration()
		}), api.ConsolidationPolicyWhenEmpty, true},
		{"nil pool", nil, api.ConsolidationPolicyWhenEmptyOrUnderutilized, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy, never := poolPolicy(tt.pool)
			assert.Equal(t, tt.wantPolicy, policy)
			assert.Equal(t, tt.wantNever, never)
		})
	}
}

// FuzzCollect feeds arbitrary label and annotation strings through collect: it may reject the
// input, but it must never panic, and what it accepts it sorts.
func FuzzCollect(f *testing.F) {
	f.Add("p", "D2", "eastus-1", "on-demand", "true", "30m", "-5", "0 9 * * *", "10%")
	f.Add("", "", "", "", "", "", "", "", "")
	f.Add("gone", "D1", "0", "spot", "maybe", "1h", "NaN", "@weekly", "101%")
	f.Fuzz(func(t *testing.T, pool, typ, zone, ct, nodeNote, podNote, cost, schedule, budget string) {
		n := ruleNode("n1", pool, typ, zone, ct,
			rulePod("a", podNote, annotated(api.AnnotationDoNotDisrupt, podNote), annotated(corev1.PodDeletionCost, cost)))
		n.Node.Annotations = map[string]string{api.AnnotationDoNotDisrupt: nodeNote, zone: ct}
		n.Node.Labels[podNote] = nodeNote
		m := ruleNode("n0", "p", "D2", "eastus-1", "on-demand")
		p := rulePool("p", withBudgets(ruleBudget(budget, schedule, time.Hour, api.DisruptionReason(ct))),
			func(p *api.NodePool) {
				p.Spec.Template.Spec.Requirements = []api.NodeSelectorRequirementWithMinValues{
					{Key: zone, Operator: corev1.NodeSelectorOperator(typ), Values: []string{ct, cost}}}
			})
		in := ruleInput([]*api.NodePool{p}, []*instancetype.InstanceType{ruleType("D2", 0.1)}, n, m)
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, rulePDB(pool, podNote, 0))
		cands, skipped, err := collect(in)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidInput)
			return
		}
		assert.Len(t, cands, 2-len(skipped))
		for i := 1; i < len(cands); i++ {
			assert.Less(t, cands[i-1].name, cands[i].name)
		}
		b, err := newBudgets(in, cands)
		require.NoError(t, err)
		for _, r := range []Reason{ReasonEmpty, ReasonUnderutilized, ReasonDrifted, ReasonExpired} {
			assert.GreaterOrEqual(t, b.allowed("p", r), 0)
		}
		_ = warnings(in)
	})
}
