package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"golang.org/x/sync/errgroup"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// configureAzure launches on real Azure with azidentity's default credential chain (workload
// identity in a pod, the Azure CLI on a workstation).
func configureAzure(f *Flags, cfg *controller.Config) error {
	if f.SubscriptionID == "" || f.ResourceGroup == "" || f.ClusterName == "" {
		return errors.New("real Azure needs all of --subscription-id, --resource-group and --cluster-name")
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return fmt.Errorf("azure credential: %w", err)
	}
	launcher, err := launch.NewAzureLauncher(launch.AzureOptions{SubscriptionID: f.SubscriptionID,
		ResourceGroup: f.ResourceGroup, Location: f.Location, ClusterName: f.ClusterName, Credential: cred,
		Cache: cfg.Offerings, Logger: cfg.Logger})
	if err != nil {
		return err
	}
	cluster, sshKey, err := clusterSettings(f)
	if err != nil {
		return err
	}
	cfg.Launcher, cfg.ClusterName, cfg.Cluster, cfg.SSHPublicKey = launcher, f.ClusterName, cluster, sshKey
	return nil
}

// clusterSettings reads the bootstrap settings of a real cluster from the flags.
func clusterSettings(f *Flags) (bootstrap.Cluster, string, error) {
	ca, errCA := os.ReadFile(f.CAFile)
	key, errKey := os.ReadFile(f.SSHPublicKeyFile)
	if err := errors.Join(errCA, errKey); err != nil {
		return bootstrap.Cluster{}, "", fmt.Errorf("real Azure needs --ca-file and --ssh-public-key-file: %w", err)
	}
	cluster := bootstrap.Cluster{
		ClusterName: f.ClusterName, KubernetesVersion: f.KubernetesVersion, APIServerHost: f.APIServer,
		CACertificate: ca, BootstrapToken: bootstrap.NewSecret(f.BootstrapToken), TenantID: f.TenantID,
		SubscriptionID: f.SubscriptionID, NodeResourceGroup: f.ResourceGroup, Location: f.Location,
		SubnetID: f.SubnetID, Network: api.DefaultClusterNetwork(),
	}
	return cluster, strings.TrimSpace(string(key)), nil
}

// configureSimulation launches on the simulated Azure and runs its simulated kubelet in g.
func configureSimulation(ctx context.Context, f *Flags, cfg *controller.Config, g *errgroup.Group) error {
	const clusterName = "napkit"
	rg := "MC_napkit_napkit_" + f.Location
	class := &api.AKSNodeClass{}
	class.Default()
	base, err := cfg.Catalogue(class)
	if err != nil {
		return err
	}
	_, launcher, err := simnodes.NewAzure(simnodes.AzureOptions{Catalogue: base, ResourceGroup: rg,
		ClusterName: clusterName, Offerings: cfg.Offerings, Logger: cfg.Logger})
	if err != nil {
		return err
	}
	cluster, sshKey, err := simnodes.Cluster(clusterName, f.Location, rg)
	if err != nil {
		return err
	}
	cluster.KubernetesVersion = f.KubernetesVersion
	kubelet, err := simnodes.New(simnodes.Options{Kube: cfg.Kube, Dynamic: cfg.Dynamic, Launcher: launcher,
		InstanceType: base.Find, Region: f.Location, BootDelay: f.SimBootDelay, Logger: cfg.Logger})
	if err != nil {
		return err
	}
	g.Go(func() error { return kubelet.Run(ctx) })
	cfg.Launcher, cfg.ClusterName, cfg.Cluster, cfg.SSHPublicKey = launcher, clusterName, cluster, sshKey
	return nil
}
