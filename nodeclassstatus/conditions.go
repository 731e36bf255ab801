package nodeclassstatus

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// The other AKSNodeClass condition types upstream sets, for what napkit decides too (upstream:
// pkg/apis/v1beta1/aksnodeclass_status.go; pkg/controllers/nodeclass/status/subnet.go,
// validation.go, localdns.go).
const (
	ConditionSubnetsReady        = "SubnetsReady"
	ConditionValidationSucceeded = "ValidationSucceeded"
	ConditionLocalDNSReady       = "LocalDNSReady"
)

// Upstream's reasons: a subnet napkit will not launch into; a disk encryption set the
// controlling identity may not read.
const (
	ReasonSubnetIDInvalid              = "SubnetIDInvalid"
	ReasonDiskEncryptionSetRBACMissing = "DiskEncryptionSetRBACMissing"
)

// ConditionTypes are every condition type Compute writes, Ready last.
var ConditionTypes = []string{ConditionKubernetesVersionReady, ConditionImagesReady, ConditionSubnetsReady,
	ConditionValidationSucceeded, ConditionLocalDNSReady, ConditionReady}

// AKS names the subnet of a VNET it manages aks-subnet, in aks-vnet-<8 digits> in the node
// resource group (upstream: pkg/utils/utils.go IsAKSManagedVNET).
var managedVNET = regexp.MustCompile(`(?i)^aks-vnet-\d{8}$`)

const managedSubnet = "aks-subnet"

// subnets is upstream's SubnetsReady check without its subnet GET: the subnet the class's nodes
// join (spec.vnetSubnetID, else the cluster's) must parse, and a subnet other than the cluster's
// must be in the cluster's VNET, which must not be one AKS manages. checked is false when there
// is no subnet to check (no cluster subnet configured and none in the class).
func (in Input) subnets() (ok bool, msg string, checked bool) {
	id := in.ClusterSubnetID
	if s := in.Class.Spec.VNETSubnetID; s != nil && *s != "" {
		id = *s
	}
	if id == "" {
		return true, "", false
	}
	sub, err := bootstrap.ParseSubnetID(id)
	if err != nil {
		return false, fmt.Sprintf("Failed to parse vnetSubnetID %s", id), true
	}
	if strings.EqualFold(id, in.ClusterSubnetID) {
		return true, "", true
	}
	cluster, err := bootstrap.ParseSubnetID(in.ClusterSubnetID)
	if err != nil {
		return true, "", true // upstream assumes the cluster's subnet valid and lets the class's pass
	}
	sameVNET := strings.EqualFold(sub.SubscriptionID, cluster.SubscriptionID) &&
		strings.EqualFold(sub.ResourceGroup, cluster.ResourceGroup) && strings.EqualFold(sub.VirtualNetwork, cluster.VirtualNetwork)
	managed := managedVNET.MatchString(cluster.VirtualNetwork) && strings.EqualFold(cluster.ResourceGroup, in.NodeResourceGroup) &&
		strings.EqualFold(cluster.Name, managedSubnet)
	switch {
	case managed && sameVNET:
		return false, fmt.Sprintf("custom subnet cannot be in the same VNet as cluster managed VNet: %s", id), true
	case !sameVNET:
		return false, fmt.Sprintf("vnetSubnetID does not match the cluster subscription, resource group, or virtual network: %s", id), true
	}
	return true, "", true
}
