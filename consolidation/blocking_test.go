package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

func TestNodeBlocker(t *testing.T) {
	dnd := func(v string) func(*corev1.Pod) { return annotated(api.AnnotationDoNotDisrupt, v) }
	started := func(ago time.Duration) func(*corev1.Pod) {
		return func(p *corev1.Pod) { s := metav1.NewTime(ruleNow.Add(-ago)); p.Status.StartTime = &s }
	}
	notStarted := func(p *corev1.Pod) { p.Status.StartTime = nil }
	terminating := func(p *corev1.Pod) { d := metav1.NewTime(ruleNow); p.DeletionTimestamp = &d }
	tolerates := func(tol corev1.Toleration) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, tol) }
	}
	alwaysAllow := func(pdb *policyv1.PodDisruptionBudget) *policyv1.PodDisruptionBudget {
		p := policyv1.AlwaysAllow
		pdb.Spec.UnhealthyPodEvictionPolicy = &p
		return pdb
	}
	badSelector := rulePDB("broken", "x", 5)
	badSelector.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Sometimes"}}
	noSelector := rulePDB("none", "x", 0)
	noSelector.Spec.Selector = nil
	otherNS := rulePDB("web", "web", 0)
	otherNS.Namespace = "other"
	ds, mirror := ownedBy("DaemonSet", "apps/v1"), annotated(corev1.MirrorPodAnnotationKey, "abc")

	tests := []struct {
		name     string
		nodeNote string
		pods     []*corev1.Pod
		pdbs     []*policyv1.PodDisruptionBudget
		want     string
	}{
		{name: "nothing blocks", pods: []*corev1.Pod{rulePod("web-1", "web")}},
		{name: "node annotation true", nodeNote: "true", want: "node n1 has karpenter.sh/do-not-disrupt=true"},
		{name: "node annotation other than true", nodeNote: "yes"},
		{name: "pod do-not-disrupt true", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("true"))},
			want: "pod default/web-1 has karpenter.sh/do-not-disrupt=true"},
		{name: "terminal pod never blocks", pods: []*corev1.Pod{rulePod("job-1", "job", dnd("true"), inPhase(corev1.PodSucceeded))}},
		{name: "terminating pod never blocks", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("true"), terminating)}},
		{name: "DaemonSet pod blocks with the annotation", pods: []*corev1.Pod{rulePod("ds-1", "ds", dnd("true"), ds)},
			want: "pod default/ds-1 has karpenter.sh/do-not-disrupt=true"},
		{name: "duration still running", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("2h"), started(30*time.Minute))},
			want: "pod default/web-1 has karpenter.sh/do-not-disrupt=2h (until 2026-06-10T13:30:00Z)"},
		{name: "duration elapsed", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("30m"), started(2*time.Hour))}},
		{name: "duration elapsed exactly", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("30m"), started(30*time.Minute))}},
		{name: "duration without start time protects", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("30m"), notStarted)},
			want: "pod default/web-1 has karpenter.sh/do-not-disrupt=30m and has not started"},
		{name: "invalid value is ignored", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("forever"))}},
		{name: "negative duration is ignored", pods: []*corev1.Pod{rulePod("web-1", "web", dnd("-5m"))}},
		{name: "pdb allows 0", pods: []*corev1.Pod{rulePod("web-1", "web")},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 0)},
			want: "pdb default/web allows 0 disruptions (pod default/web-1)"},
		{name: "pdb allows 1", pods: []*corev1.Pod{rulePod("web-1", "web")},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 1)}},
		{name: "pdb selects other pods", pods: []*corev1.Pod{rulePod("web-1", "web")},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("db", "db", 0)}},
		{name: "pdb in another namespace", pods: []*corev1.Pod{rulePod("web-1", "web")},
			pdbs: []*policyv1.PodDisruptionBudget{otherNS}},
		{name: "pdb without selector matches nothing", pods: []*corev1.Pod{rulePod("web-1", "x")},
			pdbs: []*policyv1.PodDisruptionBudget{noSelector}},
		{name: "two pdbs block even when both allow", pods: []*corev1.Pod{rulePod("x", "web")},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("b", "web", 3), rulePDB("a", "web", 3)},
			want: "pod default/x matches 2 PodDisruptionBudgets (a, b)"},
		{name: "AlwaysAllow lets a not-Ready pod go", pods: []*corev1.Pod{rulePod("web-1", "web", podReady(corev1.ConditionFalse))},
			pdbs: []*policyv1.PodDisruptionBudget{alwaysAllow(rulePDB("web", "web", 0))}},
		{name: "AlwaysAllow keeps a Ready pod", pods: []*corev1.Pod{rulePod("web-1", "web", podReady(corev1.ConditionTrue))},
			pdbs: []*policyv1.PodDisruptionBudget{alwaysAllow(rulePDB("web", "web", 0))},
			want: "pdb default/web allows 0 disruptions (pod default/web-1)"},
		{name: "default policy keeps a not-Ready pod", pods: []*corev1.Pod{rulePod("web-1", "web", podReady(corev1.ConditionFalse))},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 0)},
			want: "pdb default/web allows 0 disruptions (pod default/web-1)"},
		{name: "terminal pod ignores its pdb", pods: []*corev1.Pod{rulePod("web-1", "web", inPhase(corev1.PodFailed))},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 0)}},
		{name: "mirror pod ignores its pdb", pods: []*corev1.Pod{rulePod("kp", "web", mirror)},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 0)}},
		{name: "node-owned pod ignores its pdb", pods: []*corev1.Pod{rulePod("kp", "web", ownedBy("Node", "v1"))},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 0)}},
		{name: "pod tolerating the disrupted taint is not evicted",
			pods: []*corev1.Pod{rulePod("web-1", "web", tolerates(corev1.Toleration{Operator: corev1.TolerationOpExists}))},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 0)}},
		{name: "pod tolerating another taint is evicted",
			pods: []*corev1.Pod{rulePod("web-1", "web", tolerates(corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}))},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("web", "web", 0)},
			want: "pdb default/web allows 0 disruptions (pod default/web-1)"},
		{name: "DaemonSet pod is evicted, so its pdb counts", pods: []*corev1.Pod{rulePod("ds-1", "ds", ds)},
			pdbs: []*policyv1.PodDisruptionBudget{rulePDB("ds", "ds", 0)},
			want: "pdb default/ds allows 0 disruptions (pod default/ds-1)"},
		{name: "invalid pdb selector fails closed", pods: []*corev1.Pod{rulePod("web-1", "web")},
			pdbs: []*policyv1.PodDisruptionBudget{badSelector},
			want: `pdb default/broken has an invalid selector (pod default/web-1): "Sometimes" is not a valid label selector operator`},
		{name: "pods are checked in name order", pods: []*corev1.Pod{rulePod("b", "web", dnd("true")), rulePod("a", "web", dnd("true"))},
			want: "pod default/a has karpenter.sh/do-not-disrupt=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ruleNode("n1", "pool", "D2", "eastus-1", api.CapacityTypeOnDemand, tt.pods...)
			if tt.nodeNote != "" {
				n.Node.Annotations = map[string]string{api.AnnotationDoNotDisrupt: tt.nodeNote}
			}
			assert.Equal(t, tt.want, nodeBlocker(n, newPDBIndex(tt.pdbs), ruleNow))
		})
	}
}

