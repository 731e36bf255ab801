package nodeclassstatus

import (
	"fmt"
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
	ReasonSubnetNotFound               = "SubnetNotFound"
	ReasonDiskEncryptionSetRBACMissing = "DiskEncryptionSetRBACMissing"
)

// ConditionTypes are every condition type Compute writes, Ready last.
var ConditionTypes = []string{ConditionKubernetesVersionReady, ConditionImagesReady, ConditionSubnetsReady,
	ConditionValidationSucceeded, ConditionLocalDNSReady, ConditionReady}

// subnets is upstream's SubnetsReady check: the subnet the class's nodes join must parse, a
// subnet other than the cluster's must be in the cluster's VNET, which must not be one AKS
// manages, and the subnet must exist (Input.SubnetNotFound). checked is false when there is no
// subnet to check (no cluster subnet configured and none in the class).
func (in Input) subnets() (ok bool, reason, msg string, checked bool) {
	id := in.Class.SubnetID(in.ClusterSubnetID)
	if id == "" {
		return true, "", "", false
	}
	ok, msg = in.subnetInCluster(id)
	switch {
	case !ok:
		return false, ReasonSubnetIDInvalid, msg, true
	case in.SubnetNotFound != "":
		return false, ReasonSubnetNotFound, in.SubnetNotFound, true
	}
	return true, "", "", true
}

// subnetInCluster is upstream's check of the subnet ID against the cluster's.
func (in Input) subnetInCluster(id string) (bool, string) {
	sub, err := bootstrap.ParseSubnetID(id)
	if err != nil {
		return false, fmt.Sprintf("Failed to parse vnetSubnetID %s", id)
	}
	if strings.EqualFold(id, in.ClusterSubnetID) {
		return true, ""
	}
	cluster, err := bootstrap.ParseSubnetID(in.ClusterSubnetID)
	if err != nil {
		return true, "" // upstream assumes the cluster's subnet valid and lets the class's pass
	}
	sameVNET := strings.EqualFold(sub.SubscriptionID, cluster.SubscriptionID) &&
		strings.EqualFold(sub.ResourceGroup, cluster.ResourceGroup) && strings.EqualFold(sub.VirtualNetwork, cluster.VirtualNetwork)
	managed := cluster.InAKSManagedVNET(in.NodeResourceGroup)
	switch {
	case managed && sameVNET:
		return false, fmt.Sprintf("custom subnet cannot be in the same VNet as cluster managed VNet: %s", id)
	case !sameVNET:
		return false, fmt.Sprintf("vnetSubnetID does not match the cluster subscription, resource group, or virtual network: %s", id)
	}
	return true, ""
}
