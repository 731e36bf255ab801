package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The expected figures below are worked out by hand from the rules of the Kubernetes disruption
// controller (upstream: kubernetes pkg/controller/disruption/disruption.go, getExpectedPodCount,
// getExpectedScale, countHealthyPods, updatePdbStatus) and of the eviction API (upstream:
// kubernetes pkg/registry/core/pod/storage/eviction.go, which refuses while observedGeneration is
// behind generation).

type pdbOpt func(*policyv1.PodDisruptionBudget)

func pdbFor(app string, opts ...pdbOpt) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pdb-" + app, Generation: 1},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
	}
	for _, o := range opts {
		o(pdb)
	}
	return pdb
}

func minAvail(v intstr.IntOrString) pdbOpt {
	return func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = &v }
}

func maxUnavail(v intstr.IntOrString) pdbOpt {
	return func(p *policyv1.PodDisruptionBudget) { p.Spec.MaxUnavailable = &v }
}

func observed(gen int64, allowed int32) pdbOpt {
	return func(p *policyv1.PodDisruptionBudget) {
		p.Status.ObservedGeneration, p.Status.DisruptionsAllowed = gen, allowed
	}
}

// appPods makes n pods of app owned by a ReplicaSet; ready of them are Ready.
func appPods(app string, n, ready int) []*corev1.Pod {
	var out []*corev1.Pod
	yes := true
	for i := range n {
		status := corev1.ConditionFalse
		if i < ready {
			status = corev1.ConditionTrue
		}
		out = append(out, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: app + "-" + string(rune('a'+i)), Labels: map[string]string{"app": app},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app, UID: "rs-" + "app", Controller: &yes}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
		})
	}
	return out
}

func TestPDBAllowance(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	unowned := func(pods []*corev1.Pod) []*corev1.Pod {
		for _, p := range pods {
			p.OwnerReferences, p.Name = nil, "bare-"+p.Name
		}
		return pods
	}
	pending := appPods("web", 1, 0)
	pending[0].Name, pending[0].Status = "web-pending", corev1.PodStatus{Phase: corev1.PodPending}
	other := appPods("web", 2, 2)
	other[0].Namespace = "elsewhere"
	other[1].Labels = map[string]string{"app": "api"}
	recent := appPods("web", 4, 4)
	disrupted := func(at time.Time) pdbOpt {
		return func(p *policyv1.PodDisruptionBudget) {
			p.Status.DisruptedPods = map[string]metav1.Time{recent[0].Name: metav1.NewTime(at)}
			p.Generation, p.Status.ObservedGeneration = 2, 1 // stale, so computed
		}
	}
	tests := []struct {
		name    string
		pdb     *policyv1.PodDisruptionBudget
		pods    []*corev1.Pod
		want    int
		source  AllowanceSource
		wantErr string
	}{
		{"current status wins over the spec", pdbFor("web", minAvail(intstr.FromInt32(1)), observed(1, 3)), appPods("web", 6, 6), 3, AllowanceStatus, ""},
		{"status of a newer generation is current", pdbFor("web", minAvail(intstr.FromInt32(1)), observed(4, 0)), appPods("web", 6, 6), 0, AllowanceStatus, ""},
		{"stale status is recomputed", pdbFor("web", minAvail(intstr.FromInt32(4)), observed(0, 5), func(p *policyv1.PodDisruptionBudget) { p.Generation = 2; p.Status.ObservedGeneration = 1 }), appPods("web", 6, 6), 2, AllowanceComputed, ""},
		{"absent status is computed", pdbFor("web", minAvail(intstr.FromInt32(2))), appPods("web", 4, 4), 2, AllowanceComputed, ""},
		{"hand-written status without generation is taken", func() *policyv1.PodDisruptionBudget {
			p := pdbFor("web", minAvail(intstr.FromInt32(1)))
			p.Generation, p.Status.DisruptionsAllowed = 0, 3
			return p
		}(), appPods("web", 2, 2), 3, AllowanceStatus, ""},
		{"minAvailable count: only Ready pods are healthy", pdbFor("web", minAvail(intstr.FromInt32(2))), appPods("web", 5, 3), 1, AllowanceComputed, ""},
		{"minAvailable percentage rounds up: 50% of 5 is 3", pdbFor("web", minAvail(intstr.FromString("50%"))), appPods("web", 5, 5), 2, AllowanceComputed, ""},
		{"maxUnavailable count", pdbFor("web", maxUnavail(intstr.FromInt32(1))), appPods("web", 6, 6), 1, AllowanceComputed, ""},
		{"maxUnavailable percentage rounds up: 30% of 5 is 2", pdbFor("web", maxUnavail(intstr.FromString("30%"))), appPods("web", 5, 5), 2, AllowanceComputed, ""},
		{"maxUnavailable counts unhealthy pods first", pdbFor("web", maxUnavail(intstr.FromString("30%"))), appPods("web", 5, 3), 0, AllowanceComputed, ""},
		{"a pending replica counts in the scale, not as healthy", pdbFor("web", maxUnavail(intstr.FromInt32(1))), append(appPods("web", 3, 3), pending...), 0, AllowanceComputed, ""},
		{"unmanaged pods are left out of the scale", pdbFor("web", minAvail(intstr.FromString("50%"))), append(appPods("web", 2, 2), unowned(appPods("web", 2, 2))...), 3, AllowanceComputed, ""},
		{"neither field allows nothing", pdbFor("web"), appPods("web", 3, 3), 0, AllowanceComputed, ""},
		{"no pods allows nothing", pdbFor("web", minAvail(intstr.FromInt32(0))), nil, 0, AllowanceComputed, ""},
		{"other namespaces and labels do not count", pdbFor("web", minAvail(intstr.FromInt32(0))), other, 0, AllowanceComputed, ""},
		{"a pod evicted a minute ago is not healthy", pdbFor("web", minAvail(intstr.FromInt32(2)), disrupted(now.Add(-time.Minute))), recent, 1, AllowanceComputed, ""},
		{"an eviction older than two minutes is forgotten", pdbFor("web", minAvail(intstr.FromInt32(2)), disrupted(now.Add(-3*time.Minute))), recent, 2, AllowanceComputed, ""},
		{"a bad percentage is an error", pdbFor("web", maxUnavail(intstr.FromString("many"))), appPods("web", 3, 3), 0, "", `PodDisruptionBudget default/pdb-web: spec.maxUnavailable: want a count such as 1 or a percentage such as 20%: invalid value for IntOrString: invalid type: string is not a percentage, got "many"`},
		{"a bad selector is an error", pdbFor("web", func(p *policyv1.PodDisruptionBudget) {
			p.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}
		}), nil, 0, "", "spec.selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, source, err := PDBAllowance(tt.pdb, tt.pods, now)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalidInput)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.source, source)
		})
	}
}
