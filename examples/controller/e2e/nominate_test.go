//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// TestSchedulerNomination records what the real kube-scheduler (v1.37.2) does with a
// status.nominatedNodeName written by another component, the placement hint of KEP-5278
// ("Nominated node name for an expected pod placement"). The KEP's design says kube-scheduler
// keeps such a nomination while the pod is unschedulable, counts the pod's requests on that node
// against other pods of equal or lower priority, and tries the node first. In v1.37.2 (feature
// gate NominatedNodeNameForExpectation still beta) the first rule does not hold: a failed attempt
// runs the DefaultPreemption PostFilter, and when preemption finds no candidate it returns an
// empty nomination that clears the field (pkg/scheduler/framework/preemption/preemption.go,
// "Specify nominatedNodeName to clear the pod's nominatedNodeName status"). Only a pod that may
// not preempt (preemptionPolicy Never) skips that path and keeps it. So the controller never
// nominates a pod to a NodeClaim in flight (it holds such pods itself, internal/controller/
// planned.go); with --nominate-pods it nominates a planned pod only as its node registers, right
// before the taint whose removal triggers the pod's next attempt (TestSchedulerNominationAtRegistration).
func TestSchedulerNomination(t *testing.T) {
	c := startCluster(t, "apiserver,scheduler")
	kube := c.kube
	ns := "default"

	// A pod that may preempt loses a nomination to a missing node at its next failed attempt
	// (the nomination's own update already requeues it; the new node makes sure).
	createPod(t, kube, probePod("d1", "3", map[string]string{"probe/planned": "yes"}, false))
	waitUnschedulable(t, kube, "d1")
	nominate(t, kube, "d1", "node-a")
	createNode(t, kube, "node-b", "1", nil)
	waitUntil(t, 30*time.Second, "d1's nomination cleared by kube-scheduler", nominatedTo(kube, ns, "d1", ""))

	never := corev1.PreemptNever
	_, err := kube.SchedulingV1().PriorityClasses().Create(t.Context(), &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: neverPreemptClass}, Value: 0, PreemptionPolicy: &never,
	}, metav1.CreateOptions{})
	require.NoError(t, err, "creating PriorityClass %s", neverPreemptClass)

	// (a) p1 may not preempt, fits no node (its selector matches none), nominated to missing node-a.
	createPod(t, kube, probePod("p1", "3", map[string]string{"probe/planned": "yes"}, true))
	waitUnschedulable(t, kube, "p1")
	nominate(t, kube, "p1", "node-a")
	createNode(t, kube, "node-c", "1", nil) // requeues p1; it still fits nowhere
	holdFor(t, 3*time.Second, "p1 nominated to missing node-a", nominatedTo(kube, ns, "p1", "node-a"))

	// (b) node-a appears with room for p1's 3 cores but without p1's label: p1 still does not fit,
	// keeps its nomination, and its 3 cores stay reserved: p2 (3 cores, no selector) must not get them.
	createNode(t, kube, "node-a", "4", nil)
	createPod(t, kube, probePod("p2", "3", nil, true))
	holdFor(t, 5*time.Second, "p2 kept off node-a's reserved cores", func(ctx context.Context) error {
		if err := nominatedTo(kube, ns, "p1", "node-a")(ctx); err != nil {
			return err
		}
		return unbound(ctx, kube, "p2")
	})
	// Once node-a carries p1's label, p1 binds there.
	labelNode(t, kube, "node-a", "probe/planned", "yes")
	waitUntil(t, 30*time.Second, "p1 bound to node-a", boundTo(kube, "p1", "node-a"))

	// (c) q1..q4 may only go to the zone's nodes and are kept off them by a blocker pod (required anti-affinity over a zone both
	// new nodes share), nominated to the small node, then released by one event (the blocker's
	// deletion). kube-scheduler's default LeastAllocated scoring picks the big node, as r1 shows.
	zone := map[string]string{"probe/zone": "z1"}
	createNode(t, kube, "node-big", "32", zone)
	createNode(t, kube, "node-small", "4", zone)
	blocker := probePod("blocker", "0", nil, true)
	blocker.Labels = map[string]string{"probe/blocker": "yes"}
	blocker.Spec.NodeName = "node-small"
	createPod(t, kube, blocker)
	qs := []string{"q1", "q2", "q3", "q4"}
	for _, name := range qs {
		q := probePod(name, "500m", zone, true)
		q.Spec.Affinity = antiAffinity("probe/blocker", "probe/zone")
		createPod(t, kube, q)
	}
	for _, name := range qs {
		waitUnschedulable(t, kube, name)
		nominate(t, kube, name, "node-small")
	}
	// r1, the same pod without a nomination, shows where scoring alone puts it.
	r1 := probePod("r1", "500m", zone, true)
	r1.Spec.Affinity = antiAffinity("probe/blocker", "probe/zone")
	createPod(t, kube, r1)
	waitUnschedulable(t, kube, "r1")
	zero := int64(0)
	require.NoError(t, kube.CoreV1().Pods(ns).Delete(t.Context(), "blocker", metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	for _, name := range qs {
		waitUntil(t, 30*time.Second, name+" bound to its nominated node-small", boundTo(kube, name, "node-small"))
	}
	waitUntil(t, 30*time.Second, "r1 (not nominated) bound to node-big", boundTo(kube, "r1", "node-big"))
}

// neverPreemptClass is a PriorityClass of priority 0 whose pods may not preempt.
const neverPreemptClass = "probe-never-preempt"

// probePod is a pod of cpu cores; neverPreempt puts it in neverPreemptClass.
func probePod(name, cpu string, selector map[string]string, neverPreempt bool) *corev1.Pod {
	class := ""
	if neverPreempt {
		class = neverPreemptClass
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeSelector:      selector,
			PriorityClassName: class,
			Containers: []corev1.Container{{Name: "c", Image: "probe", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
			}}},
		},
	}
}

