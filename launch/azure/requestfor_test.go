package azure_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
)

// generated is imagefamily's output for the offering an instance landed on.
func generated(t *testing.T, in imagefamily.Input, it *instancetype.InstanceType, inst *launch.Instance) *imagefamily.Output {
	t.Helper()
	in.Shape, in.Zone, in.CapacityType = imagefamily.ShapeOf(it), inst.Zone, inst.CapacityType
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
	types := catalogueTypes(t, "Standard_D2s_v3", "Standard_D4s_v3")
	in := familyInput(imagefamily.ModeScriptless)
	req, err := launch.RequestFor(context.Background(), launch.RequestOptions{
		Input: in, InstanceTypes: types, SSHPublicKey: testSSHKey, Identities: []string{identity1},
	})
	require.NoError(t, err)
	assert.Equal(t, "default-x7k2p", req.NodeClaimName)
	assert.Equal(t, "default", req.NodePool)
	assert.Equal(t, []string{"Standard_D2s_v3", "Standard_D4s_v3"}, []string{req.Candidates[0].SKU, req.Candidates[1].SKU})
	assert.Equal(t, "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202606.01.0",
		req.Image.CommunityGalleryImageID)
	assert.Empty(t, req.Image.SharedGalleryID)
	assert.Equal(t, int32(100), req.OSDiskSizeGB)
	assert.Equal(t, clusterSubnet, req.SubnetID)
	assert.Equal(t, map[string]string{"team/owner": "infra"}, req.Tags)
	assert.Equal(t, []string{identity1}, req.Identities)
	assert.NotNil(t, req.BootstrapFor)
	require.NoError(t, req.Validate())

	classSubnet := "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/class"
	withSubnet := familyInput(imagefamily.ModeScriptless)
	withSubnet.NodeClass.Spec.VNETSubnetID = &classSubnet
	fromClass, err := launch.RequestFor(context.Background(), launch.RequestOptions{Input: withSubnet, InstanceTypes: types})
	require.NoError(t, err)
	assert.Equal(t, classSubnet, fromClass.SubnetID, "spec.vnetSubnetID wins")

	encrypted := familyInput(imagefamily.ModeScriptless)
	encrypted.NodeClass.Spec.Security = &api.Security{EncryptionAtHost: new(true)}
	fromSecurity, err := launch.RequestFor(context.Background(), launch.RequestOptions{Input: encrypted, InstanceTypes: types})
	require.NoError(t, err)
	assert.True(t, fromSecurity.EncryptionAtHost)
	assert.False(t, fromSecurity.TrustedLaunch.Enabled)

	unavailable(&req.Candidates[0]) // the launcher must fall to D4s_v3
	f := newFixture(t, catalogueSim(types))
	inst, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, "Standard_D4s_v3", inst.SKU)
	want := generated(t, in, types[1], inst)
	vm := lastPut(t, f.sim, "vm.put", "aks-default-x7k2p")
	assert.Equal(t, string(want.CustomData.Reveal()), field(vm, "properties.osProfile.customData"))
	assert.NotEqual(t, string(req.CustomData), field(vm, "properties.osProfile.customData"), "D4s_v3 reserves more than the planned D2s_v3")
	assert.Equal(t, want.Image.Reference.ID, field(vm, "properties.storageProfile.imageReference.communityGalleryImageId"))
}

func TestRequestForMachineAPI(t *testing.T) {
	types := catalogueTypes(t, "Standard_D2s_v3")
	in := familyInput(imagefamily.ModeMachineAPI)
	req, err := launch.RequestFor(context.Background(), launch.RequestOptions{Input: in, InstanceTypes: types})
	require.NoError(t, err)
	require.NotNil(t, req.Machine)
	assert.Contains(t, req.Image.SharedGalleryID, "/galleries/AKSUbuntu/images/2204gen2containerd/versions/202606.01.0",
		"the Machine API modes boot shared gallery images")

	f := newFixture(t, catalogueSim(types), machineMode)
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
	types := catalogueTypes(t, "Standard_D2s_v3")
	var asked []string
	service := func(_ context.Context, out *imagefamily.Output) (*bootstrap.Hydrated, error) {
		asked = append(asked, out.Provision.ProvisionProfile.VMSize)
		script := base64.StdEncoding.EncodeToString([]byte("TOKEN=" + bootstrap.TokenPlaceholder + "\n"))
		return bootstrap.Hydrate(bootstrap.NodeBootstrapping{CustomData: script, CSE: "provision --token " + bootstrap.TokenPlaceholder},
			bootstrap.NewSecret(testToken))
	}
	req, err := launch.RequestFor(context.Background(), launch.RequestOptions{
		Input: familyInput(imagefamily.ModeBootstrappingClient), InstanceTypes: types, SSHPublicKey: testSSHKey, NodeBootstrapping: service,
	})
	require.NoError(t, err)
	assert.Empty(t, req.CustomData, "fetched per attempt, not up front")
	assert.Empty(t, asked)

	f := newFixture(t, catalogueSim(types), func(o *azure.Options) { o.Mode = imagefamily.ModeBootstrappingClient })
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
	types := catalogueTypes(t, "Standard_D2s_v3")
	bad := familyInput(imagefamily.ModeScriptless)
	bad.Mode = "bogus"
	noImage := familyInput(imagefamily.ModeScriptless)
	noImage.Images.Available = nil
	for name, opts := range map[string]launch.RequestOptions{
		"no instance types": {Input: familyInput(imagefamily.ModeScriptless)},
		"unknown mode":      {Input: bad, InstanceTypes: types},
		"no image version":  {Input: noImage, InstanceTypes: types},
	} {
		_, err := launch.RequestFor(context.Background(), opts)
		assert.ErrorIs(t, err, launch.ErrInvalidRequest, name)
		assert.NotContains(t, err.Error(), testToken, name)
	}

	req, err := launch.RequestFor(context.Background(), launch.RequestOptions{
		Input: familyInput(imagefamily.ModeBootstrappingClient), InstanceTypes: types, SSHPublicKey: testSSHKey,
	})
	require.NoError(t, err)
	f := newFixture(t, catalogueSim(types), func(o *azure.Options) { o.Mode = imagefamily.ModeBootstrappingClient })
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
