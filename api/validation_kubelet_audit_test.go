package api

import (
	"fmt"
	"testing"
)

// TestKubeletSettingsTheKubeletRejects audits every kubelet field an AKSNodeClass accepts: each row is
// a value the node's kubelet refuses at start-up (or that AKS's CRD refuses), and validation must
// report it naming the field. Rows ending in "ok" are the nearest values the kubelet accepts.
// upstream: pkg/apis/v1beta1/aksnodeclass.go (KubeletConfiguration markers and CEL),
// pkg/apis/crds/karpenter.azure.com_aksnodeclasses.yaml; the kubelet's own rules are in
// kubernetes pkg/kubelet/apis/config/validation/validation.go (ValidateKubeletConfiguration).
func TestKubeletSettingsTheKubeletRejects(t *testing.T) {
	tests := []struct{ name, kubelet, want string }{
		{"cpuManagerPolicy", `cpuManagerPolicy: dynamic`, `spec.kubelet.cpuManagerPolicy: must be one of none, static`},
		{"cpuManagerPolicy ok", `cpuManagerPolicy: static`, ""},
		// cpuCFSQuota is a bool: nothing the kubelet refuses.
		{"cpuCFSQuota ok", `cpuCFSQuota: false`, ""},
		{"cpuCFSQuotaPeriod below 1ms", `cpuCFSQuotaPeriod: 500us`, `spec.kubelet.cpuCFSQuotaPeriod: must be between 1ms and 1s`},
		{"cpuCFSQuotaPeriod above 1s", `cpuCFSQuotaPeriod: 1100ms`, `spec.kubelet.cpuCFSQuotaPeriod: must be between 1ms and 1s`},
		// A period other than 100ms is valid: it is rendered with the CustomCPUCFSQuotaPeriod gate.
		{"cpuCFSQuotaPeriod ok", `cpuCFSQuotaPeriod: 200ms`, ""},
		{"imageGCHigh above 100", `imageGCHighThresholdPercent: 101`, `spec.kubelet.imageGCHighThresholdPercent: must be between 0 and 100`},
		{"imageGCLow negative", `imageGCLowThresholdPercent: -1`, `spec.kubelet.imageGCLowThresholdPercent: must be between 0 and 100`},
		{"imageGC high not above low", `{imageGCHighThresholdPercent: 70, imageGCLowThresholdPercent: 70}`, `spec.kubelet.imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent (70)`},
		// One threshold alone meets the other's default (85/80) in the node's flags.
		{"imageGCHigh alone at the default low", `imageGCHighThresholdPercent: 80`, `spec.kubelet.imageGCHighThresholdPercent: must be greater than the node's default imageGCLowThresholdPercent (80)`},
		{"imageGCHigh alone ok", `imageGCHighThresholdPercent: 81`, ""},
		{"imageGCLow alone at the default high", `imageGCLowThresholdPercent: 85`, `spec.kubelet.imageGCLowThresholdPercent: must be less than the node's default imageGCHighThresholdPercent (85)`},
		{"imageGCLow alone ok", `imageGCLowThresholdPercent: 84`, ""},
		{"topologyManagerPolicy", `topologyManagerPolicy: numa`, `spec.kubelet.topologyManagerPolicy: must be one of`},
		{"topologyManagerPolicy ok", `topologyManagerPolicy: single-numa-node`, ""},
		{"allowedUnsafeSysctls not namespaced", `allowedUnsafeSysctls: [vm.swappiness]`, `spec.kubelet.allowedUnsafeSysctls[0]: must be a sysctl`},
		{"allowedUnsafeSysctls ok", `allowedUnsafeSysctls: ["net.ipv4.*", kernel.sem]`, ""},
		{"containerLogMaxSize zero", `containerLogMaxSize: 0Mi`, `spec.kubelet.containerLogMaxSize: must be greater than zero`},
		{"containerLogMaxSize bytes", `containerLogMaxSize: "1048576"`, `spec.kubelet.containerLogMaxSize: must be an integer with a unit`},
		{"containerLogMaxSize ok", `containerLogMaxSize: 10Mi`, ""},
		{"containerLogMaxFiles 1", `containerLogMaxFiles: 1`, `spec.kubelet.containerLogMaxFiles: must be at least 2`},
		{"containerLogMaxFiles ok", `containerLogMaxFiles: 2`, ""},
		{"podPidsLimit", `podPidsLimit: -5`, `spec.kubelet.podPidsLimit: must be at least -1`},
		{"podPidsLimit ok", `podPidsLimit: -1`, ""},
		// failSwapOn: true with a swap file stops the kubelet; the CRD rule names both fields.
		{"failSwapOn with swap", `failSwapOn: true}, linuxOSConfig: {swapFileSize: 1Gi`, `spec.linuxOSConfig.swapFileSize: a swap file needs spec.kubelet.failSwapOn: false`},
		{"failSwapOn ok", `failSwapOn: false}, linuxOSConfig: {swapFileSize: 1Gi`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kubelet := tc.kubelet
			if kubelet[0] != '{' {
				kubelet = "{" + kubelet + "}"
			}
			nc := fromYAML[AKSNodeClass](t, fmt.Sprintf("{metadata: {name: default}, spec: {kubelet: %s}}", kubelet))
			assertInvalid(t, nc.Validate(), tc.want)
		})
	}
}
