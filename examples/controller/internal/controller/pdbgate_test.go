package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// addPDB puts a PDB guarding app=<app> in the informer cache and in the fake API server, with
// status.disruptionsAllowed allowed as of observedGeneration observed (generation 2).
func (e *testEnv) addPDB(t *testing.T, app string, allowed int32, observed int64) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: app, Generation: 2},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status:     policyv1.PodDisruptionBudgetStatus{ObservedGeneration: observed, DisruptionsAllowed: allowed},
	}
	require.NoError(t, e.c.inf.pdbs.GetIndexer().Add(pdb))
	_, err := e.kube.PolicyV1().PodDisruptionBudgets("default").Create(context.Background(), pdb.DeepCopy(), metav1.CreateOptions{})
	require.NoError(t, err)
}

// pdbEvictions answers evictions as the eviction API does for PDBs: refused (429) while a PDB of
// the pod allows none or its status is behind its spec, else allowed, decrementing each PDB's
// status.disruptionsAllowed in the fake API server. It records the evictions it allows.
func pdbEvictions(t *testing.T, e *testEnv) *[]string {
	var evicted []string
	e.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ca := a.(k8stesting.CreateAction)
		if ca.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := ca.GetObject().(*policyv1.Eviction)
		obj, ok, err := e.c.inf.pods.GetIndexer().GetByKey(ev.Namespace + "/" + ev.Name)
		require.NoError(t, err)
		require.True(t, ok, "evicting unknown pod %s", ev.Name)
		pod := obj.(*corev1.Pod)
		list, err := e.kube.Tracker().List(policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"),
			policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), ev.Namespace)
		require.NoError(t, err)
		var covering []*policyv1.PodDisruptionBudget
		for _, pdb := range list.(*policyv1.PodDisruptionBudgetList).Items {
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err == nil && sel.Matches(labels.Set(pod.Labels)) {
				covering = append(covering, pdb.DeepCopy())
			}
		}
		for _, pdb := range covering {
			if pdb.Status.ObservedGeneration < pdb.Generation || pdb.Status.DisruptionsAllowed <= 0 {
				return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
			}
		}
		for _, pdb := range covering {
			pdb.Status.DisruptionsAllowed--
			require.NoError(t, e.kube.Tracker().Update(policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"), pdb, pdb.Namespace))
		}
		evicted = append(evicted, ev.Namespace+"/"+ev.Name)
		return true, nil, nil
	})
	return &evicted
}

func labelled(k, v string) podOpt {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = v
	}
}

// TestDrainFollowsPlanOrder: the pods a command moves are evicted in the order of its moves, the
// node's other pods after them by name.
func TestDrainFollowsPlanOrder(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addPod(t, newPod("a", boundTo("n1")), newPod("b", boundTo("n1")), newPod("c", boundTo("n1")),
		newPod("z", boundTo("n1")), newPod("other", boundTo("n2")))
	cmd := consolidation.Command{Nodes: []string{"n1", "n2"}, Moves: []consolidation.Move{
		{Pod: "default/z", To: "x"}, {Pod: "default/other", To: "x"}, {Pod: "default/b", To: "x"}}}
	e.c.state.setDrainOrder(e.c.drainOrders(cmd))
	evicted := evictions(e, nil)
	_, err := e.c.drain(context.Background(), newNode("n1", ""))
	require.NoError(t, err)
	assert.Equal(t, []string{"default/z", "default/b", "default/a", "default/c"}, *evicted)
}

// TestDrainReplacementPodsFirst: the pods a command moves onto its replacement are evicted before
// the ones it moves onto existing nodes, each group in the command's order, so kube-scheduler sees
// the replacement's pods first while the replacement is empty.
func TestDrainReplacementPodsFirst(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addPod(t, newPod("a", boundTo("n1")), newPod("b", boundTo("n1")), newPod("c", boundTo("n1")), newPod("d", boundTo("n1")))
	cmd := consolidation.Command{Nodes: []string{"n1"}, Replacement: &provisioner.NodeClaim{Name: "new-0"},
		Moves: []consolidation.Move{{Pod: "default/a", To: "n2"}, {Pod: "default/b", To: "new-0"},
			{Pod: "default/c", To: "n3"}, {Pod: "default/d", To: "new-0"}}}
	e.c.state.setDrainOrder(e.c.drainOrders(cmd))
	evicted := evictions(e, nil)
	_, err := e.c.drain(context.Background(), newNode("n1", ""))
	require.NoError(t, err)
	assert.Equal(t, []string{"default/b", "default/d", "default/a", "default/c"}, *evicted)
}

