package api

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAKSNodeClassValidate(t *testing.T) {
	const subnet = "/subscriptions/0000/resourceGroups/my-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"
	tests := []struct {
		name string
		spec string // YAML of spec
		want string
	}{
		{"empty", `{}`, ""},
		{"seed", `{imageFamily: Ubuntu}`, ""},
		{"everything valid", `{imageFamily: AzureLinux, osDiskSizeGB: 30, maxPods: 250, vnetSubnetID: "` + subnet + `",
			tags: {team: web}, kubelet: {imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80, containerLogMaxSize: 1Gi,
			containerLogMaxFiles: 2, cpuCFSQuotaPeriod: 1ms, podPidsLimit: -1, allowedUnsafeSysctls: ["net.core.somaxconn", "kernel.msg*", "kernel.sem"]},
			gpu: {mode: None}, security: {encryptionAtHost: true}}`, ""},
		{"subnet case-insensitive", `{vnetSubnetID: "` + strings.ToLower(subnet) + `"}`, ""},

		// sizes
		{"disk too small", `{osDiskSizeGB: 29}`, `spec.osDiskSizeGB: must be between 30 and 2048, got 29`},
		{"disk too big", `{osDiskSizeGB: 2049}`, `spec.osDiskSizeGB: must be between 30 and 2048, got 2049`},
		{"maxPods too small", `{maxPods: 9}`, `spec.maxPods: must be between 10 and 250, got 9`},
		{"maxPods too big", `{maxPods: 251}`, `spec.maxPods: must be between 10 and 250, got 251`},

		// image family and FIPS
		{"unknown family", `{imageFamily: Ubuntu1804}`, `spec.imageFamily: must be one of Ubuntu, Ubuntu2204, Ubuntu2404, AzureLinux, Windows2022, Windows2025, got "Ubuntu1804"`},
		{"empty family", `{imageFamily: ""}`, `spec.imageFamily: must be one of Ubuntu,`},
		{"windows passes type validation", `{imageFamily: Windows2025}`, ""},
		{"fips mode", `{fipsMode: "On"}`, `spec.fipsMode: must be one of FIPS, Disabled, got "On"`},
		{"fips ubuntu", `{fipsMode: FIPS, imageFamily: Ubuntu}`, ""},
		{"fips default family", `{fipsMode: FIPS}`, ""},
		{"fips azurelinux", `{fipsMode: FIPS, imageFamily: AzureLinux}`, ""},
		{"fips disabled 2404", `{fipsMode: Disabled, imageFamily: Ubuntu2404}`, ""},
		{"fips 2404", `{fipsMode: FIPS, imageFamily: Ubuntu2404}`, `spec.fipsMode: FIPS is not available for Ubuntu2404; use Ubuntu, Ubuntu2204 with trusted launch, or AzureLinux, got "FIPS"`},
		{"fips 2204 without trusted launch", `{fipsMode: FIPS, imageFamily: Ubuntu2204}`, `spec.fipsMode: FIPS with Ubuntu2204 needs trusted launch (spec.security.secureBoot or spec.security.vTPM true), got "FIPS"`},
		{"fips 2204 secure boot false", `{fipsMode: FIPS, imageFamily: Ubuntu2204, security: {secureBoot: false}}`, `FIPS with Ubuntu2204 needs trusted launch`},
		{"fips 2204 secure boot", `{fipsMode: FIPS, imageFamily: Ubuntu2204, security: {secureBoot: true}}`, ""},
		{"fips 2204 vTPM", `{fipsMode: FIPS, imageFamily: Ubuntu2204, security: {vTPM: true}}`, ""},
		{"fips ubuntu trusted launch", `{fipsMode: FIPS, imageFamily: Ubuntu, security: {vTPM: true}}`, ""},
		{"fips azurelinux trusted launch", `{fipsMode: FIPS, imageFamily: AzureLinux, security: {secureBoot: true}}`, `spec.fipsMode: FIPS with trusted launch is only available for Ubuntu and Ubuntu2204, not AzureLinux`},

		// subnet
		{"subnet not an ID", `{vnetSubnetID: subnet-1}`, `spec.vnetSubnetID: must be a subnet resource ID: /subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>, got "subnet-1"`},
		{"subnet group ends with dot", `{vnetSubnetID: "/subscriptions/0/resourceGroups/rg./providers/Microsoft.Network/virtualNetworks/v/subnets/s"}`, `spec.vnetSubnetID: must be a subnet resource ID`},
		{"subnet trailing slash", `{vnetSubnetID: "` + subnet + `/"}`, `spec.vnetSubnetID: must be a subnet resource ID`},
		{"subnet of a vnet only", `{vnetSubnetID: "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v"}`, `spec.vnetSubnetID: must be a subnet resource ID`},

		// tags
		{"tag key too long", `{tags: {` + strings.Repeat("k", 513) + `: v}}`, `: tag keys must be at most 512 characters`},
		{"tag key 512", `{tags: {` + strings.Repeat("k", 512) + `: v}}`, ""},
		{"tag key angle", `{tags: {"a<b": v}}`, `spec.tags[a<b]: tag keys must not contain any of < > % & ? \, got "a<b"`},
		{"tag key percent", `{tags: {"a%b": v}}`, `spec.tags[a%b]: tag keys must not contain`},
		{"tag key question", `{tags: {"a?b": v}}`, `spec.tags[a?b]: tag keys must not contain`},
		{"tag key ampersand", `{tags: {"a&b": v}}`, `spec.tags[a&b]: tag keys must not contain`},
		{"tag key backslash", `{tags: {"a\\b": v}}`, `spec.tags[a\b]: tag keys must not contain`},
		{"tag value too long", `{tags: {k: ` + strings.Repeat("v", 257) + `}}`, `spec.tags[k]: tag values must be at most 256 characters`},

		// kubelet
		{"cpu manager", `{kubelet: {cpuManagerPolicy: dynamic}}`, `spec.kubelet.cpuManagerPolicy: must be one of none, static, got "dynamic"`},
		{"topology manager", `{kubelet: {topologyManagerPolicy: strict}}`, `spec.kubelet.topologyManagerPolicy: must be one of restricted, best-effort, none, single-numa-node, got "strict"`},
		{"gc high below low", `{kubelet: {imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60}}`, `spec.kubelet.imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent (60), got 50`},
		{"gc equal", `{kubelet: {imageGCHighThresholdPercent: 60, imageGCLowThresholdPercent: 60}}`, `must be greater than imageGCLowThresholdPercent (60), got 60`},
		{"gc high over 100", `{kubelet: {imageGCHighThresholdPercent: 101}}`, `spec.kubelet.imageGCHighThresholdPercent: must be between 0 and 100, got 101`},
		{"gc low negative", `{kubelet: {imageGCLowThresholdPercent: -1}}`, `spec.kubelet.imageGCLowThresholdPercent: must be between 0 and 100, got -1`},
		{"log size unit", `{kubelet: {containerLogMaxSize: 50MB}}`, `spec.kubelet.containerLogMaxSize: must be an integer with a unit such as 50Mi or 1G, got "50MB"`},
		{"log size no unit", `{kubelet: {containerLogMaxSize: "50"}}`, `spec.kubelet.containerLogMaxSize: must be an integer`},
		{"log files", `{kubelet: {containerLogMaxFiles: 1}}`, `spec.kubelet.containerLogMaxFiles: must be at least 2, got 1`},
		{"pids", `{kubelet: {podPidsLimit: -2}}`, `spec.kubelet.podPidsLimit: must be at least -1, got -2`},
		{"unsafe sysctl", `{kubelet: {allowedUnsafeSysctls: [kernel.panic]}}`, `spec.kubelet.allowedUnsafeSysctls[0]: must be a sysctl or pattern from kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*, got "kernel.panic"`},
		{"unsafe sysctl comma", `{kubelet: {allowedUnsafeSysctls: ["net.a,net.b"]}}`, `spec.kubelet.allowedUnsafeSysctls[0]: must be a sysctl`},
		{"unsafe sysctl sem prefix", `{kubelet: {allowedUnsafeSysctls: [kernel.semx]}}`, `spec.kubelet.allowedUnsafeSysctls[0]: must be a sysctl`},

		// gpu
		{"gpu mode", `{gpu: {mode: Auto}}`, `spec.gpu.mode: must be one of Driver, None, got "Auto"`},

		// linuxOSConfig
		{"thp enabled", `{linuxOSConfig: {transparentHugePageEnabled: sometimes}}`, `spec.linuxOSConfig.transparentHugePageEnabled: must be one of always, madvise, never, got "sometimes"`},
		{"thp defrag", `{linuxOSConfig: {transparentHugePageDefrag: lazy}}`, `spec.linuxOSConfig.transparentHugePageDefrag: must be one of always, defer, defer+madvise, madvise, never, got "lazy"`},
		{"thp valid", `{linuxOSConfig: {transparentHugePageEnabled: madvise, transparentHugePageDefrag: defer+madvise}}`, ""},
		{"swap without failSwapOn", `{linuxOSConfig: {swapFileSize: 4Gi}}`, `spec.linuxOSConfig.swapFileSize: a swap file needs spec.kubelet.failSwapOn: false, or the kubelet will not start, got "4Gi"`},
		{"swap with failSwapOn true", `{kubelet: {failSwapOn: true}, linuxOSConfig: {swapFileSize: 4Gi}}`, `a swap file needs spec.kubelet.failSwapOn: false`},
		{"swap with failSwapOn false", `{kubelet: {failSwapOn: false}, linuxOSConfig: {swapFileSize: 1500Mi}}`, ""},
		{"swap negative", `{kubelet: {failSwapOn: false}, linuxOSConfig: {swapFileSize: -1Gi}}`, `spec.linuxOSConfig.swapFileSize: must be a positive size such as 1500Mi or 4Gi, got "-1Gi"`},
		{"swap garbage", `{kubelet: {failSwapOn: false}, linuxOSConfig: {swapFileSize: lots}}`, `spec.linuxOSConfig.swapFileSize: must be a positive size`},
		{"linux config on windows", `{imageFamily: Windows2022, linuxOSConfig: {}}`, `spec.linuxOSConfig: linuxOSConfig applies to Linux image families only, got "Windows2022"`},
		{"port range", `{linuxOSConfig: {sysctls: {netIPv4IPLocalPortRange: "32768 60999"}}}`, ""},
		{"port range first low", `{linuxOSConfig: {sysctls: {netIPv4IPLocalPortRange: "1023 65535"}}}`, `spec.linuxOSConfig.sysctls.netIPv4IPLocalPortRange: must be "first last": first must be between 1024 and 60999, got "1023 65535"`},
		{"port range last high", `{linuxOSConfig: {sysctls: {netIPv4IPLocalPortRange: "1024 65536"}}}`, `last must be between 32768 and 65535`},
		{"port range backwards", `{linuxOSConfig: {sysctls: {netIPv4IPLocalPortRange: "60000 40000"}}}`, `first must be below last`},
		{"port range text", `{linuxOSConfig: {sysctls: {netIPv4IPLocalPortRange: "low high"}}}`, `want two numbers separated by one space`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := fromYAML[AKSNodeClass](t, fmt.Sprintf("{metadata: {name: default}, spec: %s}", tt.spec))
			assertInvalid(t, nc.Validate(), tt.want)
		})
	}
}

