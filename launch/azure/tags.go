package azure

import (
	"maps"
	"strings"
	"time"

	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// Tags napkit writes on every VM and NIC it creates.
const (
	// TagCluster marks a resource as owned by the cluster's autoprovisioner;
	// List and the garbage collector only ever see resources with it.
	TagCluster = "karpenter.azure.com_cluster"
	// TagNodePool names the NodePool.
	TagNodePool = "karpenter.sh_nodepool"
	// TagBilling is the AKS billing tag for Linux nodes.
	TagBilling = "compute.aks.billing"
	// TagCreatedAt records, on NICs and AKS Machines, when the launcher wrote
	// them (RFC 3339). ARM keeps no creation time for either, and the garbage
	// collector needs one to spare launches still in flight.
	TagCreatedAt = "napkit.io_created-at"
	// TagNICCreatedAt is TagCreatedAt's earlier name.
	TagNICCreatedAt = TagCreatedAt
	// TagMachineNodeClaim names the NodeClaim of an AKS Machine. AKS copies
	// machine tags to the machine's VM, so VM listings skip VMs carrying it:
	// they belong to a machine, not to a VM-mode launch.
	TagMachineNodeClaim = bootstrap.TagNodeClaim
)

// resourceTags merges the AKSNodeClass tags (keys with "/" rewritten to "_",
// which ARM tag keys cannot hold) under the launcher's own tags.
func resourceTags(clusterName, nodePool string, nodeClassTags map[string]string) map[string]string {
	tags := make(map[string]string, len(nodeClassTags)+3)
	for k, v := range nodeClassTags {
		tags[strings.ReplaceAll(k, "/", "_")] = v
	}
	tags[TagCluster] = clusterName
	tags[TagNodePool] = nodePool
	tags[TagBilling] = "linux"
	return tags
}

// nicTags are the resource tags plus the NIC creation time.
func nicTags(tags map[string]string, now time.Time) map[string]string {
	out := maps.Clone(tags)
	out[TagCreatedAt] = createdAt(now)
	return out
}

// createdAt formats a TagCreatedAt value.
func createdAt(now time.Time) string { return now.UTC().Format(time.RFC3339) }

// parseCreatedAt reads a TagCreatedAt value; a missing or unreadable one is
// the zero time, which counts as old.
func parseCreatedAt(v string) time.Time {
	t, _ := time.Parse(time.RFC3339, v)
	return t
}

// toARMTags converts tags to the SDK's pointer map.
func toARMTags(tags map[string]string) map[string]*string {
	out := make(map[string]*string, len(tags))
	for k, v := range tags {
		out[k] = &v
	}
	return out
}

// fromARMTags converts the SDK's pointer map to plain tags.
func fromARMTags(tags map[string]*string) map[string]string {
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}
