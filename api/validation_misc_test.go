package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestNodeClaimValidate(t *testing.T) {
	const valid = `{metadata: {name: general-abcde}, spec: {
		requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [Standard_D4s_v5]}, {key: karpenter.sh/nodepool, operator: In, values: [general]}],
		nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default},
		resources: {requests: {cpu: "1", memory: 1Gi}}, expireAfter: 720h, terminationGracePeriod: 1h}}`
	tests := []struct {
		name   string
		mutate func(c *NodeClaim)
		want   string
	}{
		{"valid", func(*NodeClaim) {}, ""},
		{"no name", func(c *NodeClaim) { c.Name = "" }, `metadata.name: every object needs a name`},
		{"requirement", func(c *NodeClaim) { c.Spec.Requirements[1].Values = []string{"a b"} }, `spec.requirements[1].values[0]: invalid label value`},
		{"group required", func(c *NodeClaim) { c.Spec.NodeClassRef.Group = "" }, `spec.nodeClassRef.group: karpenter.azure.com`},
		{"kind required", func(c *NodeClaim) { c.Spec.NodeClassRef.Kind = "" }, `spec.nodeClassRef.kind: AKSNodeClass`},
		{"no ref", func(c *NodeClaim) { c.Spec.NodeClassRef = nil }, `spec.nodeClassRef: name the AKSNodeClass nodes are built from`},
		{"duplicate taint", func(c *NodeClaim) {
			taint := corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoSchedule}
			c.Spec.Taints = []corev1.Taint{taint, taint}
		}, `spec.taints[1]: duplicate taint key and effect, got "a:NoSchedule"`},
		{"startup taint", func(c *NodeClaim) { c.Spec.StartupTaints = []corev1.Taint{{Key: "a"}} }, `spec.startupTaints[0].effect: one of NoSchedule`},
		{"negative request", func(c *NodeClaim) { c.Spec.Resources.Requests["cpu"] = resource.MustParse("-1") },
			`spec.resources.requests[cpu]: must not be negative, got "-1"`},
		{"grace period", func(c *NodeClaim) { c.Spec.TerminationGracePeriod.Duration = -1 }, `spec.terminationGracePeriod: must be a non-negative whole number of seconds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fromYAML[NodeClaim](t, valid)
			tt.mutate(c)
			assertInvalid(t, c.Validate(), tt.want)
		})
	}
}

func TestValidateForMode(t *testing.T) {
	tests := []struct {
		family, mode, want string
	}{
		{ImageFamilyUbuntu, "", ""},
		{ImageFamilyAzureLinux, ProvisionModeBootstrappingClient, ""},
		{ImageFamilyUbuntu2404, ProvisionModeAKSMachineAPI, ""},
		{ImageFamilyWindows2022, ProvisionModeAKSMachineAPI, ""},
		{ImageFamilyWindows2025, ProvisionModeAKSMachineAPIHeaderBatch, ""},
		{ImageFamilyWindows2022, "", `spec.imageFamily: Windows nodes need provision mode aksmachineapi or aksmachineapiheaderbatch, not aksscriptless, got "Windows2022"`},
		{ImageFamilyWindows2025, ProvisionModeAKSScriptless, `not aksscriptless, got "Windows2025"`},
		{ImageFamilyWindows2025, ProvisionModeBootstrappingClient, `not bootstrappingclient, got "Windows2025"`},
		{ImageFamilyUbuntu, "karpenter", `provisionMode: must be one of aksscriptless, bootstrappingclient, aksmachineapi, aksmachineapiheaderbatch, got "karpenter"`},
	}
	for _, tt := range tests {
		t.Run(tt.family+"/"+tt.mode, func(t *testing.T) {
			nc := &AKSNodeClass{Spec: AKSNodeClassSpec{ImageFamily: ptr(tt.family)}}
			assertInvalid(t, nc.ValidateForMode(tt.mode), tt.want)
		})
	}
	assert.NoError(t, (&AKSNodeClass{}).ValidateForMode(""), "an unset family is Ubuntu")
}

func TestClusterNetworkValidate(t *testing.T) {
	tests := []struct {
		name string
		n    ClusterNetwork
		want string
	}{
		{"default", DefaultClusterNetwork(), ""},
		{"zero value means defaults", ClusterNetwork{}, ""},
		{"node subnet azure dataplane", ClusterNetwork{Plugin: "azure", Dataplane: "azure", Policy: "azure"}, ""},
		{"byo cni", ClusterNetwork{Plugin: "none"}, ""},
		{"cilium policy", ClusterNetwork{Policy: "cilium", Dataplane: "cilium"}, ""},
		{"kubenet", ClusterNetwork{Plugin: "kubenet"}, `plugin: kubenet is not supported by Karpenter on AKS (a documented limitation); use Azure CNI overlay, got "kubenet"`},
		{"calico", ClusterNetwork{Policy: "calico"}, `policy: Calico is not supported by Karpenter on AKS (a documented limitation); use cilium or azure network policy, got "calico"`},
		{"ipv6", ClusterNetwork{IPFamilies: []string{"IPv6"}}, `ipFamilies[0]: IPv6 and dual-stack clusters are not supported: nodes are created with a single IPv4 NIC configuration, got "IPv6"`},
		{"dual stack", ClusterNetwork{IPFamilies: []string{"IPv4", "IPv6"}}, `ipFamilies[1]: IPv6 and dual-stack clusters are not supported`},
		{"service principal", ClusterNetwork{Identity: "ServicePrincipal"}, `identity: service-principal clusters are not supported: node bootstrap uses the cluster's managed identity; use a system- or user-assigned managed identity, got "ServicePrincipal"`},
		{"unknown plugin", ClusterNetwork{Plugin: "flannel"}, `plugin: must be one of azure, none, got "flannel"`},
		{"unknown mode", ClusterNetwork{PluginMode: "underlay"}, `pluginMode: must be one of overlay, got "underlay"`},
		{"unknown dataplane", ClusterNetwork{Dataplane: "ebpf"}, `dataplane: must be one of azure, cilium, got "ebpf"`},
		{"unknown policy", ClusterNetwork{Policy: "antrea"}, `policy: must be one of cilium, azure, none, got "antrea"`},
		{"cilium policy without cilium", ClusterNetwork{Policy: "cilium", Dataplane: "azure"}, `policy: network policy cilium needs the cilium dataplane, got "cilium"`},
		{"unknown identity", ClusterNetwork{Identity: "Password"}, `identity: must be one of ManagedIdentity, got "Password"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertInvalid(t, tt.n.Validate(), tt.want)
		})
	}
}

func TestValidateCron(t *testing.T) {
	tests := []struct {
		expr, want string
	}{
		{"@daily", ""}, {"@hourly", ""}, {"@yearly", ""}, {"@annually", ""}, {"@monthly", ""}, {"@weekly", ""}, {"@midnight", ""},
		{"* * * * *", ""}, {"0 9 * * 1-5", ""}, {"*/15 0-6,22,23 1 jan-mar SUN", ""}, {"0 0 ? * ?", ""}, {"5-30/5 * * * *", ""},
		{"0 0 31 12 6", ""}, {"  0   0 *  * *  ", ""},
		{"@reboot", `unknown macro "@reboot"`},
		{"* * * *", "want 5 fields"},
		{"* * * * * *", "want 5 fields"},
		{"", "want 5 fields"},
		{"60 * * * *", "minute: value 60 is outside 0-59"},
		{"* 24 * * *", "hour: value 24 is outside 0-23"},
		{"* * 0 * *", "day of month: value 0 is outside 1-31"},
		{"* * * 13 *", "month: value 13 is outside 1-12"},
		{"* * * * 7", "day of week: value 7 is outside 0-6"},
		{"* * * foo *", `month: value "foo" is not a number`},
		{"*/0 * * * *", `minute: step "0" is not a positive integer`},
		{"5-1 * * * *", `minute: range "5-1" runs backwards`},
		{"1,,2 * * * *", `minute: value "" is not a number`},
		{"+1 * * * *", `minute: value "+1" is not a number`},
		{"TZ=UTC 0 * * * *", "want 5 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			err := validateCron(tt.expr)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestNoteString(t *testing.T) {
	assert.Equal(t, "NodePool/a: spec.x: m", Note{Object: "NodePool/a", Field: "spec.x", Message: "m"}.String())
	assert.Equal(t, "NodePool/a: m", Note{Object: "NodePool/a", Message: "m"}.String())
	assert.Equal(t, "spec.x: m", Note{Field: "spec.x", Message: "m"}.String())
	assert.Equal(t, "m", Note{Message: "m"}.String())
}
