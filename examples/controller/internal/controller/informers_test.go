package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/api"
)

// managedBy is a managedFields entry as the API server writes one.
func managedBy(manager string) []metav1.ManagedFieldsEntry {
	return []metav1.ManagedFieldsEntry{{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:nodeName":{}}}`)}}}
}

// TestStripManagedFields: the transform drops managedFields from typed and unstructured objects,
// keeps everything else, and passes objects without metadata through.
func TestStripManagedFields(t *testing.T) {
	pod := newPod("p", boundTo("n"))
	pod.ManagedFields = managedBy("kube-scheduler")
	claim := claimWithManagedFields(t)
	tombstone := cache.DeletedFinalStateUnknown{Key: "default/p", Obj: pod.DeepCopy()}
	for _, tc := range []struct {
		name  string
		in    any
		check func(t *testing.T, out any)
	}{
		{"pod", pod.DeepCopy(), func(t *testing.T, out any) {
			got := out.(*corev1.Pod)
			assert.Nil(t, got.ManagedFields)
			want := pod.DeepCopy()
			want.ManagedFields = nil
			assert.Equal(t, want, got, "nothing else changes")
		}},
		{"unstructured NodeClaim", claim.DeepCopy(), func(t *testing.T, out any) {
			got := out.(*unstructured.Unstructured)
			assert.Nil(t, got.GetManagedFields())
			assert.Equal(t, "azure:///c", got.Object["status"].(map[string]any)["providerID"])
		}},
		{"no managed fields", newNode("n", ""), func(t *testing.T, out any) {
			assert.Equal(t, newNode("n", ""), out)
		}},
		{"tombstone", tombstone, func(t *testing.T, out any) { assert.Equal(t, tombstone, out) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := stripManagedFields(tc.in)
			require.NoError(t, err)
			tc.check(t, out)
		})
	}
}

// TestInformersStripManagedFields: the controller's informers hold objects without managedFields
// (the API server's copy keeps them).
func TestInformersStripManagedFields(t *testing.T) {
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pod := newPod("p", boundTo("n"))
	pod.ManagedFields = managedBy("kube-scheduler")
	_, err := e.kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	claim := claimWithManagedFields(t)
	_, err = e.dyn.Resource(NodeClaimsGVR).Create(ctx, claim, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, e.c.inf.start(ctx))
	require.Eventually(t, func() bool {
		return len(e.c.inf.pods.GetStore().List()) == 1 && len(e.c.inf.claims.GetStore().List()) == 1
	},
		5*time.Second, 10*time.Millisecond)
	cached := e.c.inf.pods.GetStore().List()[0].(*corev1.Pod)
	assert.Nil(t, cached.ManagedFields)
	assert.Equal(t, "n", cached.Spec.NodeName)
	cachedClaim, ok := e.c.inf.claims.GetStore().List()[0].(*api.NodeClaim)
	require.True(t, ok, "the claim cache holds decoded claims")
	assert.Nil(t, cachedClaim.ManagedFields)
	assert.Equal(t, api.KindNodeClaim, cachedClaim.Kind)
	stored, err := e.kube.CoreV1().Pods(pod.Namespace).Get(ctx, "p", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotNil(t, stored.ManagedFields, "the server's copy keeps them")
}

// claimWithManagedFields is NodeClaim c as the API server serves it: unstructured, with its
// managedFields.
func claimWithManagedFields(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	nc := testClaim("c", "default", "azure:///c")
	nc.APIVersion, nc.Kind = api.KarpenterVersion, api.KindNodeClaim
	u, err := ToUnstructured(nc)
	require.NoError(t, err)
	u.SetManagedFields(managedBy("napkit"))
	return u
}
