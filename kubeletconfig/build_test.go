package kubeletconfig

import (
	"testing"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestBuildWithoutKubeletBlock(t *testing.T) {
	for _, nodeClass := range []*api.AKSNodeClass{nil, {}} {
		c, err := Build(BuildInput{NodeClass: nodeClass, Reservation: mustReserve(t, d2sv3), MaxPods: 250})
		require.NoError(t, err)
		assert.Equal(t, []string{
			"--cluster-dns=10.0.0.10",
			"--cluster-domain=cluster.local",
			"--eviction-hard=memory.available<100Mi",
			"--kube-reserved=cpu=100m,memory=2048Mi",
			"--max-pods=250",
			"--system-reserved=cpu=0,memory=0",
		}, c.Flags(), "no kubelet block means no CRD defaults")
	}
}

func TestBuildAppliesCRDDefaultsWhenBlockExists(t *testing.T) {
	c, err := Build(BuildInput{
		NodeClass:   nodeClassWithKubelet(&api.KubeletConfiguration{}),
		Reservation: mustReserve(t, d2sv3), MaxPods: 250,
	})
	require.NoError(t, err)
	assert.Equal(t, "none", c.CPUManagerPolicy)
	assert.Equal(t, ptr(true), c.CPUCFSQuota)
	assert.Equal(t, ptr(100*time.Millisecond), c.CPUCFSQuotaPeriod)
	assert.Equal(t, "none", c.TopologyManagerPolicy)
	assert.Equal(t, "50Mi", c.ContainerLogMaxSize)
	assert.Equal(t, ptr[int32](5), c.ContainerLogMaxFiles)
	assert.Nil(t, c.ImageGCHighThresholdPercent, "image GC has no CRD default")
	assert.Nil(t, c.PodPidsLimit)
}

func TestBuildKeepsExplicitSettings(t *testing.T) {
	k := fullKubelet()
	c, err := Build(BuildInput{NodeClass: nodeClassWithKubelet(k), Reservation: mustReserve(t, d2sv3),
		MaxPods: 250, ClusterDNS: "10.20.0.10", ClusterDomain: "example.internal"})
	require.NoError(t, err)
	assert.Equal(t, "static", c.CPUManagerPolicy)
	assert.Equal(t, ptr(50*time.Millisecond), c.CPUCFSQuotaPeriod)
	assert.Equal(t, []string{"10.20.0.10"}, c.ClusterDNS)
	assert.Equal(t, "example.internal", c.ClusterDomain)
	assert.Equal(t, []string{"net.core.somaxconn", "kernel.shm*"}, c.AllowedUnsafeSysctls)
	assert.Equal(t, ptr(false), c.FailSwapOn)
}

// The Config must share nothing with its inputs: the node class and reservation are often cached.
func TestBuildDoesNotAliasInputs(t *testing.T) {
	k := fullKubelet()
	r := mustReserve(t, d2sv3)
	c, err := Build(BuildInput{NodeClass: nodeClassWithKubelet(k), Reservation: r, MaxPods: 250})
	require.NoError(t, err)

	*c.CPUCFSQuota = false
	*c.PodPidsLimit = 1
	c.AllowedUnsafeSysctls[0] = "net.changed"
	c.KubeReserved[corev1.ResourceCPU] = milliCPU(1)
	assert.True(t, *k.CPUCFSQuota)
	assert.Equal(t, int64(99), *k.PodPidsLimit)
	assert.Equal(t, "net.core.somaxconn", k.AllowedUnsafeSysctls[0])
	assert.Equal(t, int64(100), r.KubeReserved.Cpu().MilliValue())
	*c.CPUCFSQuotaPeriod = time.Second
	assert.Equal(t, 50*time.Millisecond, k.CPUCFSQuotaPeriod.Duration)

	bare := &api.KubeletConfiguration{}
	_, err = Build(BuildInput{NodeClass: nodeClassWithKubelet(bare), Reservation: r, MaxPods: 250})
	require.NoError(t, err)
	assert.Equal(t, api.KubeletConfiguration{}, *bare, "CRD defaults must not be written back")
}

func TestConfigCloneIsDeep(t *testing.T) {
	c, err := Build(BuildInput{NodeClass: nodeClassWithKubelet(fullKubelet()), Reservation: mustReserve(t, d2sv3), MaxPods: 250})
	require.NoError(t, err)
	c.EvictionSoft = map[string]string{SignalMemoryAvailable: "500Mi"}
	c.EvictionSoftGracePeriod = map[string]time.Duration{SignalMemoryAvailable: time.Minute}
	want := c.Flags()
	clone := c.Clone()
	clone.ClusterDNS[0] = "10.9.9.9"
	clone.EvictionSoft[SignalMemoryAvailable] = "1Mi"
	*clone.ContainerLogMaxFiles = 99
	clone.AllowedUnsafeSysctls[1] = "net.x"
	assert.Equal(t, want, c.Flags())
}

func TestBuildErrors(t *testing.T) {
	r := mustReserve(t, d2sv3)
	tests := []struct {
		name  string
		in    BuildInput
		field string
		value string
	}{
		{"empty reservation", BuildInput{MaxPods: 250}, "reservation.kubeReserved", ""},
		{"no eviction threshold", BuildInput{MaxPods: 250, Reservation: Reservation{KubeReserved: r.KubeReserved}},
			"reservation.evictionThreshold", ""},
		{"zero maxPods", BuildInput{Reservation: r}, "maxPods", "0"},
		{"bad DNS", BuildInput{Reservation: r, MaxPods: 250, ClusterDNS: "10.0.0"}, "clusterDNS[0]", "10.0.0"},
		{"bad domain", BuildInput{Reservation: r, MaxPods: 250, ClusterDomain: "Cluster_Local"}, "clusterDomain", "Cluster_Local"},
		{"bad node class", BuildInput{Reservation: r, MaxPods: 250, NodeClass: nodeClassWithKubelet(&api.KubeletConfiguration{
			CPUCFSQuotaPeriod: &metav1.Duration{Duration: 2 * time.Second}})}, "spec.kubelet.cpuCFSQuotaPeriod", "2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Build(tt.in)
			assert.Nil(t, c)
			requireFieldError(t, err, tt.field, tt.value)
		})
	}
}
