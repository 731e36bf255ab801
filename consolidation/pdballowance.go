package consolidation

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/napkit/napkit/api"
)

// AllowanceSource says where a PDB's allowance was read from.
type AllowanceSource string

// The allowance sources.
const (
	// AllowanceStatus is status.disruptionsAllowed, taken when the status is current.
	AllowanceStatus AllowanceSource = "status"
	// AllowanceComputed is worked out from the spec and the pods, as the disruption controller
	// would, when the status is absent or stale.
	AllowanceComputed AllowanceSource = "computed"
)

// disruptedPodTimeout is how long the disruption controller keeps counting an evicted pod in
// status.disruptedPods as not healthy before it gives up waiting for its deletion
// (upstream: kubernetes pkg/controller/disruption/disruption.go, DeletionTimeout).
const disruptedPodTimeout = 2 * time.Minute

// PDBAllowance returns how many of the pods pdb guards may be evicted now, and where the figure
// comes from. pods may be every pod of the cluster: only those of the PDB's namespace its selector
// matches count. now is the snapshot time (it ages status.disruptedPods).
//
// Which wins: the status, when it is current, because the eviction API decides by exactly that
// field and the disruption controller sees what a snapshot may not (controllers' scale, pods of
// other nodes). A status is current when it was observed at all (any field set) and
// status.observedGeneration is not behind metadata.generation. When it is stale the eviction API
// refuses every eviction until the controller catches up (upstream: kubernetes
// pkg/registry/core/pod/storage/eviction.go, checkAndDecrement), and what the controller then
// publishes is the computed figure; when it is absent (a hand-written snapshot) the computed
// figure is all there is. The computation follows upstream's pkg/controller/disruption/disruption.go:
//
//   - maxUnavailable (count or percentage): expected = the workloads' scale; percentages of it
//     round up; desiredHealthy = expected − maxUnavailable, at least 0.
//   - minAvailable count: desiredHealthy = minAvailable, expected = the matching pods.
//   - minAvailable percentage: expected = the workloads' scale; desiredHealthy = the percentage
//     of it, rounded up.
//   - neither: desiredHealthy 0 and expected 0, which allows nothing (the controller's guard for
//     PDBs that match no pods yet).
//   - healthy pods are Ready, not being deleted and not evicted within the last two minutes
//     (status.disruptedPods); allowance = healthy − desiredHealthy, 0 when negative or when
//     expected is 0.
//
// A snapshot holds no workload objects, so a workload's scale is taken as the number of its
// pods (controller-owned, neither terminal nor being deleted; pending pods count): a workload
// whose replicas are all present has exactly that many. Pods without a controller are left out of
// the scale, as upstream leaves them out.
//
// Errors: an invalid selector or an intstr value that is neither an integer nor a percentage,
// each wrapping ErrInvalidInput.
func PDBAllowance(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, now time.Time) (int, AllowanceSource, error) {
	if pdb == nil {
		return 0, "", inputErr("PodDisruptionBudget", nil, "is nil: the PodDisruptionBudget is required")
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return 0, "", pdbErr(pdb, "spec.selector", pdb.Spec.Selector, "%w", err)
	}
	var matched []*corev1.Pod
	for _, pod := range pods {
		if pod != nil && pod.Namespace == pdb.Namespace && sel.Matches(labels.Set(pod.Labels)) {
			matched = append(matched, pod)
		}
	}
	return pdbAllowance(pdb, matched, now)
}

// pdbAllowance is PDBAllowance over the pods the PDB matches.
func pdbAllowance(pdb *policyv1.PodDisruptionBudget, matched []*corev1.Pod, now time.Time) (int, AllowanceSource, error) {
	if statusCurrent(pdb) {
		return max(int(pdb.Status.DisruptionsAllowed), 0), AllowanceStatus, nil
	}
	expected, desired, err := desiredHealthy(pdb, matched)
	if err != nil {
		return 0, "", err
	}
	allowed := healthyPods(pdb, matched, now) - desired
	if expected <= 0 || allowed < 0 {
		allowed = 0
	}
	return allowed, AllowanceComputed, nil
}

// statusCurrent reports a status the disruption controller wrote for the PDB's current spec.
func statusCurrent(pdb *policyv1.PodDisruptionBudget) bool {
	st := &pdb.Status
	observed := st.ObservedGeneration > 0 || st.DisruptionsAllowed != 0 || st.CurrentHealthy != 0 ||
		st.DesiredHealthy != 0 || st.ExpectedPods != 0 || len(st.Conditions) > 0 || len(st.DisruptedPods) > 0
	return observed && st.ObservedGeneration >= pdb.Generation
}

// desiredHealthy is upstream's getExpectedPodCount over the snapshot.
func desiredHealthy(pdb *policyv1.PodDisruptionBudget, matched []*corev1.Pod) (expected, desired int, err error) {
	spec := &pdb.Spec
	switch {
	case spec.MaxUnavailable != nil:
		expected = workloadScale(matched)
		maxUnavailable, err := scaled(pdb, "spec.maxUnavailable", spec.MaxUnavailable, expected)
		if err != nil {
			return 0, 0, err
		}
		return expected, max(expected-maxUnavailable, 0), nil
	case spec.MinAvailable != nil && spec.MinAvailable.Type == intstr.Int:
		return len(matched), int(spec.MinAvailable.IntVal), nil
	case spec.MinAvailable != nil:
		expected = workloadScale(matched)
		minAvailable, err := scaled(pdb, "spec.minAvailable", spec.MinAvailable, expected)
		return expected, minAvailable, err
	}
	return 0, 0, nil
}

// scaled is intstr's count-or-percentage rounded up, as upstream calls it.
func scaled(pdb *policyv1.PodDisruptionBudget, field string, v *intstr.IntOrString, total int) (int, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return 0, pdbErr(pdb, field, v.String(), "want a count such as 1 or a percentage such as 20%%: %w", err)
	}
	return n, nil
}

// workloadScale estimates the summed scale of the controllers owning the pods: their live pods.
func workloadScale(matched []*corev1.Pod) int {
	n := 0
	for _, pod := range matched {
		if metav1.GetControllerOf(pod) != nil && podActive(pod) {
			n++
		}
	}
	return n
}

// healthyPods is upstream's countHealthyPods.
func healthyPods(pdb *policyv1.PodDisruptionBudget, matched []*corev1.Pod, now time.Time) int {
	n := 0
	for _, pod := range matched {
		if pod.DeletionTimestamp != nil || !podIsReady(pod) {
			continue
		}
		if at, ok := pdb.Status.DisruptedPods[pod.Name]; ok && at.Add(disruptedPodTimeout).After(now) {
			continue
		}
		n++
	}
	return n
}

// podIsReady is the Ready=True condition (an unknown readiness is not ready).
func podIsReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// pdbErr is an input error about a field of the PDB, which it names as the object.
func pdbErr(pdb *policyv1.PodDisruptionBudget, field string, value any, format string, args ...any) error {
	object := fmt.Sprintf("PodDisruptionBudget %s/%s", pdb.Namespace, pdb.Name)
	return api.Invalid(ErrInvalidInput, object, field, value, format, args...)
}
