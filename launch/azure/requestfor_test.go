package azure_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
)

// generated is imagefamily's output for the offering an instance landed on, built here from the
// request options directly.
func generated(t *testing.T, opts launch.RequestOptions, it *instancetype.InstanceType, inst *launch.Instance) *imagefamily.Output {
	t.Helper()
	in := imagefamily.Input{Mode: opts.Mode, NodeClass: opts.NodeClass, NodePool: "default", NodeClaim: opts.NodeClaim.Name,
		Labels: opts.NodeClaim.Labels, Cluster: opts.Cluster.Cluster, Images: opts.Images,
		Shape: imagefamily.ShapeOf(it), Zone: inst.Zone, CapacityType: inst.CapacityType}
	out, err := imagefamily.Generate(in)
	require.NoError(t, err)
	return out
}

// unavailable marks every offering of a candidate unavailable.
func unavailable(c *launch.Candidate) {
	for i := range c.Offerings {
		c.Offerings[i].Available = false
	}
}

// The request RequestFor builds, and the bootstrap the launcher sends being
// generated for the offering it picked, not the planned one.
func TestRequestForScriptless(t *testing.T) {
	opts := requestOptions(t, imagefamily.ModeScriptless, "Standard_D2s_v3", "Standard_D4s_v3")
	req, err := launch.RequestFor(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, "default-x7k2p", req.NodeClaimName)
	assert.Equal(t, "default", req.NodePool)
	assert.ElementsMatch(t, []string{"Standard_D2s_v3", "Standard_D4s_v3"}, []string{req.Candidates[0].SKU, req.Candidates[1].SKU})
	assert.Equal(t, "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202606.01.0",
		req.Image.CommunityGalleryImageID)
	assert.Empty(t, req.Image.SharedGalleryID)
	assert.Equal(t, int32(100), req.OSDiskSizeGB)
	assert.Equal(t, clusterSubnet, req.SubnetID)
	assert.Equal(t, map[string]string{"team/owner": "infra"}, req.Tags)
	assert.Equal(t, []string{identity1}, req.Identities)
	assert.Zero(t, req.PodIPConfigurations, "overlay: pods do not take the NIC's addresses")
	assert.NotNil(t, req.BootstrapFor)
	require.NoError(t, req.Validate())
	assert.Equal(t, kubeletClientID, req.Planned.NodeLabels["kubernetes.azure.com/kubelet-identity-client-id"])
	assert.Equal(t, vnetGUID, req.Planned.NodeLabels["kubernetes.azure.com/nodenetwork-vnetguid"])

	types := launch.InstanceTypesFor(opts.NodeClaim, opts.Catalogue)
	planned := req.Planned.NodeLabels[api.LabelInstanceType]
	for i := range req.Candidates {
		if req.Candidates[i].SKU == planned {
			unavailable(&req.Candidates[i]) // the launcher must fall to the other size
		}
	}
	f := newFixture(t, catalogueSim(types))
	inst, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	require.NotEqual(t, planned, inst.SKU)
	other, _ := opts.Catalogue.Find(inst.SKU)
	want := generated(t, opts, other, inst)
	vm := lastPut(t, f.sim, "vm.put", "aks-default-x7k2p")
	assert.Equal(t, string(want.CustomData.Reveal()), field(vm, "properties.osProfile.customData"))
	assert.NotEqual(t, req.CustomData.Reveal(), field(vm, "properties.osProfile.customData"), "the two sizes reserve differently")
	assert.Equal(t, want.Image.Reference.ID, field(vm, "properties.storageProfile.imageReference.communityGalleryImageId"))
}

