package controller

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/snapshot"
)

const testProviderID = "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/aks-default-1"

func counterValue(t *testing.T, c *prometheus.CounterVec, labels ...string) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.WithLabelValues(labels...).Write(&m))
	return m.GetCounter().GetValue()
}

// TestRegister: registration adopts the node. It takes the termination finalizer, the claim's
// labels and taints (once), the registered label and the claim as owner, and loses the
// unregistered taint; the claim records the node and turns Registered (not yet Ready).
func TestRegister(t *testing.T) {
	t.Parallel()
	dedicated := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	unregistered := corev1.Taint{Key: api.TaintKeyUnregistered, Effect: corev1.TaintEffectNoExecute}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name       string
		node       func(n *corev1.Node)
		claimTaint []corev1.Taint
		wantTaints []corev1.Taint
	}{
		{name: "fresh node", node: func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{unregistered, notReady} },
			claimTaint: []corev1.Taint{dedicated}, wantTaints: []corev1.Taint{notReady, dedicated}},
		{name: "kubelet already set the claim's taint", claimTaint: []corev1.Taint{dedicated},
			node:       func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{dedicated, unregistered} },
			wantTaints: []corev1.Taint{dedicated}},
		{name: "same key, other effect is another taint",
			claimTaint: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoExecute}},
			node:       func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{dedicated, unregistered} },
			wantTaints: []corev1.Taint{dedicated, {Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoExecute}}},
		{name: "no unregistered taint, no labels, other finalizer", node: func(n *corev1.Node) {
			n.Labels = nil
			n.Finalizers = []string{"example.com/keep"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			node := newNode("aks-default-1", testProviderID)
			tt.node(node)
			nc := testClaim("default-1", "default", testProviderID, launched(),
				withLabel(api.LabelInstanceType, "Standard_D2s_v3"), withLabel("team", "a"))
			nc.Spec.Taints = tt.claimTaint
			e.addNode(t, node)
			e.addClaim(t, nc)

			require.NoError(t, e.c.register(context.Background(), nc, node))
			// Registering again (a retried reconcile) changes nothing more.
			require.NoError(t, e.c.register(context.Background(), nc, e.storedNode(t, node.Name)))

			got := e.storedNode(t, node.Name)
			assert.Contains(t, got.Finalizers, api.TerminationFinalizer)
			assert.Len(t, got.Finalizers, len(node.Finalizers)+1)
			for _, f := range node.Finalizers {
				assert.Contains(t, got.Finalizers, f)
			}
			for k, v := range node.Labels {
				assert.Equal(t, v, got.Labels[k], "node label %s kept", k)
			}
			for k, v := range nc.Labels {
				assert.Equal(t, v, got.Labels[k], "claim label %s copied", k)
			}
			assert.Equal(t, "true", got.Labels[api.LabelNodeRegistered])
			assert.NotContains(t, got.Labels, api.LabelNodeInitialized)
			assert.False(t, hasTaint(got.Spec.Taints, api.TaintKeyUnregistered))
			assert.ElementsMatch(t, tt.wantTaints, got.Spec.Taints)
			assert.Equal(t, []metav1.OwnerReference{{APIVersion: api.KarpenterVersion, Kind: api.KindNodeClaim,
				Name: nc.Name, UID: nc.UID}}, got.OwnerReferences)

			claim := e.storedClaim(t, nc.Name)
			assert.Equal(t, node.Name, claim.Status.NodeName)
			assert.True(t, claimLaunched(claim))
			assert.True(t, claimRegistered(claim))
			assert.False(t, claimInitialized(claim))
			assert.Equal(t, metav1.ConditionFalse, condition(claim, api.ConditionReady).Status)
			assert.Equal(t, 2.0, counterValue(t, e.c.metrics.nodesCreated, "default"), "one per register call")
		})
	}
}

// TestRegisterNodeGone: a node deleted in between fails the registration and leaves the claim
// unregistered.
func TestRegisterNodeGone(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	nc := testClaim("default-1", "default", testProviderID, launched())
	e.addClaim(t, nc)
	err := e.c.register(context.Background(), nc, newNode("aks-default-1", testProviderID))
	require.Error(t, err)
	assert.True(t, apierrors.IsNotFound(err))
	assert.False(t, claimRegistered(e.storedClaim(t, nc.Name)))
}

