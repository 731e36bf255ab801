package kubeletconfig

import (
	"slices"
	"testing"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Reference §8 case 12 (upstream aksbootstrap_test.go flag map). Upstream hands the bootstrapper a
// kubelet config directly, so the test does too: the reservation, maxPods 0 and the placeholder
// sysctl names are caller-provided, not computed. (That config is not valid — see the second half.)
func TestFlagsReferenceCase12(t *testing.T) {
	c := &Config{
		CPUManagerPolicy:            "static",
		CPUCFSQuota:                 ptr(true),
		ImageGCHighThresholdPercent: ptr[int32](42),
		ImageGCLowThresholdPercent:  ptr[int32](24),
		TopologyManagerPolicy:       "best-effort",
		AllowedUnsafeSysctls:        []string{"Allowed", "Unsafe", "Sysctls"},
		ContainerLogMaxSize:         "42Mi",
		ContainerLogMaxFiles:        ptr[int32](13),
		PodPidsLimit:                ptr[int64](99),
		MaxPods:                     0,
		SystemReserved:              corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")},
		KubeReserved:                corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("400m")},
		EvictionHard:                map[string]string{SignalMemoryAvailable: "100Mi"},
		EvictionSoft:                map[string]string{SignalMemoryAvailable: "99Mi"},
		EvictionSoftGracePeriod:     map[string]time.Duration{SignalMemoryAvailable: 90 * time.Second},
		EvictionMaxPodGracePeriod:   ptr[int32](11),
		ClusterDNS:                  []string{"10.20.0.10"},
	}
	want := []string{
		"--allowed-unsafe-sysctls=Allowed,Unsafe,Sysctls",
		"--max-pods=0",
		"--cpu-cfs-quota=true",
		"--image-gc-high-threshold=42",
		"--image-gc-low-threshold=24",
		"--cpu-manager-policy=static",
		"--topology-manager-policy=best-effort",
		"--container-log-max-files=13",
		"--container-log-max-size=42Mi",
		"--pod-max-pids=99",
		"--system-reserved=cpu=200m",
		"--kube-reserved=cpu=400m",
		"--eviction-hard=memory.available<100Mi",
		"--eviction-soft=memory.available<99Mi",
		"--eviction-soft-grace-period=memory.available=1m30s",
		"--eviction-max-pod-grace-period=11",
		"--cluster-dns=10.20.0.10",
	}
	got := c.Flags()
	assert.ElementsMatch(t, want, got)
	assert.True(t, slices.IsSorted(got))

	err := c.Validate()
	requireFieldError(t, err, "maxPods", "0")
	requireFieldError(t, err, "spec.kubelet.allowedUnsafeSysctls[0]", "Allowed")
}

// Reference §8 case 14 (upstream "Nodepool with KubeletConfig"): overlay cluster, 2 vCPU / 8 GiB.
// Under AKSBrackets the flags match upstream exactly; under the default policy only the memory
// reservation and eviction threshold change.
func TestFlagsReferenceCase14(t *testing.T) {
	tests := []struct {
		policy       Policy
		kubeReserved string
		evictionHard string
	}{
		{PolicyAKSBrackets, "--kube-reserved=cpu=100m,memory=1843Mi", "--eviction-hard=memory.available<750Mi"},
		{PolicyMaxPods, "--kube-reserved=cpu=100m,memory=2048Mi", "--eviction-hard=memory.available<100Mi"},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy), func(t *testing.T) {
			nodeClass := nodeClassWithKubelet(case14Kubelet())
			maxPods := MaxPods(nodeClass, api.ClusterNetwork{Plugin: "azure", PluginMode: "overlay"})
			r := mustReserve(t, ReservationInput{VCPUs: 2, MemoryMiB: 8192, MaxPods: maxPods, Policy: tt.policy})
			c, err := Build(BuildInput{NodeClass: nodeClass, Reservation: r, MaxPods: maxPods})
			require.NoError(t, err)
			flags := c.Flags()
			for _, want := range []string{
				tt.evictionHard, tt.kubeReserved,
				"--image-gc-high-threshold=30", "--image-gc-low-threshold=20", "--max-pods=250",
				"--system-reserved=cpu=0,memory=0", "--cpu-manager-policy=static", "--cpu-cfs-quota=true",
				"--topology-manager-policy=best-effort", "--container-log-max-size=42Mi",
				"--container-log-max-files=13", "--pod-max-pids=99", "--cpu-cfs-quota-period=100ms",
			} {
				assert.Contains(t, flags, want)
			}
		})
	}
}

