package requirements

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// instanceTypeLabels are the single-valued labels the catalogue gives a Standard_D<cpu>s_v5: every
// well-known label plus a few more, about thirty in all.
func instanceTypeLabels(cpu int) map[string]string {
	name := "Standard_D" + strconv.Itoa(cpu) + "s_v5"
	mem := strconv.Itoa(cpu * 4 * 1024)
	return map[string]string{
		api.LabelInstanceType: name, api.LabelSKUName: name, api.LabelArch: api.ArchAMD64,
		api.LabelOS: api.OSLinux, api.LabelRegion: "eastus", api.LabelSKUFamily: "D",
		api.LabelSKUSeries: "Dsv5", api.LabelSKUVersion: "5", api.LabelSKUCPU: strconv.Itoa(cpu),
		api.LabelSKUMemory: mem, api.LabelSKUAcceleratedNetworking: "true",
		api.LabelSKUPremiumStorage: "true", api.LabelSKUUltraSSD: "false",
		api.LabelSKUEphemeralOSMaxSize: "0", api.LabelSKUGPUCount: "0", api.LabelSKUGPUName: "",
		api.LabelSKUGPUManufacturer: "", api.LabelSKUHyperVGeneration: "V2",
		api.LabelAKSSKUCPU: strconv.Itoa(cpu), api.LabelAKSSKUMemory: mem,
		api.LabelAKSMode: "user", api.LabelAKSOSSKU: "Ubuntu", api.LabelAKSFIPSEnabled: "true",
		api.LabelAKSCluster: "MC_rg_aks_eastus", api.LabelAKSEBPFDataplane: "false",
		api.LabelPlacementScope: api.PlacementScopeZonal, api.LabelWindowsBuild: "",
		"kubernetes.azure.com/network-policy": "none", api.LabelAKSNodeClass: "default",
		api.LabelNodePool: "default",
	}
}

// instanceType is what the catalogue builds for one instance type: its labels, the zones and the
// capacity types its offerings span.
func instanceType(cpu int) Requirements {
	rs := FromLabels(instanceTypeLabels(cpu))
	rs.Add(
		NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-1", "eastus-2", "eastus-3"),
		NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeSpot, api.CapacityTypeOnDemand),
	)
	return rs
}

// nodePool is a typical NodePool's requirements: the ones in the Node Auto Provisioning guide.
func nodePool() Requirements {
	return FromAPI([]api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D", "E", "F"}},
		{Key: api.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{api.ArchAMD64}},
		{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{api.CapacityTypeOnDemand}},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{"2"}},
	})
}
