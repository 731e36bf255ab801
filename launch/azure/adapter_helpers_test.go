package azure_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/pricing"
)

const (
	catalogueRegion = "southcentralus"
	testToken       = "abcdef.0123456789abcdef"
	clusterSubnet   = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"
)

// catalogueTypes returns instance types of the southcentralus fixture catalogue.
func catalogueTypes(t testing.TB, names ...string) []*instancetype.InstanceType {
	t.Helper()
	list, err := instancetype.LoadFixture(catalogueRegion)
	require.NoError(t, err)
	snapshot, err := pricing.DefaultSnapshot()
	require.NoError(t, err)
	prices, _ := snapshot.Region(catalogueRegion)
	cat, err := list.Build(instancetype.Options{Region: catalogueRegion, Network: api.DefaultClusterNetwork(), Prices: prices})
	require.NoError(t, err)
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

// familyInput is a NodeClaim's imagefamily input in mode; Shape, Zone and
// capacity type are left for RequestFor to fill per offering.
func familyInput(mode imagefamily.Mode) imagefamily.Input {
	published := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var avail []imagefamily.AvailableVersion
	for _, def := range []string{"2204gen2containerd", "2204containerd"} {
		avail = append(avail, imagefamily.AvailableVersion{Definition: def, Version: "202606.01.0", PublishedAt: published})
	}
	size := int32(100)
	return imagefamily.Input{
		Mode:      mode,
		NodeClass: &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{OSDiskSizeGB: &size, Tags: map[string]string{"team/owner": "infra"}}},
		NodePool:  "default", NodeClaim: "default-x7k2p",
		Cluster: bootstrap.Cluster{
			ClusterName: "napkit", KubernetesVersion: "1.33.2", APIServerHost: "napkit-dns.hcp.southcentralus.azmk8s.io",
			CACertificate:  []byte("-----BEGIN CERTIFICATE-----\nTUlJQm5hcGtpdCB0ZXN0IENB\n-----END CERTIFICATE-----\n"),
			BootstrapToken: bootstrap.NewSecret(testToken), TenantID: "00000000-0000-0000-0000-000000000002",
			SubscriptionID: "00000000-0000-0000-0000-000000000001", NodeResourceGroup: "MC_rg_napkit_southcentralus",
			Location: catalogueRegion, SubnetID: clusterSubnet, ClusterID: "12345678", Network: api.DefaultClusterNetwork(),
		},
		Images: imagefamily.ImageOptions{SIGSubscriptionID: "00000000-0000-0000-0000-00000000000a", Available: avail},
	}
}