func TestNotInitialized(t *testing.T) {
	t.Parallel()
	startup := corev1.Taint{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name string
		node *corev1.Node
		want string
	}{
		{"not Ready", newNode("n", ""), "node is not Ready"},
		{"Ready and clean", newNode("n", "", isReady()), ""},
		{"startup taint", newNode("n", "", isReady(), tainted(startup.Key, startup.Effect)),
			"taint example.com/agent-not-ready is still present"},
		{"startup taint key with another effect", newNode("n", "", isReady(),
			tainted(startup.Key, corev1.TaintEffectNoExecute)), ""},
		{"not-ready taint", newNode("n", "", isReady(), tainted(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)),
			"taint node.kubernetes.io/not-ready is still present"},
		{"unreachable taint", newNode("n", "", isReady(), tainted(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)),
			"taint node.kubernetes.io/unreachable is still present"},
		{"network unavailable taint", newNode("n", "", isReady(),
			tainted(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)),
			"taint node.kubernetes.io/network-unavailable is still present"},
		{"cloud provider taint", newNode("n", "", isReady(),
			tainted("node.cloudprovider.kubernetes.io/uninitialized", corev1.TaintEffectNoSchedule)),
			"taint node.cloudprovider.kubernetes.io/uninitialized is still present"},
		{"unregistered taint", newNode("n", "", isReady(), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)),
			"taint karpenter.sh/unregistered is still present"},
		{"the claim's own taints stay and do not count", newNode("n", "", isReady(),
			tainted("dedicated", corev1.TaintEffectNoSchedule), tainted(api.TaintKeyDisrupted, corev1.TaintEffectNoSchedule)), ""},
	}
	nc := testClaim("c", "default", "")
	nc.Spec.StartupTaints = []corev1.Taint{startup}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, snapshot.WaitingFor(tt.node, nc.Spec.StartupTaints))
		})
	}
}

// TestInitialize: a Ready, untainted node gets the initialized label, its claim turns
// Initialized and Ready, and consolidateAfter starts counting; a node still booting is left alone.
func TestInitialize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		node *corev1.Node
		want bool
	}{
		{"ready", newNode("aks-default-1", testProviderID, isReady()), true},
		{"not ready", newNode("aks-default-1", testProviderID), false},
		{"still tainted", newNode("aks-default-1", testProviderID, isReady(),
			tainted(corev1.TaintNodeNotReady, corev1.TaintEffectNoSchedule)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			nc := testClaim("default-1", "default", testProviderID, launched(), registered())
			e.addNode(t, tt.node)
			e.addClaim(t, nc)
			require.NoError(t, e.c.initialize(context.Background(), nc, tt.node))
			node, claim := e.storedNode(t, tt.node.Name), e.storedClaim(t, nc.Name)
			assert.Equal(t, tt.want, node.Labels[api.LabelNodeInitialized] == "true")
			assert.Equal(t, tt.want, claimInitialized(claim))
			assert.Equal(t, tt.want, conditionTrue(claim, api.ConditionReady))
			if tt.want {
				assert.Equal(t, testNow, e.c.state.lastPodEventAt(tt.node.Name))
				assert.Equal(t, testNow, initializedAt(claim).UTC())
			} else {
				assert.True(t, e.c.state.lastPodEventAt(tt.node.Name).IsZero())
			}
		})
	}
}

// TestAwaitRegistration: a launched claim waits RegistrationTimeout for its node, then is deleted.
func TestAwaitRegistration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		launchedAgo time.Duration
		wantAfter   time.Duration
		wantDeleted bool
	}{
		{"just launched", time.Minute, 14 * time.Minute, false},
		{"timed out", 15 * time.Minute, 0, true},
		{"long gone", time.Hour, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			nc := testClaim("default-1", "default", testProviderID,
				withCondition(api.ConditionLaunched, metav1.ConditionTrue, "Launched", testNow.Add(-tt.launchedAgo)))
			e.addClaim(t, nc)
			after, err := e.c.awaitRegistration(context.Background(), nc)
			require.NoError(t, err)
			assert.Equal(t, tt.wantAfter, after)
			_, err = e.dyn.Resource(NodeClaimsGVR).Get(context.Background(), nc.Name, metav1.GetOptions{})
			assert.Equal(t, tt.wantDeleted, apierrors.IsNotFound(err), "deleted? (err %v)", err)
		})
	}
}

