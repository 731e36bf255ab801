package provisioner

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// podRequests returns what a pod asks of a node, as the kubelet and kube-scheduler count it:
//
//   - app containers are summed; a restartable init container (a sidecar) runs alongside them, so
//     it is summed too;
//   - an ordinary init container runs alone with the sidecars started before it, so the pod needs at
//     least the largest such moment;
//   - pod-level resources (spec.resources), when set, replace the container total for the
//     resources they name;
//   - the RuntimeClass overhead (spec.overhead) is added on top;
//   - every pod uses one "pods" slot.
//
// A request missing where a limit is set defaults to the limit, as the API server would.
func podRequests(pod *corev1.Pod) map[corev1.ResourceName]int64 {
	if len(pod.Spec.InitContainers) == 0 && pod.Spec.Resources == nil {
		return simpleRequests(pod)
	}
	total := map[corev1.ResourceName]int64{}
	sidecars := map[corev1.ResourceName]int64{}
	initPeak := map[corev1.ResourceName]int64{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		reqs := containerRequests(c.Resources)
		if isSidecar(c) {
			addInto(total, reqs)
			addInto(sidecars, reqs)
			maxInto(initPeak, sidecars)
			continue
		}
		moment := map[corev1.ResourceName]int64{}
		addInto(moment, reqs)
		addInto(moment, sidecars)
		maxInto(initPeak, moment)
	}
	for i := range pod.Spec.Containers {
		addInto(total, containerRequests(pod.Spec.Containers[i].Resources))
	}
	maxInto(total, initPeak)
	if r := pod.Spec.Resources; r != nil {
		for name, q := range containerRequests(*r) {
			total[name] = q
		}
	}
	for name, q := range pod.Spec.Overhead {
		total[name] += quantityValue(name, q)
	}
	total[corev1.ResourcePods] = 1
	return total
}

// simpleRequests is podRequests for the common pod without init containers or pod-level
// resources, without the intermediate maps.
func simpleRequests(pod *corev1.Pod) map[corev1.ResourceName]int64 {
	total := make(map[corev1.ResourceName]int64, 4)
	for i := range pod.Spec.Containers {
		r := &pod.Spec.Containers[i].Resources
		for name, q := range r.Requests {
			total[name] += quantityValue(name, q)
		}
		for name, q := range r.Limits {
			if _, ok := r.Requests[name]; !ok {
				total[name] += quantityValue(name, q)
			}
		}
	}
	for name, q := range pod.Spec.Overhead {
		total[name] += quantityValue(name, q)
	}
	total[corev1.ResourcePods] = 1
	return total
}

func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

func containerRequests(r corev1.ResourceRequirements) map[corev1.ResourceName]int64 {
	out := make(map[corev1.ResourceName]int64, len(r.Requests)+len(r.Limits))
	for name, q := range r.Limits {
		out[name] = quantityValue(name, q)
	}
	for name, q := range r.Requests {
		out[name] = quantityValue(name, q)
	}
	return out
}

func addInto(dst, src map[corev1.ResourceName]int64) {
	for name, q := range src {
		dst[name] += q
	}
}

func maxInto(dst, src map[corev1.ResourceName]int64) {
	for name, q := range src {
		if q > dst[name] {
			dst[name] = q
		}
	}
}

// PodRequests returns what a pod asks of a node, counted as Solve counts it (see podRequests):
// cpu in millicores, every other resource in its base unit, and one "pods" slot. The map is the
// caller's.
func PodRequests(pod *corev1.Pod) map[corev1.ResourceName]int64 { return podRequests(pod) }

// QuantityValue is a quantity of the named resource in PodRequests' units.
func QuantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	return quantityValue(name, q)
}