// The flags a node gets carry exactly the reservation the catalogue subtracted.
func TestFlagsRoundTripReservation(t *testing.T) {
	for _, in := range []ReservationInput{
		d2sv3,
		{VCPUs: 6, MemoryMiB: 112 * 1024, MaxPods: 30, Policy: PolicyAKSBrackets},
		{VCPUs: 2, MemoryMiB: 3.5 * 1024, MaxPods: 250},
		{VCPUs: 1, MemoryMiB: 1537.7, MaxPods: 110},
	} {
		r := mustReserve(t, in)
		c, err := Build(BuildInput{Reservation: r, MaxPods: in.MaxPods})
		require.NoError(t, err)
		parsed, err := ParseFlags(c.Flags())
		require.NoError(t, err)
		back, err := ReservationFromFlags(parsed)
		require.NoError(t, err)
		for _, pair := range [][2]corev1.ResourceList{{r.KubeReserved, back.KubeReserved}, {r.SystemReserved, back.SystemReserved},
			{r.EvictionThreshold, back.EvictionThreshold}, {r.Total(), back.Total()}} {
			requireSameResources(t, pair[0], pair[1])
		}
	}
}

func TestFormatQuantity(t *testing.T) {
	tests := []struct {
		name corev1.ResourceName
		in   string
		want string
	}{
		{corev1.ResourceMemory, "2Gi", "2048Mi"},
		{corev1.ResourceMemory, "0", "0"},
		{corev1.ResourceMemory, "1536Ki", "1536Ki"},
		{corev1.ResourceMemory, "1G", "1000000000"},
		{corev1.ResourceMemory, "1000Ki", "1000Ki"},
		{corev1.ResourceEphemeralStorage, "1Gi", "1024Mi"},
		{corev1.ResourceCPU, "100m", "100m"},
		{corev1.ResourceCPU, "2", "2"},
		{corev1.ResourceCPU, "2000m", "2"},
		{corev1.ResourceCPU, "0", "0"},
		{"pid", "1000", "1000"},
		{"pid", "1.5", "1500m"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, formatQuantity(tt.name, resource.MustParse(tt.in)), "%s %s", tt.name, tt.in)
	}
}

func TestParseFlags(t *testing.T) {
	got, err := ParseFlags([]string{"--max-pods=250", "--kube-reserved=cpu=100m,memory=2048Mi", "--cluster-dns=", "--a=b=c"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"max-pods": "250", "kube-reserved": "cpu=100m,memory=2048Mi", "cluster-dns": "", "a": "b=c"}, got)

	for _, bad := range [][]string{{"max-pods=250"}, {"--max-pods"}, {"--=1"}, {"-max-pods=1"}, {"--x=1", "--x=2"}} {
		_, err := ParseFlags(bad)
		assert.ErrorIs(t, err, ErrInvalid, "%q", bad)
	}
}

func TestParseMapFlag(t *testing.T) {
	got, err := ParseMapFlag("memory.available<100Mi,nodefs.available<10%")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"}, got)

	got, err = ParseMapFlag("memory.available=1m30s")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"memory.available": "1m30s"}, got)

	got, err = ParseMapFlag("")
	require.NoError(t, err)
	assert.Empty(t, got)

	for _, bad := range []string{"cpu", "=1", "cpu=1,", "cpu=1,cpu=2"} {
		_, err := ParseMapFlag(bad)
		assert.ErrorIs(t, err, ErrInvalid, "%q", bad)
	}
}

func TestReservationFromFlagsErrors(t *testing.T) {
	for _, flags := range []map[string]string{
		{"kube-reserved": "cpu=lots", "eviction-hard": "memory.available<100Mi"},
		{"kube-reserved": "cpu", "eviction-hard": "memory.available<100Mi"},
		{"system-reserved": "memory", "eviction-hard": "memory.available<100Mi"},
		{"kube-reserved": "cpu=1", "eviction-hard": "nodefs.available<10%"},
		{"kube-reserved": "cpu=1", "eviction-hard": "memory.available"},
	} {
		_, err := ReservationFromFlags(flags)
		assert.ErrorIs(t, err, ErrInvalid, "%v", flags)
	}
}

// The same Config must render byte-identical output every time, whatever Go's map order.
func TestOutputIsDeterministic(t *testing.T) {
	c := validConfig(t)
	c.EvictionHard["nodefs.available"] = "10%"
	c.EvictionHard["imagefs.available"] = "15%"
	flags := c.Flags()
	doc, err := c.YAML()
	require.NoError(t, err)
	for range 50 {
		assert.Equal(t, flags, c.Clone().Flags())
		again, err := c.Clone().YAML()
		require.NoError(t, err)
		assert.Equal(t, string(doc), string(again))
	}
	assert.Contains(t, flags, "--eviction-hard=imagefs.available<15%,memory.available<100Mi,nodefs.available<10%")
}

// requireSameResources compares two resource lists by value, not by Quantity's internal form.
func requireSameResources(t testing.TB, want, got corev1.ResourceList) {
	t.Helper()
	require.Len(t, got, len(want))
	for name, q := range want {
		g, ok := got[name]
		require.True(t, ok, "missing %s", name)
		require.Zero(t, q.Cmp(g), "%s: want %s, got %s", name, q.String(), g.String())
	}
}
