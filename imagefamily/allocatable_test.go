package imagefamily_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/kubeletconfig"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// catalogue builds the embedded eastus catalogue for the test node class.
func catalogue(t testing.TB, nc *api.AKSNodeClass) *instancetype.Catalogue {
	t.Helper()
	list, err := instancetype.LoadDefault("eastus")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := list.Build(instancetype.Options{Region: "eastus", NodeClass: nc, Network: api.DefaultClusterNetwork()})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestAllocatableMatchesKubeletFlags proves, for every SKU of the eastus catalogue, that what the
// scheduler plans with (the catalogue's allocatable) is exactly what the node's kubelet will leave for
// pods: capacity minus the kube-reserved, system-reserved and hard-eviction values read back out of
// the KUBELET_FLAGS of the generated customData.
func TestAllocatableMatchesKubeletFlags(t *testing.T) {
	nc := nodeClass(api.AKSNodeClassSpec{ImageFamily: ptr(api.ImageFamilyUbuntu)})
	cat := catalogue(t, nc)
	if len(cat.InstanceTypes) < 500 {
		t.Fatalf("catalogue has only %d instance types", len(cat.InstanceTypes))
	}
	t.Logf("checking %d instance types", len(cat.InstanceTypes))
	for _, it := range cat.InstanceTypes {
		in := baseInput(imagefamily.ShapeOf(it))
		in.NodeClass = nc
		out, err := imagefamily.Generate(in)
		if err != nil {
			t.Errorf("%s: %v", it.Name, err)
			continue
		}
		checkReserveAgrees(t, in, out)
		s, err := parseScript(string(out.Payload.Reveal()))
		if err != nil {
			t.Fatalf("%s: %v", it.Name, err)
		}
		flags, err := kubeletconfig.ParseFlags(strings.Fields(s.vars["KUBELET_FLAGS"]))
		if err != nil {
			t.Fatalf("%s: %v", it.Name, err)
		}
		res, err := kubeletconfig.ReservationFromFlags(flags)
		if err != nil {
			t.Fatalf("%s: %v", it.Name, err)
		}
		allocatable := it.Allocatable()
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			got := it.Capacity[name].DeepCopy()
			got.Sub(sum(res.KubeReserved[name], res.SystemReserved[name], res.EvictionThreshold[name]))
			if want := allocatable[name]; got.Cmp(want) != 0 {
				t.Errorf("%s %s: capacity - flags = %s, catalogue allocatable = %s", it.Name, name, got.String(), want.String())
			}
		}
		if flags["max-pods"] != it.Capacity.Pods().String() {
			t.Errorf("%s: --max-pods=%s, capacity pods %s", it.Name, flags["max-pods"], it.Capacity.Pods())
		}
	}
}

// checkReserveAgrees renders the same node without the catalogue's reservation, so Generate asks
// kubeletconfig.Reserve itself, and expects the same flags: both paths share one source of truth.
func checkReserveAgrees(t *testing.T, in imagefamily.Input, want *imagefamily.Output) {
	t.Helper()
	in.Shape.Reservation = nil
	got, err := imagefamily.Generate(in)
	if err != nil {
		t.Fatalf("%s without reservation: %v", in.Shape.SKUName, err)
	}
	if !slices.Equal(got.KubeletFlags, want.KubeletFlags) {
		t.Errorf("%s: flags differ when Generate computes the reservation itself", in.Shape.SKUName)
	}
}

func sum(qs ...resource.Quantity) resource.Quantity {
	var total resource.Quantity
	for _, q := range qs {
		total.Add(q)
	}
	return total
}

// Shapes from the catalogue pick the image their generations and architecture allow.
func TestShapeOfCatalogue(t *testing.T) {
	cat := catalogue(t, nil)
	tests := []struct{ sku, definition string }{
		{"Standard_D2s_v3", "2204gen2containerd"},
		{"Standard_D16plds_v5", "2204gen2arm64containerd"},
		{"Standard_NC24ads_A100_v4", "2204gen2containerd"},
	}
	for _, tt := range tests {
		it, ok := cat.Find(tt.sku)
		if !ok {
			t.Fatalf("%s not in catalogue", tt.sku)
		}
		shape := imagefamily.ShapeOf(it)
		out, err := imagefamily.Generate(baseInput(shape))
		if err != nil {
			t.Fatal(err)
		}
		if out.Image.Definition.Name != tt.definition {
			t.Errorf("%s: definition %s, want %s", tt.sku, out.Image.Definition.Name, tt.definition)
		}
		if strings.HasPrefix(tt.sku, "Standard_NC") && (shape.GPU == nil || shape.GPU.Manufacturer != "nvidia" || !shape.GPU.ManagedDriver) {
			t.Errorf("%s: GPU = %+v", tt.sku, shape.GPU)
		}
	}
}
