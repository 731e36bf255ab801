package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

func TestNodePoolHash(t *testing.T) {
	base := func() *api.NodePool {
		return rulePool("p", func(p *api.NodePool) {
			p.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a", "tier": "web"}
			p.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoSchedule}, {Key: "b", Value: "1", Effect: corev1.TaintEffectNoExecute}}
			p.Spec.Template.Spec.ExpireAfter = api.NewDuration(api.DefaultExpireAfter)
		})
	}
	h := NodePoolHash(base())
	assert.Regexp(t, `^[0-9]+$`, h)
	assert.Equal(t, h, NodePoolHash(base()), "deterministic")
	assert.Empty(t, NodePoolHash(nil))

	same := map[string]func(*api.NodePool){
		"requirements are not hashed": func(p *api.NodePool) {
			p.Spec.Template.Spec.Requirements = []api.NodeSelectorRequirementWithMinValues{{Key: api.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}}}
		},
		"taint order is not hashed": func(p *api.NodePool) {
			ts := p.Spec.Template.Spec.Taints
			p.Spec.Template.Spec.Taints = []corev1.Taint{ts[1], ts[0]}
		},
		"default expireAfter": func(p *api.NodePool) { p.Spec.Template.Spec.ExpireAfter = api.NillableDuration{} },
		"default nodeClassRef group and kind": func(p *api.NodePool) {
			p.Spec.Template.Spec.NodeClassRef = &api.NodeClassReference{Name: "default"}
		},
		"disruption settings are not the template": func(p *api.NodePool) {
			p.Spec.Disruption.Budgets = []api.Budget{{Nodes: "0"}}
		},
	}
	for name, change := range same {
		t.Run(name, func(t *testing.T) {
			p := base()
			change(p)
			assert.Equal(t, h, NodePoolHash(p))
		})
	}
	differ := map[string]func(*api.NodePool){
		"a label":       func(p *api.NodePool) { p.Spec.Template.ObjectMeta.Labels["tier"] = "db" },
		"an annotation": func(p *api.NodePool) { p.Spec.Template.ObjectMeta.Annotations = map[string]string{"x": "y"} },
		"a taint":       func(p *api.NodePool) { p.Spec.Template.Spec.Taints = p.Spec.Template.Spec.Taints[:1] },
		"a startup taint": func(p *api.NodePool) {
			p.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "s", Effect: corev1.TaintEffectNoSchedule}}
		},
		"the node class": func(p *api.NodePool) { p.Spec.Template.Spec.NodeClassRef.Name = "other" },
		"expireAfter":    func(p *api.NodePool) { p.Spec.Template.Spec.ExpireAfter = api.NeverDuration() },
	}
	for name, change := range differ {
		t.Run(name, func(t *testing.T) {
			p := base()
			change(p)
			assert.NotEqual(t, h, NodePoolHash(p))
		})
	}
	p := base()
	p.Spec.Template.Spec.NodeClassRef = &api.NodeClassReference{Name: "default"}
	NodePoolHash(p)
	assert.Empty(t, p.Spec.Template.Spec.NodeClassRef.Group, "the pool is not modified")
}