// TestRequestForNodeClassAndCluster: every VM setting comes from the node class, the claim or the
// cluster settings, as upstream's VM provider takes them.
// upstream: pkg/providers/instance/vminstance.go (newVMObject: NodeIdentities, DiskEncryptionSetID,
// setVMPropertiesSecurityProfile, resolveUltraSSDRequested; newNetworkInterfaceForVM: secondary IP
// configurations for Azure CNI without overlay)
func TestRequestForNodeClassAndCluster(t *testing.T) {
	classSubnet := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/class"
	nodeSubnet := api.DefaultClusterNetwork()
	nodeSubnet.PluginMode = ""
	byoCNI := api.DefaultClusterNetwork()
	byoCNI.Plugin, byoCNI.PluginMode = api.NetworkPluginNone, ""
	tests := []struct {
		name   string
		mutate func(*launch.RequestOptions)
		check  func(*testing.T, *launch.Request)
	}{
		{"subnet from the node class", func(o *launch.RequestOptions) { o.NodeClass.Spec.VNETSubnetID = &classSubnet },
			func(t *testing.T, r *launch.Request) { assert.Equal(t, classSubnet, r.SubnetID) }},
		{"encryption at host", func(o *launch.RequestOptions) { o.NodeClass.Spec.Security = &api.Security{EncryptionAtHost: new(true)} },
			func(t *testing.T, r *launch.Request) {
				assert.True(t, r.EncryptionAtHost)
				assert.False(t, r.TrustedLaunch.Enabled)
			}},
		{"trusted launch", func(o *launch.RequestOptions) {
			o.NodeClass.Spec.Security = &api.Security{SecureBoot: new(true), VTPM: new(false)}
		}, func(t *testing.T, r *launch.Request) {
			assert.Equal(t, launch.TrustedLaunch{Enabled: true, SecureBoot: true, VTPM: false}, r.TrustedLaunch)
			assert.Contains(t, r.Image.CommunityGalleryImageID, "/images/2204gen2TLcontainerd/", "a TL node class boots a TL image")
		}},
		{"disk encryption set and identities", func(o *launch.RequestOptions) {
			o.Cluster.DiskEncryptionSetID = desID
			o.Cluster.NodeIdentities = []string{identity1, identity2}
		}, func(t *testing.T, r *launch.Request) {
			assert.Equal(t, desID, r.OSDiskEncryptionSetID)
			assert.Equal(t, []string{identity1, identity2}, r.Identities)
		}},
		{"ultra SSD required by the claim", func(o *launch.RequestOptions) {
			o.NodeClaim.Spec.Requirements = append(o.NodeClaim.Spec.Requirements,
				api.NodeSelectorRequirementWithMinValues{Key: api.LabelSKUUltraSSD, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}})
		}, func(t *testing.T, r *launch.Request) {
			assert.True(t, r.UltraSSD)
			assert.Equal(t, "true", r.Planned.NodeLabels[api.LabelSKUUltraSSD])
		}},
		{"node subnet maxPods 30", func(o *launch.RequestOptions) {
			o.Cluster.Network = nodeSubnet
			o.NodeClass.Spec.MaxPods = new(int32(30))
		}, func(t *testing.T, r *launch.Request) { assert.Equal(t, 29, r.PodIPConfigurations) }},
		{"node subnet default maxPods", func(o *launch.RequestOptions) { o.Cluster.Network = nodeSubnet },
			func(t *testing.T, r *launch.Request) {
				assert.Equal(t, 29, r.PodIPConfigurations, "Azure CNI node subnet defaults to 30 pods")
			}},
		{"BYO CNI", func(o *launch.RequestOptions) { o.Cluster.Network = byoCNI },
			func(t *testing.T, r *launch.Request) { assert.Zero(t, r.PodIPConfigurations) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := requestOptions(t, imagefamily.ModeScriptless, "Standard_D2s_v3")
			tc.mutate(&opts)
			req, err := launch.RequestFor(context.Background(), opts)
			require.NoError(t, err)
			tc.check(t, req)
		})
	}
}

func TestRequestForMachineAPI(t *testing.T) {
	opts := requestOptions(t, imagefamily.ModeMachineAPI, "Standard_D2s_v3")
	req, err := launch.RequestFor(context.Background(), opts)
	require.NoError(t, err)
	require.NotNil(t, req.Machine)
	assert.Contains(t, req.Image.SharedGalleryID, "/galleries/AKSUbuntu/images/2204gen2containerd/versions/202606.01.0",
		"the Machine API modes boot shared gallery images")

	f := newFixture(t, catalogueSim(launch.InstanceTypesFor(opts.NodeClaim, opts.Catalogue)), machineMode)
	inst, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	body := lastPut(t, f.sim, "machine.put", "default-x7k2p")
	assert.Equal(t, "AKSUbuntu-2204gen2containerd-202606.01.0", field(body, "properties.kubernetes.nodeImageVersion"))
	assert.Equal(t, "Standard_D2s_v3", field(body, "properties.hardware.vmSize"))
	labels := field(body, "properties.kubernetes.nodeLabels").(map[string]any)
	assert.Equal(t, inst.CapacityType, labels[api.LabelCapacityType], "labels were generated for the offering picked")
	assert.Equal(t, "linux", field(body, "properties.tags").(map[string]any)[azure.TagBilling])
}

