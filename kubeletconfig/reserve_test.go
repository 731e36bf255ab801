package kubeletconfig

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Reference §2.6: CPU brackets, shared by both policies.
func TestReserveCPU(t *testing.T) {
	tests := []struct {
		vcpus int64
		want  string
	}{
		{1, "60m"}, {2, "100m"}, {3, "120m"}, {4, "140m"}, {5, "150m"}, {6, "160m"}, {8, "180m"},
		{16, "260m"}, {20, "300m"}, {24, "340m"}, {64, "740m"}, {416, "4260m"},
	}
	for _, tt := range tests {
		for _, policy := range []Policy{"", PolicyMaxPods, PolicyAKSBrackets} {
			r := mustReserve(t, ReservationInput{VCPUs: tt.vcpus, MemoryMiB: 8192, MaxPods: 110, Policy: policy})
			assert.Equal(t, tt.want, formatMilli(*r.KubeReserved.Cpu()), "vcpus=%d policy=%q", tt.vcpus, policy)
			assert.True(t, r.KubeReserved.Cpu().Equal(resource.MustParse(tt.want)))
		}
	}
}

// Reference §2.6 and §8 case 1: the AKS bracket policy, with its 750Mi eviction threshold.
func TestReserveMemoryBrackets(t *testing.T) {
	tests := []struct {
		gib     float64
		wantMiB int64
	}{
		{4, 1024}, {7, 1638}, {8, 1843}, {16, 2662}, {32, 3645}, {64, 5611}, {80, 6594}, {112, 8560},
		{220, 11427}, {256, 12165},
		{3.5, 896}, {1.5, 384}, {0.75, 192}, {128, 9543}, {512, 17408},
	}
	for _, tt := range tests {
		// maxPods must not matter under this policy.
		for _, maxPods := range []int32{30, 110, 250} {
			r := mustReserve(t, ReservationInput{VCPUs: 4, MemoryMiB: tt.gib * 1024, MaxPods: maxPods, Policy: PolicyAKSBrackets})
			assert.Equal(t, tt.wantMiB, memMiB(t, r.KubeReserved), "%v GiB", tt.gib)
			assert.Equal(t, int64(750), memMiB(t, r.EvictionThreshold))
		}
	}
}

// The seed policy: min(20 × maxPods + 50, memory/4), rounded down, with a 100Mi eviction threshold.
func TestReserveMemoryMaxPods(t *testing.T) {
	tests := []struct {
		name      string
		memoryMiB float64
		maxPods   int32
		wantMiB   int64
	}{
		{"D2s_v3 overlay: memory/4 wins", 8192, 250, 2048},
		{"16 GiB overlay: memory/4 wins", 16384, 250, 4096},
		{"64 GiB overlay: maxPods term wins", 65536, 250, 5050},
		{"256 GiB overlay: maxPods term wins", 262144, 250, 5050},
		{"512 GiB node subnet: maxPods term wins", 524288, 30, 650},
		{"8 GiB node subnet: maxPods term wins", 8192, 30, 650},
		{"8 GiB kubenet: memory/4 wins", 8192, 110, 2048},
		{"16 GiB kubenet: maxPods term wins", 16384, 110, 2250},
		{"exact tie at 20200 MiB", 20200, 250, 5050},
		{"3.5 GiB SKU", 3.5 * 1024, 250, 896},
		{"1.5 GiB SKU", 1.5 * 1024, 250, 384},
		{"fractional MiB rounds down", 1537, 250, 384},
		{"fractional quarter rounds down", 1538.9, 250, 384},
		{"just below a whole quarter", 1539.99, 250, 384},
		{"0.5 GiB", 512, 10, 128},
		{"tiny SKU rounds down to 0", 3, 10, 0},
		{"maxPods 1", 1 << 20, 1, 70},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, policy := range []Policy{"", PolicyMaxPods} {
				r := mustReserve(t, ReservationInput{VCPUs: 2, MemoryMiB: tt.memoryMiB, MaxPods: tt.maxPods, Policy: policy})
				assert.Equal(t, tt.wantMiB, memMiB(t, r.KubeReserved))
				assert.Equal(t, int64(100), memMiB(t, r.EvictionThreshold))
			}
		})
	}
}