func TestDriftReason(t *testing.T) {
	it := ruleType("Standard_D2s_v5", 0.1)
	pool := rulePool("p")
	hash := NodePoolHash(pool)
	claim := func(annotations map[string]string, conditions ...metav1.Condition) func(*Node, *api.AKSNodeClass) {
		return func(n *Node, _ *api.AKSNodeClass) {
			n.NodeClaim = ruleClaim("nc", ruleNow)
			n.NodeClaim.Annotations = annotations
			n.NodeClaim.Status.Conditions = conditions
		}
	}
	stamped := func(h, version string) map[string]string {
		return map[string]string{api.AnnotationNodePoolHash: h, AnnotationNodePoolHashVersion: version}
	}
	require := func(key string, op corev1.NodeSelectorOperator, values ...string) func(*api.NodePool) {
		return func(p *api.NodePool) {
			p.Spec.Template.Spec.Requirements = append(p.Spec.Template.Spec.Requirements,
				api.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
		}
	}
	versions := func(class, kubelet string) func(*Node, *api.AKSNodeClass) {
		return func(n *Node, c *api.AKSNodeClass) {
			c.Status.KubernetesVersion = class
			n.Node.Status.NodeInfo.KubeletVersion = kubelet
		}
	}
	images := func(imageID string, ids ...string) func(*Node, *api.AKSNodeClass) {
		return func(n *Node, c *api.AKSNodeClass) {
			n.NodeClaim = ruleClaim("nc", ruleNow)
			n.NodeClaim.Status.ImageID = imageID
			for _, id := range ids {
				c.Status.Images = append(c.Status.Images, api.NodeImage{ID: id})
			}
		}
	}
	createdAgo := func(age time.Duration) func(*Node, *api.AKSNodeClass) {
		return func(n *Node, _ *api.AKSNodeClass) { n.Node.CreationTimestamp = metav1.NewTime(ruleNow.Add(-age)) }
	}
	labelled := func(zone, ct string) func(*Node, *api.AKSNodeClass) {
		return func(n *Node, _ *api.AKSNodeClass) {
			n.Node.Labels[api.LabelZone], n.Node.Labels[api.LabelCapacityType] = zone, ct
			if zone == "" {
				delete(n.Node.Labels, api.LabelZone)
			}
		}
	}
	const sig = "/subscriptions/x/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/"
	tests := []struct {
		name   string
		pool   *api.NodePool
		noType bool
		change func(*Node, *api.AKSNodeClass)
		want   string
	}{
		{name: "nothing drifted"},
		{name: "Drifted condition keeps its reason", want: "ClusterConfigDrift",
			change: claim(nil, metav1.Condition{Type: api.ConditionDrifted, Status: metav1.ConditionTrue, Reason: "ClusterConfigDrift"})},
		{name: "Drifted condition without a reason", want: "Drifted",
			change: claim(nil, metav1.Condition{Type: api.ConditionDrifted, Status: metav1.ConditionTrue})},
		{name: "Drifted=False is not drift",
			change: claim(nil, metav1.Condition{Type: api.ConditionDrifted, Status: metav1.ConditionFalse, Reason: "NodePoolDrifted"})},
		{name: "stamped hash differs", change: claim(stamped("123", NodePoolHashVersion)), want: DriftNodePool},
		{name: "stamped hash matches", change: claim(stamped(hash, NodePoolHashVersion))},
		{name: "hash of another scheme is not compared", change: claim(stamped("123", "v3"))},
		{name: "hash without a version is not compared", change: claim(map[string]string{api.AnnotationNodePoolHash: "123"})},
		{name: "version without a hash", change: claim(map[string]string{AnnotationNodePoolHashVersion: NodePoolHashVersion})},
		{name: "requirement no longer met", pool: rulePool("p", require(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeSpot)),
			want: DriftRequirements},
		{name: "requirement met", pool: rulePool("p", require(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeOnDemand))},
		{name: "label the node lacks comes from its instance type", pool: rulePool("p", require(api.LabelSKUFamily, corev1.NodeSelectorOpIn, "D"))},
		{name: "instance type's label no longer allowed", pool: rulePool("p", require(api.LabelSKUFamily, corev1.NodeSelectorOpNotIn, "D")),
			want: DriftRequirements},
		{name: "label defined nowhere is drift", pool: rulePool("p", require("example.com/team", corev1.NodeSelectorOpExists)),
			want: DriftRequirements},
		{name: "instance type gone", noType: true, want: DriftInstanceTypeNotFound},
		{name: "no offering in the zone", change: labelled("eastus-3", api.CapacityTypeOnDemand), want: DriftInstanceTypeNotFound},
		{name: "instance type gone from a node under an hour old", noType: true, change: createdAgo(59 * time.Minute)},
		{name: "instance type gone from a node an hour old", noType: true, change: createdAgo(time.Hour), want: DriftInstanceTypeNotFound},
		{name: "the NodeClaim's age counts, not the Node's", noType: true, change: func(n *Node, c *api.AKSNodeClass) {
			n.NodeClaim = &api.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: metav1.NewTime(ruleNow.Add(-10 * time.Minute))}}
		}},
		{name: "no spot offering in the zone", change: labelled("eastus-2", api.CapacityTypeSpot), want: DriftInstanceTypeNotFound},
		{name: "offering out of capacity is not drift", change: func(*Node, *api.AKSNodeClass) { it.Offerings[1].Available = false }},
		{name: "no zone label, no offering check", change: labelled("", api.CapacityTypeSpot)},
		{name: "kubelet behind the node class", change: versions("1.31.2", "v1.30.7"), want: DriftKubernetesVersion},
		{name: "kubelet matches the node class", change: versions("1.31.2", "v1.31.2")},
		{name: "node class version unknown", change: versions("", "v1.30.7")},
		{name: "kubelet version unknown", change: versions("1.31.2", "")},
		{name: "image among the current ones", change: images(sig+"202501.01.0", sig+"202502.01.0", sig+"202501.01.0")},
		{name: "image ID compared case-insensitively", change: images(sig+"202501.01.0", "/SUBSCRIPTIONS/X"+sig[len("/subscriptions/x"):]+"202501.01.0")},
		{name: "image replaced", change: images(sig+"202412.01.0", sig+"202502.01.0"), want: DriftImage},
		{name: "node image unknown", change: images("", sig+"202502.01.0")},
		{name: "class images unknown", change: images(sig + "202412.01.0")},
		{name: "class images without IDs", change: images(sig+"202412.01.0", "")},
		{name: "no NodeClaim, no image check", change: func(_ *Node, c *api.AKSNodeClass) {
			c.Status.Images = []api.NodeImage{{ID: sig + "202502.01.0"}}
		}},
		{name: "first kind found wins", pool: rulePool("p", require(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeSpot)),
			change: versions("1.31.2", "v1.30.7"), want: DriftRequirements},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it.Offerings[1].Available = true
			p := pool
			if tt.pool != nil {
				p = tt.pool
			}
			typ := it
			if tt.noType {
				typ = nil
			}
			n := ruleNode("n1", "p", it.Name, "eastus-1", api.CapacityTypeOnDemand)
			class := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
			if tt.change != nil {
				tt.change(n, class)
			}
			got, changed := driftReason(ruleCandidate(n, p, class, typ), NodePoolHash(p), ClusterConfig{}, ruleNow)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want != "", len(changed) > 0 || tt.want == "Drifted" || tt.want == "ClusterConfigDrift", "what changed: %q", changed)
		})
	}
}
