package instancetype

import (
	"cmp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/kubeletconfig"
)

const mib = 1 << 20

func quantity(s string) resource.Quantity { return resource.MustParse(s) }

// assertQuantity compares exactly (Cmp), so 1900m and 1.9 are equal but 1900m and 1901m are not.
func assertQuantity(t *testing.T, want string, got resource.Quantity, msg string) {
	t.Helper()
	q := quantity(want)
	assert.Zero(t, q.Cmp(got), "%s: want %s, got %s", msg, want, got.String())
}

// TestWorkedCheckD2sv3 is the brief's worked check: Standard_D2s_v3 (2 vCPU, 8 GiB), overlay ⇒
// maxPods 250, default (MaxPods) reservation policy.
func TestWorkedCheckD2sv3(t *testing.T) {
	cat := build(t, fixture(t, "southcentralus"), defaultOptions(t, "southcentralus"))
	it := mustFind(t, cat, "Standard_D2s_v3")

	assert.Equal(t, int64(7_945_689_497), it.Capacity.Memory().Value())
	assertQuantity(t, "2", *it.Capacity.Cpu(), "capacity cpu")
	assertQuantity(t, "250", *it.Capacity.Pods(), "capacity pods")
	assertQuantity(t, "128G", *it.Capacity.StorageEphemeral(), "capacity ephemeral-storage")
	assertQuantity(t, "100m", it.Overhead.KubeReserved[corev1.ResourceCPU], "kube-reserved cpu")
	assertQuantity(t, "2048Mi", it.Overhead.KubeReserved[corev1.ResourceMemory], "kube-reserved memory")
	assertQuantity(t, "100Mi", it.Overhead.EvictionThreshold[corev1.ResourceMemory], "eviction")
	assertQuantity(t, "0", it.Overhead.SystemReserved[corev1.ResourceMemory], "system-reserved memory")

	alloc := it.Allocatable()
	assertQuantity(t, "1900m", alloc[corev1.ResourceCPU], "allocatable cpu")
	assert.Equal(t, int64(5_693_348_249), alloc.Memory().Value())
	assertQuantity(t, "250", alloc[corev1.ResourcePods], "allocatable pods")
	assertQuantity(t, "128G", alloc[corev1.ResourceEphemeralStorage], "allocatable ephemeral-storage")
}

// section28Row is one row of the provider facts' worked-examples table (section 2.8).
type section28Row struct {
	name, vcpus, memoryGB string
	capacityMemory        int64
	kubeCPU               string
	// The table's own figures: AKS tax brackets with a 750Mi eviction threshold.
	bracketsMemory   string
	bracketsAllocMem int64
	// The same row recomputed with the seed policy: kube-reserved min(20×250+50, MiB/4), eviction 100Mi.
	seedMemory   string
	seedAllocMem int64
	allocCPU     string
}

var section28 = []section28Row{
	{"Standard_D2s_v3", "2", "8", 7_945_689_497, "100m", "1843Mi", 5_226_731_929, "2048Mi", 5_693_348_249, "1900m"},
	{"Standard_D4s_v5", "4", "16", 15_891_378_995, "140m", "2662Mi", 12_313_637_683, "4096Mi", 11_491_554_099, "3860m"},
	{"Standard_D16s_v5", "16", "64", 63_565_515_980, "260m", "5611Mi", 56_895_524_044, "5050Mi", 58_165_349_580, "15740m"},
	{"Standard_E8s_v5", "8", "64", 63_565_515_980, "180m", "5611Mi", 56_895_524_044, "5050Mi", 58_165_349_580, "7820m"},
	{"Standard_F4s_v2", "4", "8", 7_945_689_497, "140m", "1843Mi", 5_226_731_929, "2048Mi", 5_693_348_249, "3860m"},
	{"Standard_NC6s_v3", "6", "112", 111_239_652_966, "160m", "8560Mi", 101_477_410_406, "5050Mi", 105_839_486_566, "5840m"},
	{"Standard_B2s", "2", "4", 3_972_844_748, "100m", "1024Mi", 2_112_670_924, "1024Mi", 2_794_245_324, "1900m"},
	{"Standard_D2_v2", "2", "7", 6_952_478_310, "100m", "1638Mi", 4_448_478_822, "1792Mi", 4_968_572_518, "1900m"},
	{"Standard_D4s_v3", "4", "16", 15_891_378_995, "140m", "2662Mi", 12_313_637_683, "4096Mi", 11_491_554_099, "3860m"},
	{"Standard_D64s_v3", "64", "256", 254_262_063_923, "740m", "12165Mi", 240_719_704_883, "5050Mi", 248_861_897_523, "63260m"},
	{"Standard_F16s_v2", "16", "32", 31_782_757_990, "260m", "3645Mi", 27_174_266_470, "5050Mi", 26_382_591_590, "15740m"},
	{"Standard_NC24ads_A100_v4", "24", "220", 218_506_461_184, "340m", "11427Mi", 205_737_951_232, "5050Mi", 213_106_294_784, "23660m"},
	{"Standard_D16plds_v5", "16", "32", 31_782_757_990, "260m", "3645Mi", 27_174_266_470, "5050Mi", 26_382_591_590, "15740m"},
	{"Standard_B20ms", "20", "80", 79_456_894_976, "300m", "6594Mi", 71_756_152_832, "5050Mi", 74_056_728_576, "19700m"},
}

