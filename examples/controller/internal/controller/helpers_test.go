package controller

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// TestMain builds one fake clientset before the tests: client-go parses the fake's type schema
// once per process (about 0.2 s, 1 s under -race), which would otherwise be billed to whichever
// test comes first.
func TestMain(m *testing.M) {
	kubefake.NewClientset()
	os.Exit(m.Run())
}

// testNow is the fixed clock of the unit tests.
var testNow = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// testEnv is a Controller built by hand around client-go's fake clientsets. The informers are
// never started: tests put objects straight into their stores (what the controller reads) and,
// where the controller writes, into the fake clients' trackers too.
type testEnv struct {
	c    *Controller
	kube *kubefake.Clientset
	dyn  *dynamicfake.FakeDynamicClient
	// cachedJSON is each claim addClaim put in the cache, as JSON: the claims the cache holds are
	// shared with every reader, and the test's end checks that none of them changed one.
	cachedJSON map[*api.NodeClaim][]byte
}

func newTestEnv(t testing.TB) *testEnv {
	t.Helper()
	kube := kubefake.NewClientset()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), ListKinds())
	cfg := Config{
		Kube: kube, Dynamic: dyn, Clock: func() time.Time { return testNow },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Seed: 7,
		OwnWriteWait: -1, // the tests' caches see a write only when a test puts it there
		// the tests put objects in the caches without the informers' handlers, which would mark
		// the changes: every pass decides in full (consolidated_test.go tests the memo)
		ConsolidatedRecheck: -1,
		Catalogue:           func(*api.AKSNodeClass) (*instancetype.Catalogue, error) { return &instancetype.Catalogue{}, nil },
	}.withDefaults()
	inf, err := newInformers(cfg)
	require.NoError(t, err)
	m, err := newMetrics(cfg.Metrics, inf)
	require.NoError(t, err)
	c := &Controller{
		cfg: cfg, log: cfg.Logger, metrics: m, inf: inf,
		batcher: NewBatcher(cfg.BatchIdle, cfg.BatchMax),
		claimQ:  newQueue("nodeclaims"), nodeQ: newQueue("nodes"),
		state: newState(), planned: newPlannedPods(), reserved: newReservedClaims(), mates: newBatchMates(), nominations: newPodNominations(), catalogues: newCatalogueCache(cfg.Catalogue, cfg.Offerings),
		launchSlots: make(chan struct{}, cfg.MaxConcurrentLaunches),
	}
	e := &testEnv{c: c, kube: kube, dyn: dyn, cachedJSON: map[*api.NodeClaim][]byte{}}
	t.Cleanup(func() {
		c.claimQ.ShutDown()
		c.nodeQ.ShutDown()
		e.assertCachedClaimsUnchanged(t)
	})
	return e
}

// assertCachedClaimsUnchanged fails the test if code changed a claim it read from the cache.
func (e *testEnv) assertCachedClaimsUnchanged(t testing.TB) {
	t.Helper()
	for _, obj := range e.c.inf.claims.GetStore().List() {
		nc, ok := obj.(*api.NodeClaim)
		if !ok || e.cachedJSON[nc] == nil {
			continue
		}
		now, err := json.Marshal(nc)
		require.NoError(t, err)
		assert.JSONEq(t, string(e.cachedJSON[nc]), string(now), "cached NodeClaim %s was changed by a reader", nc.Name)
	}
}

// addPod puts the pod in the informer cache.
func (e *testEnv) addPod(t *testing.T, pods ...*corev1.Pod) {
	t.Helper()
	for _, pod := range pods {
		require.NoError(t, e.c.inf.pods.GetIndexer().Add(pod))
	}
}

// addNode puts the node in the informer cache and in the fake API server.
func (e *testEnv) addNode(t *testing.T, nodes ...*corev1.Node) {
	t.Helper()
	for _, node := range nodes {
		require.NoError(t, e.c.inf.nodes.GetIndexer().Add(node))
		_, err := e.kube.CoreV1().Nodes().Create(context.Background(), node.DeepCopy(), metav1.CreateOptions{})
		require.NoError(t, err)
	}
}

// addClaim puts the NodeClaim in the informer cache and in the fake API server.
func (e *testEnv) addClaim(t *testing.T, claims ...*api.NodeClaim) {
	t.Helper()
	for _, nc := range claims {
		nc = deepCopyClaim(t, nc)
		u, err := ToUnstructured(nc)
		require.NoError(t, err)
		cached := cachedForm(t, nc)
		if typed, ok := cached.(*api.NodeClaim); ok {
			data, err := json.Marshal(typed)
			require.NoError(t, err)
			e.cachedJSON[typed] = data
		}
		require.NoError(t, e.c.inf.claims.GetIndexer().Add(cached))
		_, err = e.dyn.Resource(NodeClaimsGVR).Create(context.Background(), u, metav1.CreateOptions{})
		require.NoError(t, err)
	}
}

