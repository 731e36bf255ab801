package azure_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/pricing"
)

const (
	catalogueRegion = "southcentralus"
	testToken       = "abcdef.0123456789abcdef"
	clusterSubnet   = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"
	kubeletClientID = "00000000-0000-0000-0000-0000000000c1"
	vnetGUID        = "00000000-0000-0000-0000-0000000000f1"
)

// fixtureCatalogue is the southcentralus fixture catalogue for nodeClass.
func fixtureCatalogue(t testing.TB, nodeClass *api.AKSNodeClass, network api.ClusterNetwork) *instancetype.Catalogue {
	t.Helper()
	list, err := instancetype.LoadFixture(catalogueRegion)
	require.NoError(t, err)
	snapshot, err := pricing.DefaultSnapshot()
	require.NoError(t, err)
	prices, _ := snapshot.Region(catalogueRegion)
	cat, err := list.Build(instancetype.Options{Region: catalogueRegion, NodeClass: nodeClass, Network: network, Prices: prices})
	require.NoError(t, err)
	return cat
}

// catalogueTypes returns instance types of the southcentralus fixture catalogue.
func catalogueTypes(t testing.TB, names ...string) []*instancetype.InstanceType {
	t.Helper()
	cat := fixtureCatalogue(t, nil, api.DefaultClusterNetwork())
	var out []*instancetype.InstanceType
	for _, n := range names {
		it, ok := cat.Find(n)
		require.True(t, ok, n)
		out = append(out, it)
	}
	return out
}

// catalogueSim offers the instance types in the catalogue's region.
func catalogueSim(types []*instancetype.InstanceType) azuresim.Options {
	skus := map[string]azuresim.SKU{}
	for _, it := range types {
		skus[it.Name] = azuresim.SKU{Family: it.SKU.Family, VCPUs: int(it.SKU.VCPUs)}
	}
	return azuresim.Options{Location: catalogueRegion, SKUs: skus}
}

// testNodeClaim is the claim default-x7k2p of NodePool default allowing the sizes.
func testNodeClaim(sizes ...string) *api.NodeClaim {
	return &api.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "default-x7k2p", Labels: map[string]string{api.LabelNodePool: "default"}},
		Spec: api.NodeClaimSpec{Requirements: []api.NodeSelectorRequirementWithMinValues{
			{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: sizes},
		}},
	}
}

// requestOptions are RequestFor's options for testNodeClaim(sizes...) in mode: a node class with a
// 100 GB OS disk and a tag, the fixture catalogue, and a full cluster.
func requestOptions(t testing.TB, mode imagefamily.Mode, sizes ...string) launch.RequestOptions {
	t.Helper()
	size := int32(100)
	nodeClass := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: api.AKSNodeClassSpec{OSDiskSizeGB: &size, Tags: map[string]string{"team/owner": "infra"}}}
	network := api.DefaultClusterNetwork()
	return launch.RequestOptions{
		NodeClaim: testNodeClaim(sizes...), NodeClass: nodeClass, Catalogue: fixtureCatalogue(t, nodeClass, network),
		Mode: mode, Cluster: clusterSettings(network), Images: testImages(),
	}
}

func clusterSettings(network api.ClusterNetwork) launch.ClusterSettings {
	return launch.ClusterSettings{
		Cluster: bootstrap.Cluster{
			ClusterName: "napkit", KubernetesVersion: "1.33.2", APIServerHost: "napkit-dns.hcp.southcentralus.azmk8s.io",
			CACertificate:  []byte("-----BEGIN CERTIFICATE-----\nTUlJQm5hcGtpdCB0ZXN0IENB\n-----END CERTIFICATE-----\n"),
			BootstrapToken: bootstrap.NewSecret(testToken), TenantID: "00000000-0000-0000-0000-000000000002",
			SubscriptionID: "00000000-0000-0000-0000-000000000001", NodeResourceGroup: "MC_rg_napkit_southcentralus",
			Location: catalogueRegion, SubnetID: clusterSubnet, ClusterID: "12345678", Network: network,
			KubeletIdentityClientID: kubeletClientID, VNETGUID: vnetGUID,
		},
		SSHPublicKey: testSSHKey, NodeIdentities: []string{identity1},
	}
}

func testImages() imagefamily.ImageOptions {
	published := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var avail []imagefamily.AvailableVersion
	for _, def := range []string{"2204gen2containerd", "2204containerd", "2204gen2TLcontainerd"} {
		avail = append(avail, imagefamily.AvailableVersion{Definition: def, Version: "202606.01.0", PublishedAt: published})
	}
	return imagefamily.ImageOptions{SIGSubscriptionID: "00000000-0000-0000-0000-00000000000a", Available: avail}
}
