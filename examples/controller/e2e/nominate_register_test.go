//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/napkit/napkit/api"
)

// TestSchedulerNominationAtRegistration checks the order the controller nominates in
// (Config.NominatePods): a pending pod's status.nominatedNodeName is written while its planned node
// still carries karpenter.sh/unregistered, and the taint is removed right after. TestSchedulerNomination
// shows that kube-scheduler v1.37.2 clears a nomination at the pod's next failed attempt; here the
// next attempt is the one the taint removal triggers, and it succeeds: kube-scheduler (a) keeps the
// nominated pods' room on the node from pods that were ahead of them in its queue and (b) tries
// the nominated node first, against the emptier node its LeastAllocated scoring prefers.
// NAPKIT_E2E_SCHEDULER_LOG=FILE keeps kube-scheduler's log (run with KUBE_LOCAL_SCHEDULER_ARGS=-v=5
// to see the nominations handled).
func TestSchedulerNominationAtRegistration(t *testing.T) {
	c := startCluster(t, "apiserver,scheduler")
	if keep := os.Getenv("NAPKIT_E2E_SCHEDULER_LOG"); keep != "" {
		t.Cleanup(func() { copyFile(t, filepath.Join(c.stateDir, "kube-scheduler.log"), keep) })
	}
	kube := c.kube
	zone := map[string]string{"probe/zone": "z1"}
	createTaintedNode(t, kube, "reg-small", "4", zone)
	createTaintedNode(t, kube, "reg-big", "32", zone)

	// q1..q3 come first in kube-scheduler's queue; p1..p4 are what a plan put on reg-small.
	for _, name := range []string{"q1", "q2", "q3", "p1", "p2", "p3", "p4"} {
		createPod(t, kube, probePod(name, "1", zone, false))
		waitUnschedulable(t, kube, name)
	}
	waitSchedulerQueuesIdle(t, c)
	for _, name := range []string{"p1", "p2", "p3", "p4"} {
		nominate(t, kube, name, "reg-small")
	}
	untaint(t, kube, "reg-small")
	for _, name := range []string{"p1", "p2", "p3", "p4"} {
		waitUntil(t, 30*time.Second, name+" bound to its nominated reg-small", boundTo(kube, name, "reg-small"))
	}
	for _, name := range []string{"q1", "q2", "q3"} {
		require.NoError(t, unbound(t.Context(), kube, name), "%s took room nominated to others", name)
	}

	// Tried first: r1..r3 are kept off zone z1 by a blocker pod (required anti-affinity over the zone);
	// r1 and r2 are nominated to reg-small2, then the blocker goes. r1 and r2 bind to reg-small2
	// although reg-big (29 of 32 cores free) scores higher; r3, not nominated, goes to reg-big.
	untaint(t, kube, "reg-big")
	for _, name := range []string{"q1", "q2", "q3"} {
		waitUntil(t, 30*time.Second, name+" bound to reg-big", boundTo(kube, name, "reg-big"))
	}
	createNode(t, kube, "reg-small2", "4", zone)
	blocker := probePod("blocker", "0", nil, false)
	blocker.Labels = map[string]string{"probe/blocker": "yes"}
	blocker.Spec.NodeName = "reg-small2"
	createPod(t, kube, blocker)
	for _, name := range []string{"r1", "r2", "r3"} {
		r := probePod(name, "1", zone, false)
		r.Spec.Affinity = antiAffinity("probe/blocker", "probe/zone")
		createPod(t, kube, r)
		waitUnschedulable(t, kube, name)
	}
	waitSchedulerQueuesIdle(t, c)
	nominate(t, kube, "r1", "reg-small2")
	nominate(t, kube, "r2", "reg-small2")
	zero := int64(0)
	require.NoError(t, kube.CoreV1().Pods("default").Delete(t.Context(), "blocker", metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	for _, name := range []string{"r1", "r2"} {
		waitUntil(t, 30*time.Second, name+" bound to its nominated reg-small2", boundTo(kube, name, "reg-small2"))
	}
	waitUntil(t, 30*time.Second, "r3 (not nominated) bound to reg-big", boundTo(kube, "r3", "reg-big"))
}

// createTaintedNode creates a Ready node that carries karpenter.sh/unregistered, as a node the
// controller has not registered yet.
func createTaintedNode(t *testing.T, kube kubernetes.Interface, name, cpu string, labels map[string]string) {
	t.Helper()
	createNode(t, kube, name, cpu, labels)
	n, err := kube.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: api.TaintKeyUnregistered, Effect: corev1.TaintEffectNoExecute})
	_, err = kube.CoreV1().Nodes().Update(t.Context(), n, metav1.UpdateOptions{})
	require.NoError(t, err, "tainting node %s", name)
}

// untaint removes karpenter.sh/unregistered from the node, as the controller's registration does.
func untaint(t *testing.T, kube kubernetes.Interface, name string) {
	t.Helper()
	n, err := kube.CoreV1().Nodes().Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	n.Spec.Taints = nil
	_, err = kube.CoreV1().Nodes().Update(t.Context(), n, metav1.UpdateOptions{})
	require.NoError(t, err, "untainting node %s", name)
}

// copyFile keeps a server's log past the test's state dir.
func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Logf("keeping %s: %v", from, err)
	}
}