// storedClaim reads the NodeClaim back from the fake API server.
func (e *testEnv) storedClaim(t *testing.T, name string) *api.NodeClaim {
	t.Helper()
	u, err := e.dyn.Resource(NodeClaimsGVR).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	nc, err := FromUnstructured[api.NodeClaim](u)
	require.NoError(t, err)
	return nc
}

// storedNode reads the Node back from the fake API server.
func (e *testEnv) storedNode(t *testing.T, name string) *corev1.Node {
	t.Helper()
	node, err := e.kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return node
}

// cachedForm is the claim as the claim informer's transform stores it.
func cachedForm(t testing.TB, nc *api.NodeClaim) any {
	t.Helper()
	obj, err := cachedFormOf(nc)
	require.NoError(t, err)
	return obj
}

func cachedFormOf(nc *api.NodeClaim) (any, error) {
	cp := *nc
	claimTypeMeta(&cp)
	u, err := ToUnstructured(&cp)
	if err != nil {
		return nil, err
	}
	return claimTransform(slog.New(slog.DiscardHandler))(u)
}

func deepCopyClaim(t testing.TB, nc *api.NodeClaim) *api.NodeClaim {
	t.Helper()
	out, err := copyClaim(nc)
	require.NoError(t, err)
	claimTypeMeta(out)
	return out
}

// Object builders. Options are plain funcs so a table row reads as what makes it special.

type podOpt func(*corev1.Pod)

func newPod(name string, opts ...podOpt) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, o := range opts {
		o(pod)
	}
	return pod
}

func boundTo(node string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = node } }
func inNamespace(ns string) podOpt {
	return func(p *corev1.Pod) { p.Namespace = ns }
}
func withPriorityClass(name string) podOpt {
	return func(p *corev1.Pod) { p.Spec.PriorityClassName = name }
}
func withPhase(phase corev1.PodPhase) podOpt { return func(p *corev1.Pod) { p.Status.Phase = phase } }
func deletedAt(at time.Time) podOpt {
	return func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: at} }
}
func withToleration(tol corev1.Toleration) podOpt {
	return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, tol) }
}
func mirror() podOpt {
	return func(p *corev1.Pod) {
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash"}
	}
}
func ownedBy(kind string, controller bool) podOpt {
	return func(p *corev1.Pod) {
		p.OwnerReferences = append(p.OwnerReferences,
			metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: "owner", Controller: &controller})
	}
}
func daemon() podOpt { return ownedBy("DaemonSet", true) }
func unschedulable() podOpt {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable}}
	}
}

type nodeOpt func(*corev1.Node)

func newNode(name, providerID string, opts ...nodeOpt) *corev1.Node {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Spec:       corev1.NodeSpec{ProviderID: providerID},
	}
	for _, o := range opts {
		o(node)
	}
	return node
}

func isReady() nodeOpt {
	return func(n *corev1.Node) {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue})
	}
}
func tainted(key string, effect corev1.TaintEffect) nodeOpt {
	return func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Effect: effect}) }
}
func nodeDeleting() nodeOpt {
	return func(n *corev1.Node) { n.DeletionTimestamp = &metav1.Time{Time: testNow}; n.Finalizers = []string{"x"} }
}

type claimOpt func(*api.NodeClaim)

func testClaim(name, pool, providerID string, opts ...claimOpt) *api.NodeClaim {
	nc := &api.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name),
			Labels: map[string]string{api.LabelNodePool: pool}},
		Status: api.NodeClaimStatus{ProviderID: providerID},
	}
	for _, o := range opts {
		o(nc)
	}
	return nc
}

// withCondition sets a lifecycle condition through setCondition, as the controller does.
func withCondition(kind string, status metav1.ConditionStatus, reason string, at time.Time) claimOpt {
	return func(nc *api.NodeClaim) { setCondition(nc, kind, status, reason, "", at) }
}
func launched() claimOpt {
	return withCondition(api.ConditionLaunched, metav1.ConditionTrue, "Launched", testNow.Add(-3*time.Minute))
}
func registered() claimOpt {
	return withCondition(api.ConditionRegistered, metav1.ConditionTrue, "Registered", testNow.Add(-2*time.Minute))
}
func initialized() claimOpt {
	return withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", testNow.Add(-time.Minute))
}
func claimDeleting() claimOpt {
	return func(nc *api.NodeClaim) {
		nc.DeletionTimestamp = &metav1.Time{Time: testNow}
		nc.Finalizers = []string{api.TerminationFinalizer}
	}
}
func withLabel(k, v string) claimOpt { return func(nc *api.NodeClaim) { nc.Labels[k] = v } }
