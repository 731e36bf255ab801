package azure_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

const (
	identity1 = "/subscriptions/sub/resourceGroups/ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet"
	identity2 = "/subscriptions/sub/resourceGroups/ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/extra"
	pool1     = "/subscriptions/sub/resourceGroups/mc/providers/Microsoft.Network/loadBalancers/kubernetes/backendAddressPools/kubernetes"
	pool2     = "/subscriptions/sub/resourceGroups/mc/providers/Microsoft.Network/loadBalancers/kubernetes/backendAddressPools/aksOutboundBackendPool"
	nsgID     = "/subscriptions/sub/resourceGroups/mc/providers/Microsoft.Network/networkSecurityGroups/aks-agentpool-nsg"
	desID     = "/subscriptions/sub/resourceGroups/keys/providers/Microsoft.Compute/diskEncryptionSets/des"
)

// The VM and NIC bodies the real SDK clients send, field by field.
func TestCreateRequestBodies(t *testing.T) {
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	ephemeral := func(c launch.Candidate, placement string, maxGB int32) launch.Candidate {
		c.EphemeralOSDiskPlacement, c.EphemeralOSDiskMaxGB = placement, maxGB
		return c
	}
	tests := []struct {
		name      string
		candidate launch.Candidate
		mutate    func(*launch.Request)
		wantVM    map[string]any
		absentVM  []string
		wantNIC   map[string]any
		absentNIC []string
		wantInst  launch.Instance
	}{
		{
			name:      "on-demand zonal ephemeral community image, all security features",
			candidate: ephemeral(candidate("Standard_D8s_v5", 8, offering("westus2-2", od, 0.4)), "CacheDisk", 200),
			mutate: func(r *launch.Request) {
				r.Identities = []string{identity1, identity2}
				r.LoadBalancerBackendPools = []string{pool1, pool2}
				r.EncryptionAtHost = true
				r.TrustedLaunch = launch.TrustedLaunch{Enabled: true, SecureBoot: true, VTPM: true}
				r.UltraSSD = true
				r.Tags = map[string]string{"team/owner": "infra", "karpenter.sh_nodepool": "spoofed"}
			},
			wantVM: map[string]any{
				"location":                          "westus2",
				"zones":                             []any{"2"},
				"identity.type":                     "UserAssigned",
				"identity.userAssignedIdentities":   map[string]any{identity1: map[string]any{}, identity2: map[string]any{}},
				"properties.hardwareProfile.vmSize": "Standard_D8s_v5",
				"properties.priority":               "Regular",
				"properties.storageProfile.imageReference.communityGalleryImageId":      testCIG,
				"properties.storageProfile.osDisk.name":                                 "aks-body-1",
				"properties.storageProfile.osDisk.diskSizeGB":                           float64(128),
				"properties.storageProfile.osDisk.createOption":                         "FromImage",
				"properties.storageProfile.osDisk.deleteOption":                         "Delete",
				"properties.storageProfile.osDisk.caching":                              "ReadOnly",
				"properties.storageProfile.osDisk.diffDiskSettings.option":              "Local",
				"properties.storageProfile.osDisk.diffDiskSettings.placement":           "CacheDisk",
				"properties.networkProfile.networkInterfaces.0.id":                      "/subscriptions/" + azuresim.DefaultSubscriptionID + "/resourceGroups/" + testRG + "/providers/Microsoft.Network/networkInterfaces/aks-body-1",
				"properties.networkProfile.networkInterfaces.0.properties.primary":      true,
				"properties.networkProfile.networkInterfaces.0.properties.deleteOption": "Delete",
				"properties.osProfile.adminUsername":                                    "azureuser",
				"properties.osProfile.computerName":                                     "aks-body-1",
				"properties.osProfile.customData":                                       testCustomData,
				"properties.osProfile.linuxConfiguration.disablePasswordAuthentication": true,
				"properties.osProfile.linuxConfiguration.ssh.publicKeys.0.path":         "/home/azureuser/.ssh/authorized_keys",
				"properties.osProfile.linuxConfiguration.ssh.publicKeys.0.keyData":      testSSHKey,
				"properties.securityProfile.encryptionAtHost":                           true,
				"properties.securityProfile.securityType":                               "TrustedLaunch",
				"properties.securityProfile.uefiSettings.secureBootEnabled":             true,
				"properties.securityProfile.uefiSettings.vTpmEnabled":                   true,
				"properties.additionalCapabilities.ultraSSDEnabled":                     true,
				"tags": map[string]any{
					"karpenter.azure.com_cluster": testCluster, "karpenter.sh_nodepool": "default",
					"compute.aks.billing": "linux", "team_owner": "infra",
				},
			},
			absentVM: []string{
				"properties.storageProfile.imageReference.id", "properties.storageProfile.osDisk.managedDisk",
				"properties.osProfile.adminPassword", "properties.evictionPolicy", "properties.billingProfile",
			},
			wantNIC: map[string]any{
				"location":                                                                      "westus2",
				"properties.enableAcceleratedNetworking":                                        true,
				"properties.enableIPForwarding":                                                 false,
				"properties.ipConfigurations.0.name":                                            "aks-body-1",
				"properties.ipConfigurations.0.properties.primary":                              true,
				"properties.ipConfigurations.0.properties.privateIPAllocationMethod":            "Dynamic",
				"properties.ipConfigurations.0.properties.privateIPAddressVersion":              "IPv4",
				"properties.ipConfigurations.0.properties.subnet.id":                            testSubnet,
				"properties.ipConfigurations.0.properties.loadBalancerBackendAddressPools.0.id": pool1,
				"properties.ipConfigurations.0.properties.loadBalancerBackendAddressPools.1.id": pool2,
				"tags": map[string]any{
					"karpenter.azure.com_cluster": testCluster, "karpenter.sh_nodepool": "default",
					"compute.aks.billing": "linux", "team_owner": "infra", "napkit.io_created-at": "2026-01-02T03:04:05Z",
				},
			},
			absentNIC: []string{"properties.networkSecurityGroup"},
			wantInst: launch.Instance{Name: "aks-body-1", SKU: "Standard_D8s_v5", Zone: "westus2-2", CapacityType: od,
				NodeClaimName: "body-1", NodePool: "default", ImageID: testCIG, State: launch.StateSucceeded},
		},
		{
			name:      "spot regional managed disk shared gallery image",
			candidate: ephemeral(candidate("Standard_D2s_v5", 2, offering("0", spot, 0.02)), "CacheDisk", 50),
			mutate: func(r *launch.Request) {
				r.Image = launch.ImageRef{SharedGalleryID: testSIG}
				r.AdminUsername = "napkit"
				r.OSDiskEncryptionSetID = desID
				r.NetworkSecurityGroupID = nsgID
				r.Candidates[0].AcceleratedNetworking = false
			},
			wantVM: map[string]any{
				"properties.hardwareProfile.vmSize":                                     "Standard_D2s_v5",
				"properties.priority":                                                   "Spot",
				"properties.evictionPolicy":                                             "Delete",
				"properties.billingProfile.maxPrice":                                    float64(-1),
				"properties.storageProfile.imageReference.id":                           testSIG,
				"properties.storageProfile.osDisk.diskSizeGB":                           float64(128),
				"properties.storageProfile.osDisk.deleteOption":                         "Delete",
				"properties.storageProfile.osDisk.managedDisk.diskEncryptionSet.id":     desID,
				"properties.osProfile.adminUsername":                                    "napkit",
				"properties.osProfile.linuxConfiguration.ssh.publicKeys.0.path":         "/home/napkit/.ssh/authorized_keys",
				"properties.osProfile.linuxConfiguration.disablePasswordAuthentication": true,
			},
			absentVM: []string{
				"zones", "identity", "properties.storageProfile.imageReference.communityGalleryImageId",
				"properties.storageProfile.osDisk.diffDiskSettings", "properties.storageProfile.osDisk.caching",
				"properties.securityProfile", "properties.additionalCapabilities",
			},
			wantNIC: map[string]any{
				"properties.enableAcceleratedNetworking": false,
				"properties.networkSecurityGroup.id":     nsgID,
			},
			absentNIC: []string{"properties.ipConfigurations.0.properties.loadBalancerBackendAddressPools"},
			wantInst: launch.Instance{Name: "aks-body-1", SKU: "Standard_D2s_v5", Zone: "0", CapacityType: spot,
				NodeClaimName: "body-1", NodePool: "default", ImageID: testSIG, State: launch.StateSucceeded},
		},
		{
			name:      "ephemeral on NVMe at the placement's exact size",
			candidate: ephemeral(candidate("Standard_D16s_v5", 16, offering("westus2-3", spot, 0.1)), "NvmeDisk", 128),
			wantVM: map[string]any{
				"zones": []any{"3"},
				"properties.storageProfile.osDisk.diffDiskSettings.placement": "NvmeDisk",
				"properties.storageProfile.osDisk.caching":                    "ReadOnly",
				"properties.priority":                                         "Spot",
			},
			absentVM: []string{"properties.storageProfile.osDisk.managedDisk"},
			wantInst: launch.Instance{Name: "aks-body-1", SKU: "Standard_D16s_v5", Zone: "westus2-3", CapacityType: spot,
				NodeClaimName: "body-1", NodePool: "default", ImageID: testCIG, State: launch.StateSucceeded},
		},
		{
			// The plan priced a Premium_LRS disk (instancetype.ChooseOSDisk): the body names it, so the
			// bill matches the plan rather than Azure's default for the image.
			name: "managed disk of the type the plan priced",
			candidate: func() launch.Candidate {
				c := candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1))
				c.OSDiskStorageAccountType = "Premium_LRS"
				return c
			}(),
			mutate: func(r *launch.Request) { r.OSDiskEncryptionSetID = desID },
			wantVM: map[string]any{
				"properties.storageProfile.osDisk.managedDisk.storageAccountType":   "Premium_LRS",
				"properties.storageProfile.osDisk.managedDisk.diskEncryptionSet.id": desID,
			},
			absentVM: []string{"properties.storageProfile.osDisk.diffDiskSettings"},
			wantInst: launch.Instance{Name: "aks-body-1", SKU: "Standard_D2s_v5", Zone: "westus2-1", CapacityType: od,
				NodeClaimName: "body-1", NodePool: "default", ImageID: testCIG, State: launch.StateSucceeded},
		},
		{
			name:      "no ephemeral placement: managed",
			candidate: candidate("Standard_D4s_v5", 4, offering("westus2-1", od, 0.2)),
			absentVM:  []string{"properties.storageProfile.osDisk.diffDiskSettings", "properties.storageProfile.osDisk.managedDisk"},
			wantInst: launch.Instance{Name: "aks-body-1", SKU: "Standard_D4s_v5", Zone: "westus2-1", CapacityType: od,
				NodeClaimName: "body-1", NodePool: "default", ImageID: testCIG, State: launch.StateSucceeded},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, azuresim.Options{})
			req := request("body-1", tt.candidate)
			if tt.mutate != nil {
				tt.mutate(req)
			}
			inst, err := f.launcher.Create(context.Background(), req)
			require.NoError(t, err)

			vm := lastPut(t, f.sim, azuresim.OpVMPut, "aks-body-1")
			for path, want := range tt.wantVM {
				assert.Equal(t, want, field(vm, path), "VM %s", path)
			}
			for _, path := range tt.absentVM {
				assert.Nil(t, field(vm, path), "VM %s", path)
			}
			nic := lastPut(t, f.sim, azuresim.OpNICPut, "aks-body-1")
			for path, want := range tt.wantNIC {
				assert.Equal(t, want, field(nic, path), "NIC %s", path)
			}
			for _, path := range tt.absentNIC {
				assert.Nil(t, field(nic, path), "NIC %s", path)
			}

			want := tt.wantInst
			want.ProviderID = "azure:///subscriptions/" + azuresim.DefaultSubscriptionID + "/resourceGroups/mc_rg_napkit_westus2/providers/Microsoft.Compute/virtualMachines/aks-body-1"
			want.CreatedAt = f.clock.Now()
			want.Tags = inst.Tags
			assert.Equal(t, &want, inst)
			assert.Equal(t, "default", inst.Tags[azure.TagNodePool])
			assert.Equal(t, time.UTC, inst.CreatedAt.Location())
		})
	}
}