// section28SKUs returns the fixture record of each row where southcentralus has one, and a synthetic
// record with the published vCPU/GiB otherwise ("public" rows), so every row is built from one input.
func section28SKUs(t *testing.T) []*armSKU {
	byName := map[string]*armSKU{}
	for _, raw := range fixture(t, "southcentralus") {
		byName[deref(raw.Name)] = raw
	}
	var skus []*armSKU
	for _, row := range section28 {
		raw, ok := byName[row.name]
		if !ok {
			raw = syntheticSKU(row.name, row.vcpus, row.memoryGB)
			raw.Locations[0], raw.LocationInfo[0].Location = ptr("southcentralus"), ptr("southcentralus")
		}
		skus = append(skus, raw)
	}
	return skus
}

func TestSection28(t *testing.T) {
	for _, policy := range []kubeletconfig.Policy{"", kubeletconfig.PolicyMaxPods, kubeletconfig.PolicyAKSBrackets} {
		opts := defaultOptions(t, "southcentralus")
		opts.ReservationPolicy = policy
		cat := build(t, section28SKUs(t), opts)
		for _, row := range section28 {
			t.Run(cmp.Or(string(policy), "default")+"/"+row.name, func(t *testing.T) {
				it := mustFind(t, cat, row.name)
				mem, alloc, evict := row.seedMemory, row.seedAllocMem, "100Mi"
				if policy == kubeletconfig.PolicyAKSBrackets {
					mem, alloc, evict = row.bracketsMemory, row.bracketsAllocMem, "750Mi"
				}
				assert.Equal(t, row.capacityMemory, it.Capacity.Memory().Value(), "capacity memory")
				assertQuantity(t, row.vcpus, *it.Capacity.Cpu(), "capacity cpu")
				assertQuantity(t, row.kubeCPU, it.Overhead.KubeReserved[corev1.ResourceCPU], "kube-reserved cpu")
				assertQuantity(t, mem, it.Overhead.KubeReserved[corev1.ResourceMemory], "kube-reserved memory")
				assertQuantity(t, evict, it.Overhead.EvictionThreshold[corev1.ResourceMemory], "eviction")
				assertQuantity(t, row.allocCPU, it.Allocatable()[corev1.ResourceCPU], "allocatable cpu")
				allocatable := it.Allocatable()
				assert.Equal(t, alloc, allocatable.Memory().Value(), "allocatable memory")
			})
		}
	}
}

// TestCapacityWithoutOverhead is the D2_v2 and NC24ads_A100_v4 half of reference case 5: with no
// hypervisor overhead, capacity memory is exactly the advertised GiB. (Options cannot ask for zero
// overhead, since 0 selects the default, so the capacity function is called directly.)
func TestCapacityWithoutOverhead(t *testing.T) {
	tests := []struct {
		name      string
		memory    int64
		gpuName   corev1.ResourceName
		gpus      int64
		ephemeral int64
	}{
		{"Standard_D2_v2", 7 * bytesPerGiB, "", 0, 128},
		{"Standard_NC24ads_A100_v4", 220 * bytesPerGiB, ResourceNVIDIAGPU, 1, 128},
	}
	for _, tc := range tests {
		sku := fixtureSKU(t, "southcentralus", tc.name)
		size, err := ParseSize(sku.Size)
		require.NoError(t, err)
		c := &candidate{sku: sku, size: size}
		if g, ok := LookupGPU(sku.Name); ok {
			c.gpu = &g
		}
		capacity := computeCapacity(c, capacityInput{overheadFraction: 0, osDiskSizeGB: 128, maxPods: 30})
		assert.Equal(t, tc.memory, capacity.Memory().Value(), tc.name)
		assert.Equal(t, int64(30), capacity.Pods().Value(), tc.name)
		assert.Equal(t, tc.ephemeral*bytesPerGB, capacity.StorageEphemeral().Value(), tc.name)
		gpu, ok := capacity[ResourceNVIDIAGPU]
		assert.Equal(t, tc.gpus > 0, ok, tc.name)
		assert.Equal(t, tc.gpus, gpu.Value(), tc.name)
		_, amd := capacity[ResourceAMDGPU]
		assert.False(t, amd)
	}
}

