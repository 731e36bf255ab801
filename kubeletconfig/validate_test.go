package kubeletconfig

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// validConfig is a config that passes Validate; each test case breaks one thing.
func validConfig(t testing.TB) *Config {
	t.Helper()
	c, err := Build(BuildInput{NodeClass: nodeClassWithKubelet(fullKubelet()), Reservation: mustReserve(t, d2sv3), MaxPods: 250})
	require.NoError(t, err)
	c.EvictionSoft = map[string]string{SignalMemoryAvailable: "500Mi", "nodefs.available": "15%"}
	c.EvictionSoftGracePeriod = map[string]time.Duration{SignalMemoryAvailable: 90 * time.Second, "nodefs.available": time.Minute}
	c.EvictionMaxPodGracePeriod = ptr[int32](30)
	require.NoError(t, c.Validate())
	return c
}

func TestValidateAccepts(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
	}{
		{"GC 100/0", func(c *Config) {
			c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = ptr[int32](100), ptr[int32](0)
		}},
		{"only high, above the default low", func(c *Config) { c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = ptr[int32](90), nil }},
		{"only low, below the default high", func(c *Config) { c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = nil, ptr[int32](50) }},
		{"period 1ms", func(c *Config) { c.CPUCFSQuotaPeriod = ptr(time.Millisecond) }},
		{"period 1s", func(c *Config) { c.CPUCFSQuotaPeriod = ptr(time.Second) }},
		{"log size 1Gi", func(c *Config) { c.ContainerLogMaxSize = "1Gi" }},
		{"log size 10M", func(c *Config) { c.ContainerLogMaxSize = "10M" }},
		{"two log files", func(c *Config) { c.ContainerLogMaxFiles = ptr[int32](2) }},
		{"unlimited pids", func(c *Config) { c.PodPidsLimit = ptr[int64](-1) }},
		{"every unsafe group", func(c *Config) {
			c.AllowedUnsafeSysctls = []string{"kernel.shm*", "kernel.shmmax", "kernel.msg*", "kernel.msgmax", "kernel.sem",
				"fs.mqueue.*", "fs.mqueue.msg_max", "net.*", "net.ipv4.*", "net.ipv4.tcp_keepalive_time", "net.ipv4.ip_local_port_range"}
		}},
		{"all topology policies", func(c *Config) { c.TopologyManagerPolicy = TopologyManagerPolicySingleNUMANode }},
		{"IPv6 DNS", func(c *Config) { c.ClusterDNS = []string{"fd00::a"} }},
		{"eviction percentage 0%", func(c *Config) { c.EvictionHard["nodefs.available"] = "0%" }},
		{"pid reservation", func(c *Config) { c.SystemReserved["pid"] = resource.MustParse("1000") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig(t)
			tt.mutate(c)
			assert.NoError(t, c.Validate())
		})
	}
}

// rejectCase breaks one thing in validConfig and names the field Validate must reject.
type rejectCase struct {
	name   string
	mutate func(*Config)
	field  string
	value  string
}

func runRejectCases(t *testing.T, tests []rejectCase) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig(t)
			tt.mutate(c)
			requireFieldError(t, c.Validate(), tt.field, tt.value)
		})
	}
}