func TestRequestForBootstrappingClient(t *testing.T) {
	var asked []string
	service := func(_ context.Context, out *imagefamily.Output) (*bootstrap.Hydrated, error) {
		asked = append(asked, out.Provision.ProvisionProfile.VMSize)
		script := base64.StdEncoding.EncodeToString([]byte("TOKEN=" + bootstrap.TokenPlaceholder + "\n"))
		return bootstrap.Hydrate(bootstrap.NodeBootstrapping{CustomData: script, CSE: "provision --token " + bootstrap.TokenPlaceholder},
			bootstrap.NewSecret(testToken))
	}
	opts := requestOptions(t, imagefamily.ModeBootstrappingClient, "Standard_D2s_v3")
	opts.NodeBootstrapping = service
	req, err := launch.RequestFor(context.Background(), opts)
	require.NoError(t, err)
	assert.Empty(t, req.CustomData, "fetched per attempt, not up front")
	assert.Empty(t, asked)

	f := newFixture(t, catalogueSim(launch.InstanceTypesFor(opts.NodeClaim, opts.Catalogue)),
		func(o *azure.Options) { o.Mode = imagefamily.ModeBootstrappingClient })
	_, err = f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, []string{"Standard_D2s_v3"}, asked)
	customData, err := base64.StdEncoding.DecodeString(field(lastPut(t, f.sim, "vm.put", "aks-default-x7k2p"), "properties.osProfile.customData").(string))
	require.NoError(t, err)
	assert.Equal(t, "TOKEN="+testToken+"\n", string(customData))
	cse := lastPut(t, f.sim, "extension.put", "aks-default-x7k2p/extensions/"+azure.CSEExtensionName)
	assert.Equal(t, "provision --token "+testToken, field(cse, "properties.protectedSettings.commandToExecute"))
}

func TestRequestForErrors(t *testing.T) {
	tests := map[string]func(*launch.RequestOptions){
		"no node claim":    func(o *launch.RequestOptions) { o.NodeClaim = nil },
		"no node class":    func(o *launch.RequestOptions) { o.NodeClass = nil },
		"no catalogue":     func(o *launch.RequestOptions) { o.Catalogue = nil },
		"no allowed size":  func(o *launch.RequestOptions) { o.NodeClaim = testNodeClaim("Standard_Nope") },
		"unknown mode":     func(o *launch.RequestOptions) { o.Mode = "bogus" },
		"no image version": func(o *launch.RequestOptions) { o.Images.Available = nil },
		"LocalDNS in scriptless": func(o *launch.RequestOptions) {
			o.NodeClass.Spec.LocalDNS = &api.LocalDNS{Mode: api.LocalDNSModeRequired}
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			opts := requestOptions(t, imagefamily.ModeScriptless, "Standard_D4s_v3")
			mutate(&opts)
			_, err := launch.RequestFor(context.Background(), opts)
			assert.ErrorIs(t, err, launch.ErrInvalidRequest)
			assert.NotContains(t, err.Error(), testToken)
		})
	}

	opts := requestOptions(t, imagefamily.ModeBootstrappingClient, "Standard_D2s_v3")
	req, err := launch.RequestFor(context.Background(), opts)
	require.NoError(t, err)
	f := newFixture(t, catalogueSim(launch.InstanceTypesFor(opts.NodeClaim, opts.Catalogue)),
		func(o *azure.Options) { o.Mode = imagefamily.ModeBootstrappingClient })
	_, err = f.launcher.Create(context.Background(), req)
	require.ErrorIs(t, err, launch.ErrInvalidRequest)
	assert.ErrorContains(t, err, "NodeBootstrapping")
	assert.Zero(t, writes(f.sim, "aks-default-x7k2p"))
}

func TestBootstrapFrom(t *testing.T) {
	_, err := launch.BootstrapFrom(nil, nil)
	assert.Error(t, err)
	sig := &imagefamily.Output{Mode: imagefamily.ModeScriptless,
		Image: imagefamily.Image{Reference: imagefamily.ImageReference{Kind: imagefamily.SharedImageGallery, ID: testSIG}}}
	b, err := launch.BootstrapFrom(sig, nil)
	require.NoError(t, err)
	assert.Equal(t, launch.ImageRef{SharedGalleryID: testSIG}, b.Image)
	_, err = launch.BootstrapFrom(&imagefamily.Output{Mode: imagefamily.ModeMachineAPI}, nil)
	assert.ErrorContains(t, err, "no Machine body")
	_, err = launch.BootstrapFrom(&imagefamily.Output{Mode: imagefamily.ModeBootstrappingClient}, nil)
	assert.ErrorContains(t, err, "hydrated")
}