// TestRegisterInitializesAReadyNode: a node that is Ready and has no startup or ephemeral taint
// once karpenter.sh/unregistered is gone is registered and initialized by one Node update and one
// NodeClaim status update (the two steps took two of each); a node still booting is only
// registered.
func TestRegisterInitializesAReadyNode(t *testing.T) {
	t.Parallel()
	unregistered := tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)
	tests := []struct {
		name string
		node *corev1.Node
		want bool
	}{
		{"ready", newNode("aks-default-1", testProviderID, isReady(), unregistered), true},
		{"not ready", newNode("aks-default-1", testProviderID, unregistered), false},
		{"ready, not-ready taint", newNode("aks-default-1", testProviderID, isReady(), unregistered,
			tainted(corev1.TaintNodeNotReady, corev1.TaintEffectNoSchedule)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			nc := testClaim("default-1", "default", testProviderID, launched())
			e.addNode(t, tt.node)
			e.addClaim(t, nc)
			e.kube.ClearActions()
			e.dyn.ClearActions()
			require.NoError(t, e.c.register(context.Background(), nc, tt.node))
			node, claim := e.storedNode(t, tt.node.Name), e.storedClaim(t, nc.Name)
			assert.True(t, claimRegistered(claim))
			assert.Equal(t, tt.want, node.Labels[api.LabelNodeInitialized] == "true")
			assert.Equal(t, tt.want, claimInitialized(claim))
			assert.Equal(t, tt.want, !e.c.state.lastPodEventAt(tt.node.Name).IsZero())
			assert.Len(t, writes(e.kube.Actions()), 1, "one Node update")
			assert.Len(t, writes(e.dyn.Actions()), 1, "one NodeClaim status update")
		})
	}
}

// writes are the actions other than reads (get, list, watch).
func writes(actions []k8stesting.Action) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range actions {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
			out = append(out, a)
		}
	}
	return out
}

// TestRegisterAwaitsOwnWrite: a registration returns once the claim cache shows the Registered
// status it wrote (or after Config.OwnWriteWait), so the reconcile that the Node's update queues
// reads a current claim and does not register the node again.
func TestRegisterAwaitsOwnWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		cacheAfter time.Duration // when the cache shows the write; 0: never
		least, max time.Duration
	}{
		{name: "the cache catches up", cacheAfter: 150 * time.Millisecond, least: 150 * time.Millisecond, max: 1500 * time.Millisecond},
		{name: "the cache stays behind", least: 400 * time.Millisecond, max: 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.c.cfg.OwnWriteWait = 400 * time.Millisecond
			node := newNode("aks-default-1", testProviderID, isReady(), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))
			nc := testClaim("default-1", "default", testProviderID, launched())
			e.addNode(t, node)
			e.addClaim(t, nc)
			if tt.cacheAfter > 0 {
				time.AfterFunc(tt.cacheAfter, func() {
					if obj, err := cachedFormOf(e.storedClaim(t, nc.Name)); err == nil {
						_ = e.c.inf.claims.GetIndexer().Update(obj)
					}
				})
			}
			began := time.Now()
			require.NoError(t, e.c.register(context.Background(), nc, node))
			took := time.Since(began)
			assert.GreaterOrEqual(t, took, tt.least)
			assert.Less(t, took, tt.max)
			if tt.cacheAfter == 0 {
				return
			}
			require.NoError(t, e.c.inf.nodes.GetIndexer().Update(e.storedNode(t, node.Name)))
			e.kube.ClearActions()
			_, err := e.c.reconcileClaim(context.Background(), nc.Name)
			require.NoError(t, err)
			assert.Empty(t, podNodeWrites(e), "registered once")
		})
	}
}

// TestRegisterAgainWritesNoNode: a registration repeated on a stale claim cache (its informer
// behind its own write, as under load in the scale suite: a released batch's mates were
// reconciled again) finds the node adopted already and writes no Node (it wrote one each time
// before); the first registration writes one.
func TestRegisterAgainWritesNoNode(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	node := newNode("aks-default-1", testProviderID, isReady(), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))
	nc := testClaim("default-1", "default", testProviderID, launched())
	e.addNode(t, node)
	e.addClaim(t, nc)
	e.kube.ClearActions()
	require.NoError(t, e.c.register(context.Background(), nc, node))
	require.Len(t, writes(e.kube.Actions()), 1, "the first registration updates the Node")

	stored := e.storedNode(t, node.Name)
	require.NoError(t, e.c.inf.nodes.GetIndexer().Update(stored)) // the node's informer caught up, the claim's did not
	e.kube.ClearActions()
	require.NoError(t, e.c.register(context.Background(), nc, stored))
	assert.Empty(t, writes(e.kube.Actions()), "the node is adopted already")
	stored = e.storedNode(t, node.Name)
	assert.Equal(t, "true", stored.Labels[api.LabelNodeRegistered])
	assert.False(t, hasTaint(stored.Spec.Taints, api.TaintKeyUnregistered))
}
