package kubeletconfig

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenConfigs are three nodes napkit commonly builds, from MaxPods and Reserve through Build.
func goldenConfigs(t testing.TB) map[string]*Config {
	t.Helper()
	build := func(nodeClass *api.AKSNodeClass, network api.ClusterNetwork, vcpus int64, memMiB float64, policy Policy, dns string) *Config {
		maxPods := MaxPods(nodeClass, network)
		r := mustReserve(t, ReservationInput{VCPUs: vcpus, MemoryMiB: memMiB, MaxPods: maxPods, Policy: policy})
		c, err := Build(BuildInput{NodeClass: nodeClass, Reservation: r, MaxPods: maxPods, ClusterDNS: dns})
		require.NoError(t, err)
		return c
	}
	withSoftEviction := func(c *Config) *Config {
		c.EvictionSoft = map[string]string{SignalMemoryAvailable: "500Mi", "nodefs.available": "15%"}
		c.EvictionSoftGracePeriod = map[string]time.Duration{SignalMemoryAvailable: 90 * time.Second, "nodefs.available": 2 * time.Minute}
		c.EvictionMaxPodGracePeriod = ptr[int32](30)
		require.NoError(t, c.Validate())
		return c
	}
	return map[string]*Config{
		"d2sv3-overlay-default": build(nil, api.DefaultClusterNetwork(), 2, 8192, "", ""),
		"d2sv3-overlay-kubelet": build(nodeClassWithKubelet(fullKubelet()), api.DefaultClusterNetwork(), 2, 8192, "", "10.20.0.10"),
		"d16sv5-nodesubnet-brackets": withSoftEviction(build(nodeClassWithKubelet(&api.KubeletConfiguration{}),
			api.ClusterNetwork{Plugin: api.NetworkPluginAzure}, 16, 65536, PolicyAKSBrackets, "")),
	}
}

func TestGolden(t *testing.T) {
	for name, c := range goldenConfigs(t) {
		t.Run(name, func(t *testing.T) {
			doc, err := c.YAML()
			require.NoError(t, err)
			checkGolden(t, name+".yaml.golden", doc)
			checkGolden(t, name+".flags.golden", []byte(strings.Join(c.Flags(), "\n")+"\n"))
		})
	}
}

func checkGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./kubeletconfig/ -run TestGolden -update to create it")
	require.Equal(t, string(want), string(got))
}