func TestValidateRejectsKubeletFields(t *testing.T) {
	const k = "spec.kubelet."
	runRejectCases(t, []rejectCase{
		{"GC high above 100", func(c *Config) { c.ImageGCHighThresholdPercent = ptr[int32](101) }, k + "imageGCHighThresholdPercent", "101"},
		{"GC low negative", func(c *Config) { c.ImageGCLowThresholdPercent = ptr[int32](-1) }, k + "imageGCLowThresholdPercent", "-1"},
		{"GC high equals low", func(c *Config) {
			c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = ptr[int32](50), ptr[int32](50)
		}, k + "imageGCLowThresholdPercent", "50"},
		{"GC low above high", func(c *Config) {
			c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = ptr[int32](20), ptr[int32](30)
		}, k + "imageGCLowThresholdPercent", "30"},
		{"GC only high, below the kubelet's low", func(c *Config) { c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = ptr[int32](50), nil }, k + "imageGCLowThresholdPercent", "80"},
		{"GC only low, above the kubelet's high", func(c *Config) { c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = nil, ptr[int32](90) }, k + "imageGCLowThresholdPercent", "90"},
		{"cpu manager policy", func(c *Config) { c.CPUManagerPolicy = "Static" }, k + "cpuManagerPolicy", "Static"},
		{"topology policy", func(c *Config) { c.TopologyManagerPolicy = "besteffort" }, k + "topologyManagerPolicy", "besteffort"},
		{"period too short", func(c *Config) { c.CPUCFSQuotaPeriod = ptr(999 * time.Microsecond) }, k + "cpuCFSQuotaPeriod", "999µs"},
		{"period too long", func(c *Config) { c.CPUCFSQuotaPeriod = ptr(1001 * time.Millisecond) }, k + "cpuCFSQuotaPeriod", "1.001s"},
		{"log size without unit", func(c *Config) { c.ContainerLogMaxSize = "1024" }, k + "containerLogMaxSize", "1024"},
		{"log size with decimals", func(c *Config) { c.ContainerLogMaxSize = "1.5Mi" }, k + "containerLogMaxSize", "1.5Mi"},
		{"log size lower-case unit", func(c *Config) { c.ContainerLogMaxSize = "50mi" }, k + "containerLogMaxSize", "50mi"},
		{"log size zero", func(c *Config) { c.ContainerLogMaxSize = "0Mi" }, k + "containerLogMaxSize", "0Mi"},
		{"one log file", func(c *Config) { c.ContainerLogMaxFiles = ptr[int32](1) }, k + "containerLogMaxFiles", "1"},
		{"pids below -1", func(c *Config) { c.PodPidsLimit = ptr[int64](-2) }, k + "podPidsLimit", "-2"},
		{"sysctl not namespaced", func(c *Config) { c.AllowedUnsafeSysctls = []string{"net.core.somaxconn", "kernel.pid_max"} }, k + "allowedUnsafeSysctls[1]", "kernel.pid_max"},
		{"sysctl pattern too wide", func(c *Config) { c.AllowedUnsafeSysctls = []string{"kernel.*"} }, k + "allowedUnsafeSysctls[0]", "kernel.*"},
		{"sysctl kernel.sem as a pattern", func(c *Config) { c.AllowedUnsafeSysctls = []string{"kernel.sem*"} }, k + "allowedUnsafeSysctls[0]", "kernel.sem*"},
		{"sysctl bare star", func(c *Config) { c.AllowedUnsafeSysctls = []string{"*"} }, k + "allowedUnsafeSysctls[0]", "*"},
		{"sysctl net without dot", func(c *Config) { c.AllowedUnsafeSysctls = []string{"net*"} }, k + "allowedUnsafeSysctls[0]", "net*"},
		{"sysctl upper case", func(c *Config) { c.AllowedUnsafeSysctls = []string{"Allowed"} }, k + "allowedUnsafeSysctls[0]", "Allowed"},
		{"sysctl with comma", func(c *Config) { c.AllowedUnsafeSysctls = []string{"net.a,net.b"} }, k + "allowedUnsafeSysctls[0]", "net.a,net.b"},
		{"sysctl star in the middle", func(c *Config) { c.AllowedUnsafeSysctls = []string{"net.*.x"} }, k + "allowedUnsafeSysctls[0]", "net.*.x"},
		{"sysctl empty", func(c *Config) { c.AllowedUnsafeSysctls = []string{""} }, k + "allowedUnsafeSysctls[0]", ""},
	})
}