// Reference §2.8 (Standard_D2s_v3) under the seed policy: the reservation must reproduce the
// catalogue's allocatable to the byte.
func TestReserveD2sV3WorkedCheck(t *testing.T) {
	r := mustReserve(t, d2sv3)
	assert.Equal(t, "100m", formatQuantity(corev1.ResourceCPU, *r.KubeReserved.Cpu()))
	assert.Equal(t, "2048Mi", formatQuantity(corev1.ResourceMemory, *r.KubeReserved.Memory()))
	assert.Equal(t, "100Mi", formatQuantity(corev1.ResourceMemory, *r.EvictionThreshold.Memory()))
	assert.True(t, r.SystemReserved.Cpu().IsZero())
	assert.True(t, r.SystemReserved.Memory().IsZero())

	allocatable := *resource.NewQuantity(d2sv3CapacityBytes, resource.BinarySI)
	allocatable.Sub(*r.KubeReserved.Memory())
	allocatable.Sub(*r.SystemReserved.Memory())
	allocatable.Sub(*r.EvictionThreshold.Memory())
	assert.Equal(t, int64(5_693_348_249), allocatable.Value())

	total := r.Total()
	viaTotal := *resource.NewQuantity(d2sv3CapacityBytes, resource.BinarySI)
	viaTotal.Sub(*total.Memory())
	assert.Equal(t, int64(5_693_348_249), viaTotal.Value())

	cpu := *resource.NewQuantity(2, resource.DecimalSI)
	cpu.Sub(*total.Cpu())
	assert.Equal(t, int64(1900), cpu.MilliValue())
}

// Under the bracket policy D2s_v3 matches upstream's allocatable (reference §2.8: 5,226,731,929 bytes).
func TestReserveD2sV3Brackets(t *testing.T) {
	in := d2sv3
	in.Policy = PolicyAKSBrackets
	total := mustReserve(t, in).Total()
	allocatable := *resource.NewQuantity(d2sv3CapacityBytes, resource.BinarySI)
	allocatable.Sub(*total.Memory())
	assert.Equal(t, int64(5_226_731_929), allocatable.Value())
}

func TestReservationTotal(t *testing.T) {
	r := mustReserve(t, ReservationInput{VCPUs: 16, MemoryMiB: 65536, MaxPods: 250})
	before := r.KubeReserved.Memory().DeepCopy()
	total := r.Total()
	assert.Equal(t, int64(260), total.Cpu().MilliValue())
	assert.Equal(t, (5050+100)*mib, total.Memory().Value())
	assert.True(t, before.Equal(*r.KubeReserved.Memory()), "Total must not modify the reservation")
	assert.Empty(t, Reservation{}.Total())
}

func TestReserveErrors(t *testing.T) {
	tests := []struct {
		name  string
		in    ReservationInput
		field string
		value string
	}{
		{"zero vcpus", ReservationInput{VCPUs: 0, MemoryMiB: 8192, MaxPods: 250}, "VCPUs", "0"},
		{"negative vcpus", ReservationInput{VCPUs: -4, MemoryMiB: 8192, MaxPods: 250}, "VCPUs", "-4"},
		{"absurd vcpus", ReservationInput{VCPUs: math.MaxInt64, MemoryMiB: 8192, MaxPods: 250}, "VCPUs", "9223372036854775807"},
		{"zero memory", ReservationInput{VCPUs: 2, MemoryMiB: 0, MaxPods: 250}, "MemoryMiB", "0"},
		{"negative memory", ReservationInput{VCPUs: 2, MemoryMiB: -1.5, MaxPods: 250}, "MemoryMiB", "-1.5"},
		{"NaN memory", ReservationInput{VCPUs: 2, MemoryMiB: math.NaN(), MaxPods: 250}, "MemoryMiB", "NaN"},
		{"infinite memory", ReservationInput{VCPUs: 2, MemoryMiB: math.Inf(1), MaxPods: 250}, "MemoryMiB", "+Inf"},
		{"zero maxPods", ReservationInput{VCPUs: 2, MemoryMiB: 8192, MaxPods: 0}, "MaxPods", "0"},
		{"unknown policy", ReservationInput{VCPUs: 2, MemoryMiB: 8192, MaxPods: 250, Policy: "Legacy"}, "Policy", "Legacy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Reserve(tt.in)
			require.Error(t, err)
			requireFieldError(t, err, tt.field, tt.value)
		})
	}
}
