package schedreplay

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

func TestReplay(t *testing.T) {
	cases := []struct {
		name    string
		nodes   []Node
		queue   []*corev1.Pod
		placed  map[string]string // "default/name" -> node
		orphans []string
	}{
		{
			name:   "least allocated: the emptier node",
			nodes:  []Node{node("a", "4", "16Gi", ""), node("b", "4", "16Gi", "")},
			queue:  []*corev1.Pod{pod("p1", "1", "1Gi"), pod("p2", "1", "1Gi")},
			placed: map[string]string{"default/p1": "a", "default/p2": "b"},
		},
		{
			name:   "least allocated: the bigger node while it is emptier",
			nodes:  []Node{node("small", "2", "4Gi", ""), node("big", "32", "128Gi", "")},
			queue:  []*corev1.Pod{pod("p1", "1", "1Gi"), pod("p2", "1", "1Gi")},
			placed: map[string]string{"default/p1": "big", "default/p2": "big"},
		},
		{
			// A packer puts both 1.5-cpu pods on one node and the 3-cpu pod on the other;
			// spreading leaves 2.5 cpu on each, so the 3-cpu pod is orphaned.
			name:    "spreading strands a large pod",
			nodes:   []Node{node("a", "4", "16Gi", ""), node("b", "4", "16Gi", "")},
			queue:   []*corev1.Pod{pod("m1", "1500m", "1Gi"), pod("m2", "1500m", "1Gi"), pod("large", "3", "1Gi")},
			placed:  map[string]string{"default/m1": "a", "default/m2": "b"},
			orphans: []string{"large"},
		},
		{
			name:    "hostname anti-affinity: one per node",
			nodes:   []Node{node("a", "8", "32Gi", ""), node("b", "8", "32Gi", "")},
			queue:   replicas("x", 3, "100m", "100Mi", app("x"), antiAffine("x", corev1.LabelHostname)),
			placed:  map[string]string{"default/x-0": "a", "default/x-1": "b"},
			orphans: []string{"x-2"},
		},
		{
			name:   "a placed pod's anti-affinity repels the incoming pod",
			nodes:  []Node{withPods(node("a", "8", "32Gi", ""), pod("guard", "100m", "100Mi", antiAffine("x", corev1.LabelHostname))), node("b", "2", "4Gi", "")},
			queue:  []*corev1.Pod{pod("x-0", "100m", "100Mi", app("x"))},
			placed: map[string]string{"default/x-0": "b"},
		},
		{
			name:  "zone spread DoNotSchedule keeps the skew within 1",
			nodes: []Node{node("a1", "32", "128Gi", "z1"), node("a2", "32", "128Gi", "z1"), node("b1", "2", "8Gi", "z2")},
			queue: replicas("s", 4, "500m", "100Mi", app("s"), zoneSpread("s", 1, corev1.DoNotSchedule)),
			// s-0 goes to the emptiest (a1), s-1 must go to z2, s-2 to z1 (a2, emptier than a1), s-3 to z2.
			placed: map[string]string{"default/s-0": "a1", "default/s-1": "b1", "default/s-2": "a2", "default/s-3": "b1"},
		},
		{
			name:    "zone spread: a zone out of room strands the rest",
			nodes:   []Node{node("a1", "32", "128Gi", "z1"), node("b1", "1", "8Gi", "z2")},
			queue:   replicas("s", 4, "600m", "100Mi", app("s"), zoneSpread("s", 1, corev1.DoNotSchedule)),
			placed:  map[string]string{"default/s-0": "a1", "default/s-1": "b1", "default/s-2": "a1"},
			orphans: []string{"s-3"},
		},
		{
			name:    "untolerated taint",
			nodes:   []Node{tainted(node("gpu", "8", "32Gi", ""), "gpu")},
			queue:   []*corev1.Pod{pod("plain", "1", "1Gi"), pod("tolerant", "1", "1Gi", tolerate("gpu"))},
			placed:  map[string]string{"default/tolerant": "gpu"},
			orphans: []string{"plain"},
		},
		{
			// The toleration rules are provisioner.Tolerates', numeric Gt included (KEP-5471):
			// taint gen=5 is tolerated by "gen Gt 3" and not by "gen Gt 7".
			name: "numeric toleration",
			nodes: []Node{func() Node {
				n := node("g5", "8", "32Gi", "")
				n.Taints = []corev1.Taint{{Key: "gen", Value: "5", Effect: corev1.TaintEffectNoSchedule}}
				return n
			}()},
			queue: []*corev1.Pod{
				pod("newer", "1", "1Gi", func(p *corev1.Pod) {
					p.Spec.Tolerations = []corev1.Toleration{{Key: "gen", Operator: corev1.TolerationOpGt, Value: "7"}}
				}),
				pod("older", "1", "1Gi", func(p *corev1.Pod) {
					p.Spec.Tolerations = []corev1.Toleration{{Key: "gen", Operator: corev1.TolerationOpGt, Value: "3"}}
				}),
			},
			placed:  map[string]string{"default/older": "g5"},
			orphans: []string{"newer"},
		},
		{
			name:   "nodeSelector",
			nodes:  []Node{node("a", "32", "64Gi", "z1"), node("b", "2", "4Gi", "z2")},
			queue:  []*corev1.Pod{pod("p", "1", "1Gi", selector(corev1.LabelTopologyZone, "z2"))},
			placed: map[string]string{"default/p": "b"},
		},
		{
			// web-0 comes first but needs a db pod on its node: it waits for the retry.
			name:   "required affinity is met on the retry",
			nodes:  []Node{node("a", "4", "16Gi", ""), node("b", "4", "16Gi", "")},
			queue:  []*corev1.Pod{pod("web-0", "1", "1Gi", affine("db", corev1.LabelHostname)), pod("db-0", "1", "1Gi", app("db"))},
			placed: map[string]string{"default/db-0": "a", "default/web-0": "a"},
		},
		{
			name:   "the first pod of a self-affine group goes anywhere, the rest follow it",
			nodes:  []Node{node("a", "4", "16Gi", ""), node("b", "4", "16Gi", "")},
			queue:  replicas("g", 2, "1", "1Gi", app("g"), affine("g", corev1.LabelHostname)),
			placed: map[string]string{"default/g-0": "a", "default/g-1": "a"},
		},
		{
			// LeastAllocated alone would put both replicas on a (b holds another pod); the default
			// spread of a ReplicaSet's pods (weight 2) sends the second one to b.
			name:   "system default spread of a controller's pods",
			nodes:  []Node{node("a", "64", "256Gi", ""), withPods(node("b", "64", "256Gi", ""), pod("other", "1", "4Gi"))},
			queue:  replicas("r", 2, "10m", "10Mi", owned("rs-1")),
			placed: map[string]string{"default/r-0": "a", "default/r-1": "b"},
		},
		{
			name:   "pods without a controller get no default spread",
			nodes:  []Node{node("a", "64", "256Gi", ""), withPods(node("b", "64", "256Gi", ""), pod("other", "1", "4Gi"))},
			queue:  replicas("r", 2, "10m", "10Mi"),
			placed: map[string]string{"default/r-0": "a", "default/r-1": "a"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Replay(tc.nodes, tc.queue)
			require.NoError(t, err)
			assert.Equal(t, tc.placed, res.Placed)
			var orphans []string
			for _, p := range res.Orphans {
				orphans = append(orphans, p.Name)
			}
			assert.Equal(t, tc.orphans, orphans)
		})
	}
}

func TestReplayInputErrors(t *testing.T) {
	bad := pod("bad", "1", "1Gi", func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: "Sometimes"}}}}}
	})
	cases := []struct {
		name  string
		nodes []Node
		queue []*corev1.Pod
		want  string
	}{
		{"two nodes of one name", []Node{node("a", "1", "1Gi", ""), node("a", "1", "1Gi", "")}, nil,
			`schedreplay: invalid input: nodes[1].name: want a unique, non-empty node name, got "a"`},
		{"a node without a name", []Node{{}}, nil, `schedreplay: invalid input: nodes[0].name: want a unique, non-empty node name, got ""`},
		{"an unparsable spread selector", []Node{node("a", "1", "1Gi", "")}, []*corev1.Pod{bad},
			`schedreplay: invalid input: Pod default/bad: spec.topologySpreadConstraints[0].labelSelector: unparsable label selector`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay(tc.nodes, tc.queue)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidInput), "class")
			assert.True(t, errors.Is(err, api.ErrInvalid), "bad input")
			var fe *api.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
