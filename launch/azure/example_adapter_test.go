package azure_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// Launching a node: a NodeClaim, its AKSNodeClass, the node class's catalogue and the cluster's
// settings make the request; a Launcher (here the Azure one, on the simulated Azure) creates it.
func ExampleRequestFor() {
	network := api.DefaultClusterNetwork()
	nodeClass := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	list, _ := instancetype.LoadFixture("southcentralus")
	cat, _ := list.Build(instancetype.Options{Region: "southcentralus", NodeClass: nodeClass, Network: network})
	claim := &api.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "default-x7k2p", Labels: map[string]string{api.LabelNodePool: "default"}},
		Spec: api.NodeClaimSpec{Requirements: []api.NodeSelectorRequirementWithMinValues{
			{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"Standard_D2s_v3", "Standard_D4s_v3"}},
		}},
	}
	req, err := launch.RequestFor(context.Background(), launch.RequestOptions{
		NodeClaim: claim, NodeClass: nodeClass, Catalogue: cat,
		Cluster: launch.ClusterSettings{
			Cluster: bootstrap.Cluster{
				ClusterName: "demo", KubernetesVersion: "1.33.2", APIServerHost: "demo-dns.hcp.southcentralus.azmk8s.io",
				CACertificate:  []byte("-----BEGIN CERTIFICATE-----\nTUlJQmRlbW8gQ0E=\n-----END CERTIFICATE-----\n"),
				BootstrapToken: bootstrap.NewSecret("abcdef.0123456789abcdef"), TenantID: "00000000-0000-0000-0000-000000000002",
				SubscriptionID: "00000000-0000-0000-0000-000000000001", NodeResourceGroup: "MC_rg_demo_southcentralus",
				Location: "southcentralus", Network: network, KubeletIdentityClientID: "00000000-0000-0000-0000-0000000000c1",
				VNETGUID: "00000000-0000-0000-0000-0000000000f1",
				SubnetID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes",
			},
			SSHPublicKey:   "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample demo",
			NodeIdentities: []string{"/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/MC_rg_demo_southcentralus/providers/Microsoft.ManagedIdentity/userAssignedIdentities/demo-agentpool"},
		},
		Images: imagefamily.ImageOptions{Available: []imagefamily.AvailableVersion{
			{Definition: "2204gen2containerd", Version: "202606.01.0", PublishedAt: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)},
		}},
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
		PollFrequency: 10 * time.Millisecond, Seed: 1, DisableNetworkLookup: true,
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
	// <redacted>
	// aks-default-x7k2p Standard_D2s_v3 Succeeded 3 ARM writes
}