// TestDrainWaitsForPDB: the drain reads each PDB before evicting and evicts no more than it
// allows, so the eviction API (emulated by pdbEvictions) never refuses; a status the disruption
// controller has not caught up with allows nothing.
func TestDrainWaitsForPDB(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		allowed  int32
		observed int64
		want     []string
	}{
		{"allows 1: one eviction, then wait", 1, 2, []string{"default/free", "default/web-0"}},
		{"allows 2", 2, 2, []string{"default/free", "default/web-0", "default/web-1"}},
		{"allows 0: wait", 0, 2, []string{"default/free"}},
		{"stale status: wait", 3, 1, []string{"default/free"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addPDB(t, "web", tt.allowed, tt.observed)
			e.addPod(t, newPod("web-0", boundTo("n1"), labelled("app", "web")), newPod("web-1", boundTo("n1"), labelled("app", "web")),
				newPod("web-2", boundTo("n1"), labelled("app", "web")), newPod("free", boundTo("n1")))
			evicted := pdbEvictions(t, e)
			done, err := e.c.drain(context.Background(), newNode("n1", ""))
			require.NoError(t, err, "no eviction is refused")
			assert.False(t, done)
			assert.Equal(t, tt.want, *evicted)
		})
	}
}

// TestRefusedEviction: a 429 the PDB's status did not predict sets EvictionBlocked on the
// NodeClaim with an EvictionRefused event, and holds every command whose nodes run pods under
// that PDB; the next eviction that goes through clears both.
func TestRefusedEviction(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	node := newNode("n1", "azure:///vm/n1")
	e.addNode(t, node, newNode("n2", "azure:///vm/n2"))
	e.addClaim(t, testClaim("nc1", "pool", "azure:///vm/n1", launched(), registered(), initialized(), claimDeleting()))
	e.addPDB(t, "web", 1, 2)
	e.addPod(t, newPod("web-0", boundTo("n1"), labelled("app", "web")), newPod("web-1", boundTo("n2"), labelled("app", "web")),
		newPod("lone", boundTo("n3")))
	refuse := true
	evictions(e, func(string) error {
		if refuse {
			return apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
		}
		return nil
	})
	touching := consolidation.Command{Nodes: []string{"n2"}}
	elsewhere := consolidation.Command{Nodes: []string{"n3"}}

	_, err := e.c.drain(context.Background(), node)
	require.ErrorIs(t, err, errEvictionBlocked)
	nc := e.storedClaim(t, "nc1")
	cond := condition(nc, conditionEvictionBlocked)
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionTrue, cond.Status)
	assert.Equal(t, reasonEvictionRefused, cond.Reason)
	assert.Contains(t, cond.Message, "default/web-0")
	assert.Contains(t, cond.Message, "PodDisruptionBudget default/web")
	events, err := e.kube.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	reasons := mapSlice(events.Items, func(ev corev1.Event) string { return ev.Reason + " " + ev.InvolvedObject.Name })
	assert.Contains(t, reasons, "EvictionRefused nc1")
	assert.Equal(t, "default/web", e.c.heldBy(touching))
	assert.Empty(t, e.c.heldBy(elsewhere))

	// A second refusal records nothing new.
	_, err = e.c.drain(context.Background(), node)
	require.ErrorIs(t, err, errEvictionBlocked)
	events, err = e.kube.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, events.Items, len(reasons))

	refuse = false
	_, err = e.c.drain(context.Background(), node)
	require.NoError(t, err)
	cond = condition(e.storedClaim(t, "nc1"), conditionEvictionBlocked)
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionFalse, cond.Status)
	assert.Empty(t, e.c.heldBy(touching))
}

// TestConcurrentDrainsShareAllowance: two nodes draining at once under a PDB that allows one
// eviction spend it once between them; neither is refused.
func TestConcurrentDrainsShareAllowance(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addPDB(t, "web", 1, 2)
	e.addPod(t, newPod("web-0", boundTo("n1"), labelled("app", "web")), newPod("web-1", boundTo("n2"), labelled("app", "web")))
	evicted := pdbEvictions(t, e)
	errs := make(chan error, 2)
	for _, name := range []string{"n1", "n2"} {
		go func() {
			_, err := e.c.drain(context.Background(), newNode(name, ""))
			errs <- err
		}()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	assert.Len(t, *evicted, 1)
}

// TestEvictionWithoutPDBSkipsLock: a pod no PDB covers is evicted while another drain holds the
// PDB lock (evictMu), and a covered pod waits for it.
func TestEvictionWithoutPDBSkipsLock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		covered bool
	}{{"no PDB: evicted at once", false}, {"covered: waits for the lock", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addPDB(t, "web", 1, 2)
			app := "free"
			if tt.covered {
				app = "web"
			}
			pod := newPod("p", boundTo("n1"), labelled("app", app))
			e.addPod(t, pod)
			evicted := pdbEvictions(t, e)
			e.c.evictMu.Lock()
			done := make(chan error, 1)
			go func() {
				_, err := e.c.newEvictionGate().evictIfAllowed(context.Background(), pod)
				done <- err
			}()
			select {
			case err := <-done:
				require.NoError(t, err)
				assert.False(t, tt.covered, "a covered pod was evicted while the lock was held")
			case <-time.After(200 * time.Millisecond):
				assert.True(t, tt.covered, "an uncovered pod waited for the lock")
			}
			e.c.evictMu.Unlock()
			if tt.covered {
				require.NoError(t, <-done)
			}
			assert.Equal(t, []string{"default/p"}, *evicted)
		})
	}
}