func TestValidateRejectsCoreAndEviction(t *testing.T) {
	runRejectCases(t, []rejectCase{
		{"maxPods", func(c *Config) { c.MaxPods = -1 }, "maxPods", "-1"},
		{"DNS with zone", func(c *Config) { c.ClusterDNS = []string{"fe80::1%eth0"} }, "clusterDNS[0]", "fe80::1%eth0"},
		{"unknown reserved resource", func(c *Config) { c.KubeReserved["gpu"] = resource.MustParse("1") }, "kubeReserved[gpu]", "1"},
		{"negative reservation", func(c *Config) { c.SystemReserved[corev1.ResourceMemory] = resource.MustParse("-1Mi") }, "systemReserved[memory]", "-1Mi"},
		{"sub-millicore cpu", func(c *Config) { c.KubeReserved[corev1.ResourceCPU] = resource.MustParse("100500u") }, "kubeReserved[cpu]", "100500u"},
		{"fractional bytes", func(c *Config) { c.KubeReserved[corev1.ResourceMemory] = resource.MustParse("1500m") }, "kubeReserved[memory]", "1500m"},
		{"unknown eviction signal", func(c *Config) { c.EvictionHard["memory.free"] = "1Gi" }, "evictionHard[memory.free]", "1Gi"},
		{"zero eviction quantity", func(c *Config) { c.EvictionHard[SignalMemoryAvailable] = "0" }, "evictionHard[memory.available]", "0"},
		{"eviction percentage above 100", func(c *Config) { c.EvictionHard["nodefs.available"] = "101%" }, "evictionHard[nodefs.available]", "101%"},
		{"eviction NaN percentage", func(c *Config) { c.EvictionHard["nodefs.available"] = "NaN%" }, "evictionHard[nodefs.available]", "NaN%"},
		{"eviction garbage", func(c *Config) { c.EvictionSoft[SignalMemoryAvailable] = "lots" }, "evictionSoft[memory.available]", "lots"},
		{"soft without grace", func(c *Config) { delete(c.EvictionSoftGracePeriod, "nodefs.available") }, "evictionSoftGracePeriod[nodefs.available]", ""},
		{"grace without soft", func(c *Config) { c.EvictionSoftGracePeriod["pid.available"] = time.Minute }, "evictionSoftGracePeriod[pid.available]", "1m0s"},
		{"negative grace", func(c *Config) { c.EvictionSoftGracePeriod[SignalMemoryAvailable] = -time.Second }, "evictionSoftGracePeriod[memory.available]", "-1s"},
		{"negative max pod grace", func(c *Config) { c.EvictionMaxPodGracePeriod = ptr[int32](-5) }, "evictionMaxPodGracePeriod", "-5"},
	})
}

// All problems are reported at once, in a fixed order, so a user fixes a manifest in one pass.
func TestValidateReportsEveryProblemInOrder(t *testing.T) {
	c := validConfig(t)
	c.MaxPods = 0
	c.CPUManagerPolicy = "bogus"
	c.ContainerLogMaxFiles = ptr[int32](0)
	c.AllowedUnsafeSysctls = []string{"vm.swappiness"}
	err := c.Validate()
	var fields []string
	for _, fe := range fieldErrors(t, err) {
		fields = append(fields, fe.Field)
	}
	assert.Equal(t, []string{"maxPods", "spec.kubelet.cpuManagerPolicy", "spec.kubelet.containerLogMaxFiles",
		"spec.kubelet.allowedUnsafeSysctls[0]"}, fields)
	assert.Equal(t, err.Error(), c.Validate().Error())
}

func TestFieldErrorMessage(t *testing.T) {
	err := error(invalid("spec.kubelet.imageGCLowThresholdPercent", 90, "must be less than %d", 85))
	assert.Equal(t, `invalid kubelet configuration: spec.kubelet.imageGCLowThresholdPercent: must be less than 85, got 90`, err.Error())
	assert.ErrorIs(t, err, ErrInvalid)
}
