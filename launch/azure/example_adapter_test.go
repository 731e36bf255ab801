package azure_test

import (
	"context"
	"fmt"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// From a NodeClaim's instance types (the planner's launch list, looked up in
// the catalogue) and its imagefamily input to a launched VM.
func ExampleRequestFor() {
	list, _ := instancetype.LoadFixture("southcentralus")
	cat, _ := list.Build(instancetype.Options{Region: "southcentralus", Network: api.DefaultClusterNetwork()})
	d2, _ := cat.Find("Standard_D2s_v3")
	d4, _ := cat.Find("Standard_D4s_v3")

	req, err := launch.RequestFor(context.Background(), launch.RequestOptions{
		Input: imagefamily.Input{
			NodePool: "default", NodeClaim: "default-x7k2p",
			Cluster: bootstrap.Cluster{
				ClusterName: "demo", KubernetesVersion: "1.33.2", APIServerHost: "demo-dns.hcp.southcentralus.azmk8s.io",
				CACertificate:  []byte("-----BEGIN CERTIFICATE-----\nTUlJQmRlbW8gQ0E=\n-----END CERTIFICATE-----\n"),
				BootstrapToken: bootstrap.NewSecret("abcdef.0123456789abcdef"), TenantID: "00000000-0000-0000-0000-000000000002",
				SubscriptionID: "00000000-0000-0000-0000-000000000001", NodeResourceGroup: "MC_rg_demo_southcentralus",
				Location: "southcentralus", Network: api.DefaultClusterNetwork(),
				SubnetID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes",
			},
			Images: imagefamily.ImageOptions{Available: []imagefamily.AvailableVersion{
				{Definition: "2204gen2containerd", Version: "202606.01.0", PublishedAt: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)},
			}},
		},
		InstanceTypes: []*instancetype.InstanceType{d2, d4},
		SSHPublicKey:  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample demo",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.NodeClaimName, len(req.Candidates), req.Image.CommunityGalleryImageID)
	fmt.Println(req.CustomData) // a Secret: never printed

	sim := azuresim.New(azuresim.Options{Location: "southcentralus", SKUs: map[string]azuresim.SKU{
		"Standard_D2s_v3": {Family: "standardDSv3Family", VCPUs: 2}, "Standard_D4s_v3": {Family: "standardDSv3Family", VCPUs: 4},
	}})
	l, err := azure.NewLauncher(azure.Options{
		SubscriptionID: sim.SubscriptionID(), ResourceGroup: "MC_rg_demo_southcentralus", Location: sim.Location(),
		ClusterName: "demo", Credential: sim.Credential(), ClientOptions: sim.ClientOptions(),
		PollFrequency: 10 * time.Millisecond, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	inst, err := l.Create(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(inst.Name, inst.SKU, inst.State, sim.Writes()[inst.Name], "ARM writes")
	// Output:
	// default-x7k2p 2 /CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202606.01.0
	// [redacted]
	// aks-default-x7k2p Standard_D2s_v3 Succeeded 3 ARM writes
}
