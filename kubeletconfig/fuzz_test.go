package kubeletconfig

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// fuzzCase is one random node: its size, its node class's kubelet block (fields present per bit of
// Set) and an optional soft eviction threshold added after Build.
type fuzzCase struct {
	VCPUs                      int64
	MemoryMiB                  float64
	MaxPods                    int32
	Brackets                   bool
	Set                        uint16
	CPUPolicy, Topology        string
	CFSQuota                   bool
	PeriodNs                   int64
	GCHigh, GCLow              int32
	LogSize                    string
	LogFiles                   int32
	Pids                       int64
	Sysctls                    string
	FailSwap                   bool
	DNS, SoftSignal, SoftValue string
	GraceNs                    int64
}

// Build + Validate on random settings must never panic, and must either reject with field errors or
// produce flags and YAML that read back to the same values.
func FuzzBuild(f *testing.F) {
	f.Add(int64(2), 8192.0, int32(250), false, uint16(0), "", "", false, int64(0), int32(0), int32(0), "", int32(0), int64(0), "", false, "", "", "", int64(0))
	f.Add(int64(2), 8192.0, int32(250), true, uint16(0xffff), "static", "best-effort", true, int64(100e6), int32(30), int32(20), "42Mi", int32(13), int64(99), "net.core.somaxconn,kernel.shm*", false, "10.20.0.10", "memory.available", "99Mi", int64(90e9))
	f.Add(int64(16), 3584.0, int32(30), false, uint16(0x8001), "none", "single-numa-node", false, int64(5e8), int32(101), int32(-1), "50mi", int32(1), int64(-2), "kernel.*", true, "fe80::1%eth0", "nodefs.available", "10%", int64(-1))
	f.Add(int64(0), -1.0, int32(0), false, uint16(0), "", "", false, int64(0), int32(0), int32(0), "", int32(0), int64(0), "", false, "", "", "", int64(0))
	f.Fuzz(func(t *testing.T, vcpus int64, memMiB float64, maxPods int32, brackets bool, set uint16, cpuPolicy, topology string,
		cfs bool, periodNs int64, gcHigh, gcLow int32, logSize string, logFiles int32, pids int64, sysctls string, failSwap bool,
		dns, softSignal, softValue string, graceNs int64) {
		runFuzzCase(t, fuzzCase{vcpus, memMiB, maxPods, brackets, set, cpuPolicy, topology, cfs, periodNs, gcHigh, gcLow,
			logSize, logFiles, pids, sysctls, failSwap, dns, softSignal, softValue, graceNs})
	})
}

func runFuzzCase(t *testing.T, fc fuzzCase) {
	in := ReservationInput{VCPUs: fc.VCPUs, MemoryMiB: fc.MemoryMiB, MaxPods: fc.MaxPods}
	if fc.Brackets {
		in.Policy = PolicyAKSBrackets
	}
	r, err := Reserve(in)
	if err != nil {
		requireNamedFields(t, err)
		return
	}
	c, err := Build(BuildInput{NodeClass: fc.nodeClass(), Reservation: r, MaxPods: fc.MaxPods, ClusterDNS: fc.DNS})
	if err != nil {
		requireNamedFields(t, err)
		return
	}
	if fc.SoftSignal != "" {
		c.EvictionSoft = map[string]string{fc.SoftSignal: fc.SoftValue}
		c.EvictionSoftGracePeriod = map[string]time.Duration{fc.SoftSignal: time.Duration(fc.GraceNs)}
		if err := c.Validate(); err != nil {
			requireNamedFields(t, err)
			return
		}
	}
	requireFlagsRoundTrip(t, c)
	requireYAMLRoundTrip(t, c)
}

// nodeClass turns the Set bits into a kubelet block; bit 15 alone means "block present, all unset".
func (fc fuzzCase) nodeClass() *api.AKSNodeClass {
	if fc.Set == 0 {
		return nil
	}
	on := func(bit uint) bool { return fc.Set&(1<<bit) != 0 }
	k := &api.KubeletConfiguration{}
	setIf(on(0), &k.CPUManagerPolicy, fc.CPUPolicy)
	setIf(on(1), &k.TopologyManagerPolicy, fc.Topology)
	setIf(on(2), &k.CPUCFSQuota, fc.CFSQuota)
	setIf(on(3), &k.CPUCFSQuotaPeriod, metav1.Duration{Duration: time.Duration(fc.PeriodNs)})
	setIf(on(4), &k.ImageGCHighThresholdPercent, fc.GCHigh)
	setIf(on(5), &k.ImageGCLowThresholdPercent, fc.GCLow)
	setIf(on(6), &k.ContainerLogMaxSize, fc.LogSize)
	setIf(on(7), &k.ContainerLogMaxFiles, fc.LogFiles)
	setIf(on(8), &k.PodPidsLimit, fc.Pids)
	setIf(on(9), &k.FailSwapOn, fc.FailSwap)
	if on(10) && fc.Sysctls != "" {
		k.AllowedUnsafeSysctls = strings.Split(fc.Sysctls, ",")
	}
	return nodeClassWithKubelet(k)
}