func TestNodeBlockerNodeClaimAnnotation(t *testing.T) {
	n := ruleNode("n1", "pool", "D2", "eastus-1", api.CapacityTypeOnDemand)
	n.NodeClaim = ruleClaim("nc1", ruleNow)
	n.NodeClaim.Annotations = map[string]string{api.AnnotationDoNotDisrupt: "true"}
	assert.Equal(t, "nodeclaim nc1 has karpenter.sh/do-not-disrupt=true", nodeBlocker(n, nil, ruleNow))
}

func TestWarnings(t *testing.T) {
	bad := rulePod("b", "b", annotated(api.AnnotationDoNotDisrupt, "a while"))
	in := ruleInput(nil, nil,
		ruleNode("n2", "pool", "D2", "", "", bad, rulePod("ok", "ok", annotated(api.AnnotationDoNotDisrupt, "1h"))),
		ruleNode("n1", "pool", "D2", "", "", rulePod("a", "a", annotated(api.AnnotationDoNotDisrupt, "TRUE")), bad),
	)
	in.Nodes[0].Pods = append(in.Nodes[0].Pods, nil)
	assert.Equal(t, []string{
		`pod default/a: ignoring karpenter.sh/do-not-disrupt="TRUE": want "true" or a positive duration such as 30m`,
		`pod default/b: ignoring karpenter.sh/do-not-disrupt="a while": want "true" or a positive duration such as 30m`,
	}, warnings(in))
}
