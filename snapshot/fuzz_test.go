package snapshot

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// FuzzWorkloadPods expands random Deployments and Jobs under a random bound. It must never panic; an
// accepted set must make exactly the pods an independent count says, within the bound, with unique
// names, and a second pass (WorkloadOf and a fresh Budget) must accept it too; a refused set must be
// refused with ErrTooManyPods or ErrBadWorkload naming a workload and its field, before any pod is
// made (the refusal allocates almost nothing, however large the replicas).
func FuzzWorkloadPods(f *testing.F) {
	f.Add(int32(3), int32(2), uint8(2), int64(100))
	f.Add(int32(10_000_000), int32(1), uint8(1), int64(0))
	f.Add(int32(-1), int32(1), uint8(1), int64(10))
	f.Add(int32(1), int32(-5), uint8(3), int64(10))
	f.Add(int32(2147483647), int32(2147483647), uint8(255), int64(9223372036854775807))
	f.Add(int32(50), int32(50), uint8(20), int64(1000))
	f.Fuzz(func(t *testing.T, replicas, parallelism int32, n uint8, maxPods int64) {
		workloads := fuzzWorkloads(replicas, parallelism, int(n%8)+1)
		want, valid := independentCount(workloads)
		limit := maxPods
		if limit <= 0 {
			limit = DefaultMaxPods
		}
		if valid && want <= limit && want > 20_000 {
			return // accepted and large: correct by the bound, but too slow to build on every exec
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		pods, err := WorkloadPods(workloads, maxPods)
		runtime.ReadMemStats(&after)
		if err != nil {
			checkRefusal(t, err, valid, want, limit, after.TotalAlloc-before.TotalAlloc)
			return
		}
		if !valid || want > limit {
			t.Fatalf("accepted %d pods (valid %v) over a bound of %d", want, valid, limit)
		}
		checkAcceptedPods(t, workloads, pods, want, maxPods)
	})
}

func fuzzWorkloads(replicas, parallelism int32, n int) []k8sruntime.Object {
	template := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
	var out []k8sruntime.Object
	for i := range n {
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("w%d", i), Namespace: "ns"}
		if i%2 == 0 {
			r := replicas
			out = append(out, &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Replicas: &r, Template: template}})
			continue
		}
		p := parallelism
		out = append(out, &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{Parallelism: &p, Template: template}})
	}
	return out
}

// independentCount sums the pods by reading the specs directly, not through WorkloadOf.
func independentCount(workloads []k8sruntime.Object) (int64, bool) {
	var total int64
	for _, w := range workloads {
		var n int32
		switch o := w.(type) {
		case *appsv1.Deployment:
			n = *o.Spec.Replicas
		case *batchv1.Job:
			n = *o.Spec.Parallelism
		}
		if n < 0 {
			return 0, false
		}
		total += int64(n)
	}
	return total, true
}

func checkRefusal(t *testing.T, err error, valid bool, want, limit int64, allocated uint64) {
	t.Helper()
	switch {
	case errors.Is(err, ErrBadWorkload):
		if valid {
			t.Fatalf("refused valid workloads: %v", err)
		}
	case errors.Is(err, ErrTooManyPods):
		// With a negative count further on, the bound may be met first: either refusal is right.
		if valid && want <= limit {
			t.Fatalf("refused %d pods under a bound of %d: %v", want, limit, err)
		}
	default:
		t.Fatalf("refusal wraps neither ErrBadWorkload nor ErrTooManyPods: %v", err)
	}
	if !strings.Contains(err.Error(), "ns/w") || !(strings.Contains(err.Error(), "spec.replicas") || strings.Contains(err.Error(), "spec.parallelism")) {
		t.Fatalf("refusal names no workload and field: %v", err)
	}
	if allocated > 1<<20 {
		t.Fatalf("a refusal allocated %d bytes: the bound must be checked before pods are made", allocated)
	}
}

func checkAcceptedPods(t *testing.T, workloads []k8sruntime.Object, pods []*corev1.Pod, want, maxPods int64) {
	t.Helper()
	if int64(len(pods)) != want {
		t.Fatalf("made %d pods, the specs ask for %d", len(pods), want)
	}
	names := make(map[string]bool, len(pods))
	for _, p := range pods {
		if names[p.Namespace+"/"+p.Name] {
			t.Fatalf("pod %s/%s made twice", p.Namespace, p.Name)
		}
		names[p.Namespace+"/"+p.Name] = true
	}
	budget := &Budget{Max: maxPods}
	for _, obj := range workloads {
		w, err := WorkloadOf(obj)
		if err == nil {
			err = budget.Spend(w)
		}
		if err != nil {
			t.Fatalf("accepted, but a second pass refuses: %v", err)
		}
	}
}
