package launch

import (
	"maps"
	"strings"
	"time"
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
	// TagNICCreatedAt records, on NICs only, when the launcher wrote the NIC
	// (RFC 3339). ARM keeps no creation time for NICs, and the garbage
	// collector needs one to spare NICs of launches still in flight.
	TagNICCreatedAt = "napkit.io_created-at"
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
	out[TagNICCreatedAt] = now.UTC().Format(time.RFC3339)
	return out
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
