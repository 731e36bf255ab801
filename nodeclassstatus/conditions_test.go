package nodeclassstatus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/nodeclassstatus"
)

const (
	managedSubnet = "/subscriptions/sub/resourceGroups/MC_rg_c_westus2/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/aks-subnet"
	byoSubnet     = "/subscriptions/sub/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"
	des           = "/subscriptions/sub/resourceGroups/keys/providers/Microsoft.Compute/diskEncryptionSets/des"
)

// The conditions upstream's status controller sets besides images and Kubernetes version
// (upstream: pkg/controllers/nodeclass/status/subnet.go, validation.go, localdns.go and their
// _test.go files;
// pkg/apis/v1beta1/aksnodeclass_status.go lists them, and Ready is all of them True).
func TestComputeConditions(t *testing.T) {
	type want struct {
		status  metav1.ConditionStatus // "" means the condition is not written
		reason  string
		message string
	}
	T, F := metav1.ConditionTrue, metav1.ConditionFalse
	tests := []struct {
		name                 string
		clusterSubnet, class string
		des                  string
		desChecked           bool
		desDenied            string
		subnetNotFound       string
		subnets, validation  want
		ready                want
	}{
		{name: "the cluster's own subnet", clusterSubnet: managedSubnet,
			subnets: want{status: T, reason: "SubnetsReady"}, validation: want{status: T}, ready: want{status: T}},
		{name: "no subnet configured: nothing to check", validation: want{status: T}, ready: want{status: T}},
		{name: "a class subnet in the BYO cluster VNET", clusterSubnet: byoSubnet,
			class:   "/subscriptions/sub/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/more",
			subnets: want{status: T, reason: "SubnetsReady"}, validation: want{status: T}, ready: want{status: T}},
		{name: "a subnet Azure does not have", clusterSubnet: managedSubnet, subnetNotFound: "subnet not found: " + managedSubnet,
			subnets:    want{status: F, reason: "SubnetNotFound", message: "subnet not found: " + managedSubnet},
			validation: want{status: T},
			ready:      want{status: F, reason: "NotReady", message: "SubnetsReady is False: subnet not found: " + managedSubnet}},
		{name: "a class subnet that does not parse", clusterSubnet: managedSubnet, class: "subnet-1",
			subnets:    want{status: F, reason: "SubnetIDInvalid", message: "Failed to parse vnetSubnetID subnet-1"},
			validation: want{status: T},
			ready:      want{status: F, reason: "NotReady", message: "SubnetsReady is False: Failed to parse vnetSubnetID subnet-1"}},
		{name: "a class subnet in another VNET", clusterSubnet: byoSubnet,
			class: "/subscriptions/sub/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/other/subnets/nodes",
			subnets: want{status: F, reason: "SubnetIDInvalid",
				message: "vnetSubnetID does not match the cluster subscription, resource group, or virtual network: /subscriptions/sub/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/other/subnets/nodes"},
			validation: want{status: T}, ready: want{status: F, reason: "NotReady"}},
		{name: "a class subnet in the AKS-managed VNET", clusterSubnet: managedSubnet,
			class: "/subscriptions/sub/resourceGroups/MC_rg_c_westus2/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/mine",
			subnets: want{status: F, reason: "SubnetIDInvalid",
				message: "custom subnet cannot be in the same VNet as cluster managed VNet: /subscriptions/sub/resourceGroups/MC_rg_c_westus2/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/mine"},
			validation: want{status: T}, ready: want{status: F, reason: "NotReady"}},
		{name: "a disk encryption set not read this pass: the recorded condition stays", clusterSubnet: managedSubnet, des: des,
			subnets: want{status: T, reason: "SubnetsReady"}, validation: want{status: T}, ready: want{status: T}},
		{name: "a readable disk encryption set", clusterSubnet: managedSubnet, des: des, desChecked: true,
			subnets: want{status: T, reason: "SubnetsReady"}, validation: want{status: T, reason: "ValidationSucceeded"}, ready: want{status: T}},
		{name: "a disk encryption set the identity may not read", clusterSubnet: managedSubnet, des: des, desChecked: true,
			desDenied: "no read access to the disk encryption set " + des,
			subnets:   want{status: T, reason: "SubnetsReady"},
			validation: want{status: F, reason: "DiskEncryptionSetRBACMissing",
				message: "no read access to the disk encryption set " + des},
			ready: want{status: F, reason: "NotReady", message: "ValidationSucceeded is False: no read access to the disk encryption set " + des}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class := newClass()
			// Left by an earlier pass: a condition no longer decided must go.
			for _, c := range []string{nodeclassstatus.ConditionSubnetsReady, nodeclassstatus.ConditionValidationSucceeded} {
				meta.SetStatusCondition(&class.Status.Conditions, metav1.Condition{Type: c, Status: T, Reason: c})
			}
			if tt.class != "" {
				class.Spec.VNETSubnetID = &tt.class
			}
			out := compute(t, nodeclassstatus.Input{Class: class, ServerVersion: "1.33.2", Available: ubuntu22("202611.01.0"),
				ClusterSubnetID: tt.clusterSubnet, NodeResourceGroup: "MC_rg_c_westus2", DiskEncryptionSetID: tt.des,
				DiskEncryptionSetChecked: tt.desChecked, DiskEncryptionSetDenied: tt.desDenied, SubnetNotFound: tt.subnetNotFound})
			check := func(condType string, w want) {
				t.Helper()
				c := meta.FindStatusCondition(out.Status.Conditions, condType)
				if w.status == "" {
					assert.Nil(t, c, condType)
					return
				}
				require.NotNil(t, c, condType)
				assert.Equal(t, w.status, c.Status, condType)
				if w.reason != "" {
					assert.Equal(t, w.reason, c.Reason, condType)
				}
				if w.message != "" {
					assert.Equal(t, w.message, c.Message, condType)
				}
			}
			check(nodeclassstatus.ConditionSubnetsReady, tt.subnets)
			check(nodeclassstatus.ConditionValidationSucceeded, tt.validation)
			check(nodeclassstatus.ConditionLocalDNSReady, want{status: T, reason: "LocalDNSReady"})
			check(nodeclassstatus.ConditionImagesReady, want{status: T})
			check(nodeclassstatus.ConditionReady, tt.ready)
		})
	}
}
