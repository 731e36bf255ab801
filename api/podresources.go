package api

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// NegativePodResource returns the first negative request, limit or overhead of a pod spec found at
// path (spec for a Pod, spec.template.spec for a workload), naming the container, or nil. The API
// server refuses such a pod; a planner that summed it with the other containers would quietly
// shrink the pod instead. The order is init containers, containers, pod-level resources, overhead,
// each resource by name, so the answer is deterministic.
func NegativePodResource(spec *corev1.PodSpec, path *field.Path) *FieldError {
	groups := []struct {
		name       string
		containers []corev1.Container
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}}
	for _, g := range groups {
		for i := range g.containers {
			c := &g.containers[i]
			if fe := negativeIn(path.Child(g.name).Index(i).Child("resources"), c.Resources); fe != nil {
				fe.Reason = "container " + c.Name + ": " + fe.Reason
				return fe
			}
		}
	}
	if spec.Resources != nil {
		if fe := negativeIn(path.Child("resources"), *spec.Resources); fe != nil {
			return fe
		}
	}
	return negativeList(path.Child("overhead"), spec.Overhead)
}

func negativeIn(path *field.Path, r corev1.ResourceRequirements) *FieldError {
	if fe := negativeList(path.Child("requests"), r.Requests); fe != nil {
		return fe
	}
	return negativeList(path.Child("limits"), r.Limits)
}

func negativeList(path *field.Path, list corev1.ResourceList) *FieldError {
	for _, name := range slices.Sorted(maps.Keys(list)) {
		if q := list[name]; q.Sign() < 0 {
			return invalid(path.Child(string(name)), q.String(), "must not be negative")
		}
	}
	return nil
}