// TestSysctlRanges checks each sysctl's CRD bounds, written out here independently of the table in
// validation_linuxos.go, at both ends.
func TestSysctlRanges(t *testing.T) {
	bounds := map[string][2]int64{
		"fsAioMaxNr": {65536, 6553500}, "fsFileMax": {8192, 12000500}, "fsInotifyMaxUserWatches": {781250, 2097152},
		"fsNrOpen": {8192, 20000500}, "kernelThreadsMax": {20, 513785}, "netCoreNetdevMaxBacklog": {1000, 3240000},
		"netCoreOptmemMax": {20480, 4194304}, "netCoreRmemDefault": {212992, 134217728}, "netCoreRmemMax": {212992, 134217728},
		"netCoreSomaxconn": {4096, 3240000}, "netCoreWmemDefault": {212992, 134217728}, "netCoreWmemMax": {212992, 134217728},
		"netIPv4NeighDefaultGcThresh1": {128, 80000}, "netIPv4NeighDefaultGcThresh2": {512, 90000},
		"netIPv4NeighDefaultGcThresh3": {1024, 100000}, "netIPv4TCPFinTimeout": {5, 120}, "netIPv4TCPKeepaliveProbes": {1, 15},
		"netIPv4TCPKeepaliveTime": {30, 432000}, "netIPv4TCPMaxSynBacklog": {128, 3240000}, "netIPv4TCPMaxTwBuckets": {8000, 1440000},
		"netIPv4TCPKeepaliveIntvl": {10, 90}, "netNetfilterNfConntrackBuckets": {65536, 524288},
		"netNetfilterNfConntrackMax": {131072, 2097152}, "vmMaxMapCount": {65530, 262144}, "vmSwappiness": {0, 100},
		"vmVfsCachePressure": {0, 100},
	}
	for name, b := range bounds {
		for _, tc := range []struct {
			v  int64
			ok bool
		}{{b[0], true}, {b[1], true}, {b[0] - 1, false}, {b[1] + 1, false}} {
			t.Run(fmt.Sprintf("%s=%d", name, tc.v), func(t *testing.T) {
				nc := fromYAML[AKSNodeClass](t, fmt.Sprintf("{metadata: {name: c}, spec: {linuxOSConfig: {sysctls: {%s: %d}}}}", name, tc.v))
				want := ""
				if !tc.ok {
					want = fmt.Sprintf("spec.linuxOSConfig.sysctls.%s: must be between %d and %d, got %d", name, b[0], b[1], tc.v)
				}
				assertInvalid(t, nc.Validate(), want)
			})
		}
	}
}