func TestMemoryCapacityFractionalGiB(t *testing.T) {
	// 3.5 GiB keeps its half GiB (Karpenter floors MemoryGB first); overhead is rounded up to a byte.
	assert.Equal(t, int64(3758096384), nominalMemoryBytes(3.5))
	assert.Equal(t, int64(3758096384-281857229), memoryCapacityBytes(3.5, 0.075))
	assert.Equal(t, int64(218.75*bytesPerGiB), memoryCapacityBytes(218.75, 0))
}

// TestMaxPodsToPods is reference case 4: the pod limit becomes the pods capacity.
func TestMaxPodsToPods(t *testing.T) {
	tests := []struct {
		name    string
		network api.ClusterNetwork
		maxPods *int32
		want    int64
	}{
		{"azure node subnet", api.ClusterNetwork{Plugin: api.NetworkPluginAzure}, nil, 30},
		{"azure overlay", api.DefaultClusterNetwork(), nil, 250},
		{"none", api.ClusterNetwork{Plugin: api.NetworkPluginNone}, nil, 250},
		{"kubenet", api.ClusterNetwork{Plugin: api.NetworkPluginKubenet}, nil, 110},
		{"node class 150", api.DefaultClusterNetwork(), ptr(int32(150)), 150},
		{"node class 100", api.DefaultClusterNetwork(), ptr(int32(100)), 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := defaultOptions(t, "southcentralus")
			opts.Network = tc.network
			opts.NodeClass = &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{MaxPods: tc.maxPods}}
			it := mustFind(t, build(t, fixture(t, "southcentralus"), opts), "Standard_D2s_v3")
			assert.Equal(t, tc.want, it.Capacity.Pods().Value())
			allocatable := it.Allocatable()
			assert.Equal(t, tc.want, allocatable.Pods().Value())
		})
	}
}

func TestOSDiskSizeSetsEphemeralStorage(t *testing.T) {
	opts := defaultOptions(t, "southcentralus")
	opts.NodeClass = &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{OSDiskSizeGB: ptr(int32(256))}}
	cat := build(t, fixture(t, "southcentralus"), opts)
	it := mustFind(t, cat, "Standard_D64s_v3")
	assert.Equal(t, int64(256_000_000_000), it.Capacity.StorageEphemeral().Value())
	assert.Equal(t, eph(PlacementCacheDisk, 256, 1717), it.EphemeralOSDisk)
	assert.False(t, mustFind(t, cat, "Standard_D2s_v3").EphemeralOSDisk.Ephemeral())
}

func TestAllocatableByHand(t *testing.T) {
	it := &InstanceType{
		Capacity: corev1.ResourceList{corev1.ResourceCPU: quantity("2"), corev1.ResourceMemory: quantity("1Gi"),
			ResourceNVIDIAGPU: quantity("1")},
		Overhead: Overhead{
			KubeReserved:      corev1.ResourceList{corev1.ResourceCPU: quantity("100m"), corev1.ResourceMemory: quantity("2Gi")},
			EvictionThreshold: corev1.ResourceList{corev1.ResourceMemory: quantity("100Mi")},
		},
	}
	alloc := it.Allocatable()
	assertQuantity(t, "1900m", alloc[corev1.ResourceCPU], "cpu")
	assertQuantity(t, "0", alloc[corev1.ResourceMemory], "memory is clamped at zero")
	assertQuantity(t, "1", alloc[ResourceNVIDIAGPU], "gpu")
	total := it.Overhead.Total()
	assertQuantity(t, "2148Mi", total[corev1.ResourceMemory], "total memory")
	assertQuantity(t, "100m", total[corev1.ResourceCPU], "total cpu")
	oneMiB := quantity("1Mi")
	assert.Equal(t, int64(mib), oneMiB.Value())
}