func antiAffinity(label, topologyKey string) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{label: "yes"}},
			TopologyKey:   topologyKey,
		}},
	}}
}

func createPod(t *testing.T, kube kubernetes.Interface, pod *corev1.Pod) {
	t.Helper()
	_, err := kube.CoreV1().Pods(pod.Namespace).Create(t.Context(), pod, metav1.CreateOptions{})
	require.NoError(t, err, "creating pod %s", pod.Name)
}

// createNode creates a Ready, untainted Node with the given cores and labels, as a kubelet would.
func createNode(t *testing.T, kube kubernetes.Interface, name, cpu string, labels map[string]string) {
	t.Helper()
	l := map[string]string{corev1.LabelHostname: name}
	for k, v := range labels {
		l[k] = v
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Gi"),
		corev1.ResourcePods: resource.MustParse("110"),
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
	created, err := kube.CoreV1().Nodes().Create(t.Context(), node, metav1.CreateOptions{})
	require.NoError(t, err, "creating node %s", name)
	created.Status = corev1.NodeStatus{Capacity: capacity, Allocatable: capacity, Conditions: []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(),
	}}}
	_, err = kube.CoreV1().Nodes().UpdateStatus(t.Context(), created, metav1.UpdateOptions{})
	require.NoError(t, err, "making node %s Ready", name)
}

func labelNode(t *testing.T, kube kubernetes.Interface, node, key, value string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{key: value}}})
	_, err := kube.CoreV1().Nodes().Patch(t.Context(), node, types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err, "labelling node %s", node)
}

func nominate(t *testing.T, kube kubernetes.Interface, pod, node string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"nominatedNodeName": node}})
	_, err := kube.CoreV1().Pods("default").Patch(t.Context(), pod, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	require.NoError(t, err, "nominating pod %s to %s", pod, node)
}

func waitUnschedulable(t *testing.T, kube kubernetes.Interface, name string) {
	t.Helper()
	waitUntil(t, time.Minute, name+" marked Unschedulable", func(ctx context.Context) error {
		pod, err := kube.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range pod.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Reason == corev1.PodReasonUnschedulable {
				return nil
			}
		}
		return errNotYet
	})
}

func nominatedTo(kube kubernetes.Interface, ns, name, node string) func(context.Context) error {
	return func(ctx context.Context) error {
		pod, err := kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := pod.Status.NominatedNodeName; got != node || pod.Spec.NodeName != "" {
			return fmt.Errorf("pod %s: nominatedNodeName %q (want %q), nodeName %q", name, got, node, pod.Spec.NodeName)
		}
		return nil
	}
}

func unbound(ctx context.Context, kube kubernetes.Interface, name string) error {
	pod, err := kube.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if pod.Spec.NodeName != "" {
		return fmt.Errorf("pod %s bound to %s", name, pod.Spec.NodeName)
	}
	return nil
}

func boundTo(kube kubernetes.Interface, name, node string) func(context.Context) error {
	return func(ctx context.Context) error {
		pod, err := kube.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		switch pod.Spec.NodeName {
		case node:
			return nil
		case "":
			return errNotYet
		}
		return fmt.Errorf("pod %s bound to %s, not %s", name, pod.Spec.NodeName, node)
	}
}