func setIf[T any](ok bool, p **T, v T) {
	if ok {
		*p = &v
	}
}

// requireNamedFields checks a rejection: ErrInvalid, and every part an *api.FieldError naming its field.
func requireNamedFields(t *testing.T, err error) {
	t.Helper()
	require.ErrorIs(t, err, ErrInvalid)
	for _, fe := range fieldErrors(t, err) {
		require.NotEmpty(t, fe.Field)
		require.Contains(t, fe.Error(), fe.Field)
		require.Contains(t, fe.Error(), fe.ValueString())
	}
}

func requireFlagsRoundTrip(t *testing.T, c *Config) {
	t.Helper()
	parsed, err := ParseFlags(c.Flags())
	require.NoError(t, err)
	back, err := configFromFlags(parsed)
	require.NoError(t, err)
	assert.Equal(t, c.document(), back.document())
	requireSameResources(t, c.KubeReserved, back.KubeReserved)
	requireSameResources(t, c.SystemReserved, back.SystemReserved)
}

func requireYAMLRoundTrip(t *testing.T, c *Config) {
	t.Helper()
	out, err := c.YAML()
	require.NoError(t, err)
	var doc document
	require.NoError(t, yaml.UnmarshalStrict(out, &doc), "%s", out)
	assert.Equal(t, c.document(), doc)
}

// configFromFlags is an independent reader of Flags' output, flag by flag.
func configFromFlags(flags map[string]string) (*Config, error) {
	c := &Config{}
	for name, value := range flags {
		set, ok := flagReaders[name]
		if !ok {
			return nil, fmt.Errorf("unexpected flag --%s", name)
		}
		if err := set(c, value); err != nil {
			return nil, fmt.Errorf("--%s=%s: %w", name, value, err)
		}
	}
	return c, nil
}

var flagReaders = map[string]func(*Config, string) error{
	"max-pods":                      func(c *Config, v string) error { return parseInto(&c.MaxPods, v, parseInt32) },
	"cluster-dns":                   func(c *Config, v string) error { c.ClusterDNS = strings.Split(v, ","); return nil },
	"cluster-domain":                func(c *Config, v string) error { c.ClusterDomain = v; return nil },
	"cpu-manager-policy":            func(c *Config, v string) error { c.CPUManagerPolicy = v; return nil },
	"topology-manager-policy":       func(c *Config, v string) error { c.TopologyManagerPolicy = v; return nil },
	"container-log-max-size":        func(c *Config, v string) error { c.ContainerLogMaxSize = v; return nil },
	"allowed-unsafe-sysctls":        func(c *Config, v string) error { c.AllowedUnsafeSysctls = strings.Split(v, ","); return nil },
	"cpu-cfs-quota":                 func(c *Config, v string) error { return parsePtr(&c.CPUCFSQuota, v, strconv.ParseBool) },
	"fail-swap-on":                  func(c *Config, v string) error { return parsePtr(&c.FailSwapOn, v, strconv.ParseBool) },
	"cpu-cfs-quota-period":          func(c *Config, v string) error { return parsePtr(&c.CPUCFSQuotaPeriod, v, time.ParseDuration) },
	"image-gc-high-threshold":       func(c *Config, v string) error { return parsePtr(&c.ImageGCHighThresholdPercent, v, parseInt32) },
	"image-gc-low-threshold":        func(c *Config, v string) error { return parsePtr(&c.ImageGCLowThresholdPercent, v, parseInt32) },
	"container-log-max-files":       func(c *Config, v string) error { return parsePtr(&c.ContainerLogMaxFiles, v, parseInt32) },
	"eviction-max-pod-grace-period": func(c *Config, v string) error { return parsePtr(&c.EvictionMaxPodGracePeriod, v, parseInt32) },
	"pod-max-pids": func(c *Config, v string) error {
		return parsePtr(&c.PodPidsLimit, v, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) })
	},
	"kube-reserved": func(c *Config, v string) (err error) {
		c.KubeReserved, err = parseResourceFlag(map[string]string{"x": v}, "x")
		return err
	},
	"system-reserved": func(c *Config, v string) (err error) {
		c.SystemReserved, err = parseResourceFlag(map[string]string{"x": v}, "x")
		return err
	},
	"eviction-hard": func(c *Config, v string) (err error) { c.EvictionHard, err = ParseMapFlag(v); return err },
	"eviction-soft": func(c *Config, v string) (err error) { c.EvictionSoft, err = ParseMapFlag(v); return err },
	"eviction-soft-grace-period": func(c *Config, v string) error {
		m, err := ParseMapFlag(v)
		c.EvictionSoftGracePeriod = map[string]time.Duration{}
		for k, s := range m {
			if c.EvictionSoftGracePeriod[k], err = time.ParseDuration(s); err != nil {
				return err
			}
		}
		return err
	},
}

func parseInt32(s string) (int32, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	return int32(n), err
}

func parseInto[T any](p *T, s string, parse func(string) (T, error)) (err error) {
	*p, err = parse(s)
	return err
}

func parsePtr[T any](p **T, s string, parse func(string) (T, error)) error {
	v, err := parse(s)
	*p = &v
	return err
}
