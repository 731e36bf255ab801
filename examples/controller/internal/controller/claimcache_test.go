package controller

import (
	"bytes"
	"fmt"
	"log/slog"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/napkit/napkit/api"
)

// wideClaim is a cached claim as the provisioner writes them for a general pool: its
// instance-type requirement lists many sizes (up to 600, Karpenter's launch cap).
func wideClaim(name string, sizes int) *api.NodeClaim {
	nc := benchClaimNamed(name)
	values := make([]string, sizes)
	for i := range values {
		values[i] = fmt.Sprintf("Standard_D%ds_v%d", 2+i%96, 3+i/96)
	}
	nc.Spec.Requirements = append(nc.Spec.Requirements,
		api.NodeSelectorRequirementWithMinValues{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: values})
	return nc
}

// TestClaimTransform: the claim cache holds decoded claims without managedFields; an
// undecodable claim stays as it came (logged); a decoded one passes again unchanged.
func TestClaimTransform(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	transform := claimTransform(slog.New(slog.NewTextHandler(&logs, nil)))
	nc := wideClaim("default-1", 3)
	u, err := ToUnstructured(nc)
	require.NoError(t, err)
	u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate}})
	undecodable := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{"name": "default-2"}, "spec": "not an object"}}

	got, err := transform(u)
	require.NoError(t, err)
	decoded, ok := got.(*api.NodeClaim)
	require.True(t, ok, "a NodeClaim is cached decoded, got %T", got)
	assert.Nil(t, decoded.ManagedFields)
	assert.Equal(t, nc.Spec, decoded.Spec)
	assert.Equal(t, nc.Status.ProviderID, decoded.Status.ProviderID)
	assert.Equal(t, nc.Labels, decoded.Labels)

	again, err := transform(decoded)
	require.NoError(t, err)
	assert.Same(t, decoded, again, "client-go may transform an object twice")

	kept, err := transform(undecodable)
	require.NoError(t, err)
	assert.Same(t, undecodable, kept)
	assert.Contains(t, logs.String(), "default-2")
	assert.Equal(t, "default-2", cachedClaimName(kept))
}

// TestClaimTransformInterns: two cached claims share the storage of the instance-type names and
// label values they both carry.
func TestClaimTransformInterns(t *testing.T) {
	t.Parallel()
	transform := claimTransform(slog.New(slog.DiscardHandler))
	var cached [2]*api.NodeClaim
	for i := range cached {
		u, err := ToUnstructured(wideClaim(fmt.Sprintf("default-%d", i), 50))
		require.NoError(t, err)
		obj, err := transform(u)
		require.NoError(t, err)
		cached[i] = obj.(*api.NodeClaim)
	}
	a, b := cached[0].Spec.Requirements, cached[1].Spec.Requirements
	last := len(a) - 1
	require.Equal(t, a[last].Values, b[last].Values)
	for j := range a[last].Values {
		assert.Same(t, unsafe.StringData(a[last].Values[j]), unsafe.StringData(b[last].Values[j]), a[last].Values[j])
	}
	assert.Same(t, unsafe.StringData(cached[0].Labels[api.LabelNodePool]), unsafe.StringData(cached[1].Labels[api.LabelNodePool]))
}

// TestClaimReadsShareAndCopy: claims and claimFor hand out the cached claim itself, claim a copy
// that a writer may change without touching the cache.
func TestClaimReadsShareAndCopy(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addClaim(t, wideClaim("default-1", 3))
	obj, ok, _ := e.c.inf.claims.GetStore().GetByKey("default-1")
	require.True(t, ok)
	require.Len(t, e.c.claims(), 1)
	assert.Same(t, obj, e.c.claims()[0])
	assert.Same(t, obj, e.c.claimFor(testProviderID))

	cp := e.c.claim("default-1")
	require.NotNil(t, cp)
	assert.NotSame(t, obj, cp)
	cp.Labels["changed"] = "by a writer"
	cp.Spec.Requirements[0].Values[0] = "changed"
	assert.NotContains(t, obj.(*api.NodeClaim).Labels, "changed")
	assert.NotEqual(t, "changed", obj.(*api.NodeClaim).Spec.Requirements[0].Values[0])
	// (the test env's end checks that nothing else changed it either)
}

// BenchmarkClaimCache: what 1,000 cached claims of 300 sizes each hold (retained bytes per
// claim after a GC), as the informer cached them before (unstructured, managedFields dropped)
// and now (decoded, interned), and what reading all of them costs: a decode each (what claims()
// did) against handing out the cached claims.
func BenchmarkClaimCache(b *testing.B) {
	const claims, sizes = 1000, 300
	forms := []struct {
		name  string
		cache func(any) (any, error)
	}{
		{"unstructured", stripManagedFields},
		{"decoded", claimTransform(slog.New(slog.DiscardHandler))},
	}
	for _, f := range forms {
		b.Run("retained/"+f.name, func(b *testing.B) {
			for b.Loop() {
				held := make([]any, 0, claims)
				before := heapInUse()
				for i := range claims {
					u, err := ToUnstructured(wideClaim(fmt.Sprintf("default-%d", i), sizes))
					require.NoError(b, err)
					obj, err := f.cache(u)
					require.NoError(b, err)
					held = append(held, obj)
				}
				b.ReportMetric(float64(heapInUse()-before)/claims, "B/claim")
				runtime.KeepAlive(held)
			}
		})
	}
	cached := make([]any, 0, claims)
	for i := range claims {
		u, err := ToUnstructured(wideClaim(fmt.Sprintf("default-%d", i), sizes))
		require.NoError(b, err)
		cached = append(cached, u)
	}
	b.Run("read/decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, obj := range cached {
				if _, err := FromUnstructured[api.NodeClaim](obj); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	transform := claimTransform(slog.New(slog.DiscardHandler))
	for i, obj := range cached {
		cached[i], _ = transform(obj)
	}
	b.Run("read/shared", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if got := typed[api.NodeClaim](cached); len(got) != claims {
				b.Fatal(len(got))
			}
		}
	})
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
