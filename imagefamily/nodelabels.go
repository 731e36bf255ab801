package imagefamily

import (
	"maps"
	"strconv"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// AKS labels napkit writes on every node, beyond those in package api.
const (
	LabelRole                    = "kubernetes.azure.com/role"
	LabelKubeletIdentityClientID = "kubernetes.azure.com/kubelet-identity-client-id"
	LabelLocalDNSState           = "kubernetes.azure.com/localdns-state"
	LabelArtifactStreaming       = "kubernetes.azure.com/artifactstreaming-enabled"
)

// LocalDNS needs room for its per-node proxy: the catalogue keeps smaller sizes out when it is enabled.
const (
	localDNSMinVCPUs     = 4
	localDNSMinMemoryMiB = 244
)

// labelContext is what the derived labels depend on.
type labelContext struct {
	in      Input
	family  Family
	fips    bool
	network bootstrap.NetworkSettings
}

// nodeLabels returns every label the node carries, in the order the Karpenter provider for Azure
// merges them: AKS's base, image and network labels; the NodeClaim's labels; every single-valued label
// of the chosen instance type; and last the labels of the chosen offering and the ultra SSD decision.
func nodeLabels(c labelContext) map[string]string {
	labels := baseLabels(c.in)
	maps.Copy(labels, ImageLabels(requestedFamily(c.in.NodeClass), c.family, c.fips))
	maps.Copy(labels, c.network.Labels)
	maps.Copy(labels, c.in.Labels)
	maps.Copy(labels, c.in.Shape.Labels)
	maps.Copy(labels, schedulingLabels(c.in, c.family))
	labels[api.LabelSKUUltraSSD] = strconv.FormatBool(c.in.UltraSSD)
	return labels
}

// baseLabels are the labels AKS puts on all its nodes (reference section 6.3).
func baseLabels(in Input) map[string]string {
	priority := api.PriorityRegular
	if in.isSpot() {
		priority = api.PrioritySpot
	}
	labels := map[string]string{
		LabelRole:                    "agent",
		api.LabelAKSMode:             "user",
		api.LabelDoNotSyncTaints:     "true",
		api.LabelAKSScaleSetPriority: priority,
		api.LabelAKSPriority:         priority,
		LabelLocalDNSState:           localDNSState(in),
	}
	if rg := in.Cluster.NodeResourceGroup; rg != "" {
		labels[api.LabelAKSCluster] = ClusterLabelValue(rg)
	}
	if id := in.Cluster.KubeletIdentityClientID; id != "" {
		labels[LabelKubeletIdentityClientID] = id
	}
	if artifactStreaming(in.NodeClass) && in.Shape.Arch != api.ArchARM64 {
		labels[LabelArtifactStreaming] = "true"
	}
	return labels
}

// schedulingLabels are the well-known labels of the chosen size and offering, which Karpenter also
// puts on the NodeClaim.
func schedulingLabels(in Input, f Family) map[string]string {
	capacityType := in.CapacityType
	if capacityType == "" {
		capacityType = api.CapacityTypeOnDemand
	}
	zone, scope := regionalZone(in.Zone)
	labels := map[string]string{
		api.LabelInstanceType:   in.Shape.SKUName,
		api.LabelSKUName:        in.Shape.SKUName,
		api.LabelArch:           in.Shape.Arch,
		api.LabelOS:             f.OS(),
		api.LabelCapacityType:   capacityType,
		api.LabelZone:           zone,
		api.LabelPlacementScope: scope,
	}
	if in.Cluster.Location != "" {
		labels[api.LabelRegion] = in.Cluster.Location
	}
	if in.NodePool != "" {
		labels[api.LabelNodePool] = in.NodePool
	}
	if in.NodeClass != nil && in.NodeClass.Name != "" {
		labels[api.LabelAKSNodeClass] = in.NodeClass.Name
	}
	return labels
}

// regionalZone maps "" to the regional sentinel "0" and returns the zone label and placement scope.
func regionalZone(zone string) (string, string) {
	if zone == "" || zone == api.RegionalZone {
		return api.RegionalZone, api.PlacementScopeRegional
	}
	return zone, api.PlacementScopeZonal
}

// armZones returns the ARM zone list for a zone label: ["1"] for "eastus-1", none for regional.
func armZones(zone string) []string {
	z, scope := regionalZone(zone)
	if scope == api.PlacementScopeRegional {
		return nil
	}
	return []string{z[strings.LastIndexByte(z, '-')+1:]}
}

// localDNSState is the localdns-state label: "enabled" exactly when the node's bootstrap data enables
// LocalDNS (Generate refuses a node where it is enabled but cannot be).
func localDNSState(in Input) string {
	if in.NodeClass.LocalDNSEnabled() {
		return "enabled"
	}
	return "disabled"
}

// ClusterLabelValue turns the node resource group into a valid kubernetes.azure.com/cluster value, as
// AKS does: parentheses become dashes, the value is cut to 63 characters, and one ending in a
// character a label may not end with gets a trailing "z".
func ClusterLabelValue(resourceGroup string) string {
	const maxLen = 63
	v := strings.NewReplacer("(", "-", ")", "-").Replace(resourceGroup)
	if len(v) > maxLen {
		v = v[:maxLen]
	}
	if v != "" && strings.ContainsAny(v[len(v)-1:], "-_.") {
		if len(v) == maxLen {
			v = v[:maxLen-1]
		}
		v += "z"
	}
	return v
}

func requestedFamily(nc *api.AKSNodeClass) string {
	if nc == nil || nc.Spec.ImageFamily == nil {
		return ""
	}
	return *nc.Spec.ImageFamily
}

func artifactStreaming(nc *api.AKSNodeClass) bool {
	return nc != nil && nc.Spec.ArtifactStreaming != nil && isTrue(nc.Spec.ArtifactStreaming.Enabled)
}
