package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/napkit/napkit/api"
)

// TestNominationBudget: at most Config.NominateMaxUnbound pods are nominated and unbound at once,
// counting the cache's unbound pods with a nomination (whoever wrote it) and the patches sent
// within renominateAfter; constrained pods go first; the pods left out stay held and a later
// provisioning pass nominates them once kube-scheduler has bound others.
func TestNominationBudget(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.c.cfg.NominatePods = NominateAll
	e.c.cfg.NominateMaxUnbound = 3
	now := testNow
	e.c.cfg.Clock = func() time.Time { return now }
	anti := hostnameAntiAffinity
	node := newNode("aks-default-1", testProviderID, isReady(), allocatable("4", "16Gi"),
		tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))
	nc := testClaim("default-1", "default", testProviderID, launched())
	e.addNode(t, node)
	e.addClaim(t, nc)
	elsewhere := newPod("elsewhere", pending(), nominatedTo("aks-other")) // kube-scheduler weighs it too
	stale := newPod("stale", boundTo("aks-other"), nominatedTo("aks-other"))
	e.storePod(t, newPod("a", pending()), newPod("b", pending()), newPod("z", pending(), anti), elsewhere, stale)
	e.c.planned.record("default-1", []string{"default/a", "default/b", "default/z"}, testNow)
	e.kube.ClearActions()

	// 3 - 1 (elsewhere; the bound one does not count) = 2: the anti-affine z first, then a by name.
	require.NoError(t, e.c.register(context.Background(), nc, node))
	got := podNodeWrites(e)
	require.Len(t, got, 3, "%v", got)
	assert.ElementsMatch(t, []string{"patch pods/status z", "patch pods/status a"}, got[:2], "b, last in order, waits")
	assert.Equal(t, "update nodes aks-default-1", got[2])
	registered := e.storedNode(t, node.Name)
	require.NoError(t, e.c.inf.nodes.GetIndexer().Update(registered))

	// The cache does not show the two patches yet: they still count, so b waits.
	e.kube.ClearActions()
	e.c.renominate(context.Background())
	assert.Empty(t, podNodeWrites(e))

	// kube-scheduler bound elsewhere; the cache now shows z and a nominated: one left, for b.
	now = now.Add(renominateAfter)
	e.addPod(t, newPod("elsewhere", boundTo("aks-other")), newPod("z", pending(), anti, nominatedTo(node.Name)),
		newPod("a", pending(), nominatedTo(node.Name)))
	e.kube.ClearActions()
	e.c.renominate(context.Background())
	assert.Equal(t, []string{"patch pods/status b"}, podNodeWrites(e))
	assert.Equal(t, node.Name, storedNomination(t, e, "b"))
}

// TestNominationsWaitForFewPending: while more pods than Config.NominateMaxPending are pending,
// a registration nominates none (the node still registers) and the pods stay held; once
// kube-scheduler has bound enough of the burst, the provisioning pass nominates them.
func TestNominationsWaitForFewPending(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	assert.Equal(t, DefaultNominateMaxPending, e.c.cfg.NominateMaxPending, "the default")
	e.c.cfg.NominatePods = NominateAll
	e.c.cfg.NominateMaxPending = 3
	now := testNow
	e.c.cfg.Clock = func() time.Time { return now }
	node := newNode("aks-default-1", testProviderID, isReady(), allocatable("4", "16Gi"),
		tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))
	nc := testClaim("default-1", "default", testProviderID, launched())
	e.addNode(t, node)
	e.addClaim(t, nc)
	// Four pending: a and b planned here, x and y elsewhere; a bound pod is not pending.
	e.storePod(t, newPod("a", pending()), newPod("b", pending()), newPod("x", pending()), newPod("y", pending()),
		newPod("bound", boundTo("aks-other")))
	e.c.planned.record("default-1", []string{"default/a", "default/b"}, testNow)
	e.kube.ClearActions()

	require.NoError(t, e.c.register(context.Background(), nc, node))
	assert.Equal(t, []string{"update nodes aks-default-1"}, podNodeWrites(e), "4 pending > 3: no nomination")
	registered := e.storedNode(t, node.Name)
	require.NoError(t, e.c.inf.nodes.GetIndexer().Update(registered))
	_, held := e.c.planned.targetOf("default/a")
	assert.True(t, held, "a stays held on its claim")

	// x bound elsewhere: 3 pending, within the bound; the pass nominates a and b.
	now = now.Add(time.Second)
	e.addPod(t, newPod("x", boundTo("aks-other")))
	e.kube.ClearActions()
	e.c.renominate(context.Background())
	assert.ElementsMatch(t, []string{"patch pods/status a", "patch pods/status b"}, podNodeWrites(e))
}

// TestNominationBudgetUnbounded: negative NominateMaxUnbound and NominateMaxPending nominate every
// planned pod, and the default is DefaultNominateMaxUnbound.
func TestNominationBudgetUnbounded(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	assert.Equal(t, DefaultNominateMaxUnbound, e.c.cfg.NominateMaxUnbound, "the default")
	e.c.cfg.NominatePods = NominateAll
	e.c.cfg.NominateMaxUnbound, e.c.cfg.NominateMaxPending = -1, -1
	node := newNode("aks-default-1", testProviderID, isReady(), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))
	nc := testClaim("default-1", "default", testProviderID, launched())
	e.addNode(t, node)
	e.addClaim(t, nc)
	var keys []string
	for _, name := range []string{"a", "b", "c", "d"} {
		e.storePod(t, newPod(name, pending()))
		keys = append(keys, "default/"+name)
	}
	e.storePod(t, newPod("x", pending(), nominatedTo("aks-other")))
	e.c.planned.record("default-1", keys, testNow)
	e.kube.ClearActions()
	require.NoError(t, e.c.register(context.Background(), nc, node))
	assert.Len(t, podNodeWrites(e), 5, "four nominations and the node update")
}

// TestBoundMeanwhile: kube-scheduler binding a pod between the cache read and the patch is no
// failure (the 10,000-pod run logged it as one); other invalid patches are.
func TestBoundMeanwhile(t *testing.T) {
	t.Parallel()
	forbidden := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "p", field.ErrorList{
		field.Forbidden(field.NewPath("status", "nominatedNodeName"), "may not be set on pods that are already bound to a node")})
	other := apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "p", field.ErrorList{
		field.Invalid(field.NewPath("status", "nominatedNodeName"), "Bad_Name", "a lowercase RFC 1123 subdomain")})
	assert.True(t, boundMeanwhile(forbidden))
	assert.True(t, boundMeanwhile(fmt.Errorf("patch: %w", forbidden)))
	assert.False(t, boundMeanwhile(other))
	assert.False(t, boundMeanwhile(apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("x"))))
	assert.False(t, boundMeanwhile(nil))
}
