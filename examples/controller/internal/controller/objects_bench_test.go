package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/napkit/napkit/api"
)

// benchClaimNamed is a NodeClaim as the controller keeps one once its node is up: requirements,
// resources, labels, annotations, a finalizer, capacity and three conditions.
func benchClaimNamed(name string) *api.NodeClaim {
	nc := testClaim(name, "default", testProviderID, launched(), registered(), initialized())
	nc.TypeMeta = metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"}
	for _, k := range []string{"karpenter.sh/capacity-type", "kubernetes.io/arch", "node.kubernetes.io/instance-type", "topology.kubernetes.io/zone", "kubernetes.io/os", "karpenter.azure.com/sku-family"} {
		nc.Labels[k] = "value-" + k
		nc.Spec.Requirements = append(nc.Spec.Requirements, api.NodeSelectorRequirementWithMinValues{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b", "c"}})
	}
	nc.Annotations = map[string]string{"karpenter.sh/nodepool-hash": "123", "karpenter.azure.com/aksnodeclass-hash": "456"}
	nc.Finalizers = []string{api.TerminationFinalizer}
	nc.Spec.NodeClassRef = &api.NodeClassReference{Group: "karpenter.azure.com", Kind: "AKSNodeClass", Name: "default"}
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3860m"), corev1.ResourceMemory: resource.MustParse("12Gi"), corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceEphemeralStorage: resource.MustParse("100Gi")}
	nc.Spec.Resources.Requests = rl
	nc.Status.Capacity, nc.Status.Allocatable = rl, rl
	nc.Status.NodeName = "aks-" + name
	return nc
}

// BenchmarkDecodeClaim: one cached NodeClaim decoded, as every read of the claim cache does: the
// controller's JSON round trip, and apimachinery's reflection converter (not used; measured for
// the note in docs/benchmarks.md, issue 18, twelfth session).
func BenchmarkDecodeClaim(b *testing.B) {
	u, err := ToUnstructured(benchClaimNamed("default-1"))
	if err != nil {
		b.Fatal(err)
	}
	decoders := []struct {
		name   string
		decode func() error
	}{
		{"json", func() error { _, err := FromUnstructured[api.NodeClaim](u); return err }},
		{"converter", func() error {
			return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, new(api.NodeClaim))
		}},
	}
	for _, d := range decoders {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := d.decode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