func TestKubeletCFSPeriod(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{time.Millisecond, ""}, {time.Second, ""}, {100 * time.Millisecond, ""},
		{time.Microsecond, `spec.kubelet.cpuCFSQuotaPeriod: must be between 1ms and 1s, got "1µs"`},
		{2 * time.Second, `spec.kubelet.cpuCFSQuotaPeriod: must be between 1ms and 1s, got "2s"`},
	} {
		nc := &AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
		nc.Spec.Kubelet = &KubeletConfiguration{CPUCFSQuotaPeriod: &metav1.Duration{Duration: tc.d}}
		assertInvalid(t, nc.Validate(), tc.want)
	}
}

func TestLocalDNSValidate(t *testing.T) {
	const ok = `{zone: ".", queryLogging: Error, protocol: PreferUDP, forwardDestination: VnetDNS, forwardPolicy: Sequential,
		maxConcurrent: 1000, cacheDuration: 3600s, serveStaleDuration: 3600s, serveStale: Verify}`
	const cluster = `{zone: cluster.local, queryLogging: Error, protocol: ForceTCP, forwardDestination: ClusterCoreDNS,
		forwardPolicy: Sequential, maxConcurrent: 1000, cacheDuration: 3600s, serveStaleDuration: 3600s, serveStale: Immediate}`
	lists := func(vnet, kube string) string {
		return fmt.Sprintf("{mode: Required, vnetDNSOverrides: [%s], kubeDNSOverrides: [%s]}", vnet, kube)
	}
	both := ok + ", " + cluster
	tests := []struct {
		name, localDNS, want string
	}{
		{"valid", lists(both, both), ""},
		{"kube root to CoreDNS is fine", lists(both, `{zone: ".", forwardDestination: ClusterCoreDNS}, `+cluster), ""},
		{"no mode", `{vnetDNSOverrides: [` + both + `], kubeDNSOverrides: [` + both + `]}`, `spec.localDNS.mode: one of Preferred, Required, Disabled`},
		{"bad mode", `{mode: Always, vnetDNSOverrides: [` + both + `], kubeDNSOverrides: [` + both + `]}`, `spec.localDNS.mode: must be one of Preferred, Required, Disabled, got "Always"`},
		{"missing cluster.local", lists(both, ok), `spec.localDNS.kubeDNSOverrides: must contain an override for zone "cluster.local"`},
		{"missing root", lists(cluster, both), `spec.localDNS.vnetDNSOverrides: must contain an override for zone "."`},
		{"missing lists", `{mode: Preferred}`, `spec.localDNS.vnetDNSOverrides: must contain an override for zone "."`},
		{"vnet root to CoreDNS", lists(`{zone: ".", forwardDestination: ClusterCoreDNS}, `+cluster, both),
			`spec.localDNS.vnetDNSOverrides[0].forwardDestination: zone "." is outside the cluster and cannot be forwarded to ClusterCoreDNS from vnetDNSOverrides, got "ClusterCoreDNS"`},
		{"vnet external to CoreDNS", lists(both+`, {zone: example.com, forwardDestination: ClusterCoreDNS}`, both),
			`spec.localDNS.vnetDNSOverrides[2].forwardDestination: zone "example.com" is outside the cluster`},
		{"cluster.local to VnetDNS", lists(both, ok+`, {zone: cluster.local, forwardDestination: VnetDNS}`),
			`spec.localDNS.kubeDNSOverrides[1].forwardDestination: 'cluster.local' cannot be forwarded to VnetDNS, which does not know cluster names, got "VnetDNS"`},
		{"verify with tcp", lists(both+`, {zone: a.b, serveStale: Verify, protocol: ForceTCP}`, both),
			`spec.localDNS.vnetDNSOverrides[2].serveStale: serveStale Verify cannot be used with protocol ForceTCP, got "Verify"`},
		{"duplicate zone", lists(both+", "+ok, both), `spec.localDNS.vnetDNSOverrides[2].zone: Duplicate value, got "."`},
		{"bad zone", lists(both+`, {zone: "-bad-.com"}`, both), `spec.localDNS.vnetDNSOverrides[2].zone: must be '.' or a DNS name of at most 254 characters, got "-bad-.com"`},
		{"empty zone", lists(both+`, {protocol: PreferUDP}`, both), `spec.localDNS.vnetDNSOverrides[2].zone: a DNS zone such as '.' or 'cluster.local'`},
		{"query logging", lists(both+`, {zone: a.b, queryLogging: Debug}`, both), `spec.localDNS.vnetDNSOverrides[2].queryLogging: must be one of Error, Log, got "Debug"`},
		{"protocol", lists(both+`, {zone: a.b, protocol: QUIC}`, both), `spec.localDNS.vnetDNSOverrides[2].protocol: must be one of PreferUDP, ForceTCP, got "QUIC"`},
		{"destination", lists(both+`, {zone: a.b, forwardDestination: Upstream}`, both), `spec.localDNS.vnetDNSOverrides[2].forwardDestination: must be one of ClusterCoreDNS, VnetDNS, got "Upstream"`},
		{"policy", lists(both+`, {zone: a.b, forwardPolicy: Fastest}`, both), `spec.localDNS.vnetDNSOverrides[2].forwardPolicy: must be one of Sequential, RoundRobin, Random, got "Fastest"`},
		{"serve stale", lists(both+`, {zone: a.b, serveStale: Always}`, both), `spec.localDNS.vnetDNSOverrides[2].serveStale: must be one of Verify, Immediate, Disable, got "Always"`},
		{"max concurrent", lists(both+`, {zone: a.b, maxConcurrent: -1}`, both), `spec.localDNS.vnetDNSOverrides[2].maxConcurrent: must be at least 0, got -1`},
		{"cache never", lists(both+`, {zone: a.b, cacheDuration: Never}`, both), `spec.localDNS.vnetDNSOverrides[2].cacheDuration: must be a duration such as 3600s; Never is not allowed here, got "Never"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := fromYAML[AKSNodeClass](t, fmt.Sprintf("{metadata: {name: c}, spec: {localDNS: %s}}", tt.localDNS))
			assertInvalid(t, nc.Validate(), tt.want)
		})
	}
}
