package azuresim_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

// TestNICIPConfigurationRefusals: ARM refuses a NIC with more IP configurations than a NIC may have
// (256 private IPs) or, with several, not exactly one primary; Azure CNI node-subnet NICs of 250 pods
// fit.
func TestNICIPConfigurationRefusals(t *testing.T) {
	tests := []struct {
		name      string
		configs   int
		primaries int
		code      string
	}{
		{"one", 1, 1, ""},
		{"maxPods 250", 250, 1, ""},
		{"limit", azuresim.MaxIPConfigurationsPerNIC, 1, ""},
		{"over the limit", azuresim.MaxIPConfigurationsPerNIC + 1, 1, "TooManyIpConfigurationsPerNic"},
		{"no primary", 30, 0, "NetworkInterfaceMustHaveExactlyOnePrimaryIpConfiguration"},
		{"two primaries", 30, 2, "NetworkInterfaceMustHaveExactlyOnePrimaryIpConfiguration"},
	}
	c := newClients(t, azuresim.Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var configs []*armnetwork.InterfaceIPConfiguration
			for i := range tc.configs {
				configs = append(configs, &armnetwork.InterfaceIPConfiguration{Name: to.Ptr(fmt.Sprintf("ipconfig%d", i)),
					Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
						Primary: to.Ptr(i < tc.primaries), Subnet: &armnetwork.Subnet{ID: to.Ptr("/subnets/s")}}})
			}
			_, err := c.nics.BeginCreateOrUpdate(context.Background(), rg, "nic", armnetwork.Interface{
				Location: to.Ptr(c.sim.Location()), Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: configs},
			}, nil)
			if tc.code == "" {
				require.NoError(t, err)
				return
			}
			code, status := armCode(t, err)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, http.StatusBadRequest, status)
		})
	}
}

// TestTrustedLaunchImageNeedsTrustedLaunchVM: a gallery image of a TL definition boots only on a VM
// whose securityProfile.securityType is TrustedLaunch; ARM refuses the VM otherwise
// (kubermatic/machine-controller#2013 quotes ARM's answer).
func TestTrustedLaunchImageNeedsTrustedLaunchVM(t *testing.T) {
	const tlImage = "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2TLcontainerd/versions/202601.10.0"
	const plainImage = "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202601.10.0"
	tl := &armcompute.SecurityProfile{SecurityType: to.Ptr(armcompute.SecurityTypesTrustedLaunch),
		UefiSettings: &armcompute.UefiSettings{SecureBootEnabled: to.Ptr(true), VTpmEnabled: to.Ptr(true)}}
	tests := []struct {
		name     string
		image    string
		security *armcompute.SecurityProfile
		refused  bool
	}{
		{"TL image on a TL VM", tlImage, tl, false},
		{"TL image without securityType", tlImage, nil, true},
		{"TL image with encryption at host only", tlImage, &armcompute.SecurityProfile{EncryptionAtHost: to.Ptr(true)}, true},
		{"plain image on a plain VM", plainImage, nil, false},
		{"plain image on a TL VM", plainImage, tl, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClients(t, azuresim.Options{})
			name := fmt.Sprintf("vm%d", i)
			vm := vmBody(c.sim.Location(), "Standard_D2s_v5", c.putNIC(t, name), "1", false)
			vm.Properties.StorageProfile = &armcompute.StorageProfile{ImageReference: &armcompute.ImageReference{CommunityGalleryImageID: to.Ptr(tc.image)}}
			vm.Properties.SecurityProfile = tc.security
			p, err := c.vms.BeginCreateOrUpdate(context.Background(), rg, name, vm, nil)
			if !tc.refused {
				require.NoError(t, err)
				_, err = p.PollUntilDone(context.Background(), poll)
				require.NoError(t, err)
				return
			}
			code, status := armCode(t, err)
			assert.Equal(t, "BadRequest", code)
			assert.Equal(t, http.StatusBadRequest, status)
			assert.ErrorContains(t, err, "only supports creation of VMs and VM Scale Sets with 'TrustedLaunch' security type")
		})
	}
}
