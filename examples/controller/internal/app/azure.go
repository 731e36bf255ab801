package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/launch/discovery"
)

// configureAzure launches on real Azure with azidentity's default credential chain (workload
// identity in a pod, the Azure CLI on a workstation), once every setting checks out.
func configureAzure(f *Flags, prov provisioning, cfg *controller.Config) error {
	cluster, sshKey, err := clusterSettings(f, os.Getenv)
	if err != nil {
		return err
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return fmt.Errorf("azure credential: %w", err)
	}
	launcher, err := azure.NewLauncher(azure.Options{SubscriptionID: f.SubscriptionID,
		ResourceGroup: f.ResourceGroup, Location: f.Location, ClusterName: f.ClusterName, Credential: cred,
		Cache: cfg.Offerings, Logger: cfg.Logger, MaxConcurrency: f.MaxConcurrentLaunches,
		Mode: prov.mode, MachinesPool: prov.pool, ClusterResourceGroup: prov.clusterResourceGroup})
	if err != nil {
		return err
	}
	images, err := discovery.NewImages(discovery.ImagesOptions{SubscriptionID: f.SubscriptionID, Location: f.Location, Credential: cred})
	if err != nil {
		return err
	}
	usage, err := discovery.NewUsage(discovery.UsageOptions{SubscriptionID: f.SubscriptionID, Location: f.Location, Credential: cred})
	if err != nil {
		return err
	}
	cfg.Upkeep.ImageVersions, cfg.Upkeep.Usage = images, usage
	cfg.Upkeep.Subnets = discovery.NewSubnets(discovery.SubnetsOptions{Credential: cred})
	if f.DiskEncryptionSetID != "" {
		des, err := discovery.NewDiskEncryptionSet(discovery.DiskEncryptionSetOptions{ID: f.DiskEncryptionSetID, Credential: cred})
		if err != nil {
			return &ConfigError{Flag: "--disk-encryption-set-id", Value: f.DiskEncryptionSetID, Reason: "is not a disk encryption set's ARM ID", Err: err}
		}
		cfg.Upkeep.DiskEncryptionSet = des
	}
	cfg.Images.Version = "" // the newest discovered version, as the AKSNodeClass status records it
	cfg.Launcher, cfg.ClusterName, cfg.Cluster, cfg.SSHPublicKey = launcher, f.ClusterName, cluster, sshKey
	cfg.NodeIdentities, cfg.DiskEncryptionSetID = f.NodeIdentities.values(), f.DiskEncryptionSetID
	return nil
}

// simKubeletQPS bounds the simulated kubelets' requests: high, since it stands for one client per node.
const simKubeletQPS = 1000

// SimClusterName names the --simulate cluster; SimResourceGroup is its node resource group. A
// simulated Azure served by another process (--sim-azure-endpoint) must use the same.
const SimClusterName = "napkit"

// SimClusterResourceGroup is the --simulate cluster's own resource group, which holds its agent
// pools of AKS Machines in the Machine API modes.
const SimClusterResourceGroup = "napkit"

// SimResourceGroup is the --simulate node resource group in location (AKS's default for
// SimClusterName in SimClusterResourceGroup).
func SimResourceGroup(location string) string {
	return azuresim.MachineNodeResourceGroup(SimClusterResourceGroup, SimClusterName, location)
}

// configureSimulation launches on the simulated Azure: in this process with its simulated
// kubelets running in g, or, with --sim-azure-endpoint, on one another process serves (which runs
// the kubelets). Only --simulate gets here: the nodes it registers in the cluster are fake, and
// the log says so.
func configureSimulation(ctx context.Context, f *Flags, prov provisioning, simRest *rest.Config, cfg *controller.Config, g *errgroup.Group) error {
	if set := f.azureFlagsSet(); len(set) > 0 {
		return &ConfigError{Flag: "--simulate", Reason: "contradicts the real-Azure flags " + strings.Join(set, ", ")}
	}
	cfg.Logger.Warn("--simulate: VMs go to the simulated Azure and simulated kubelets register fake Ready nodes in this cluster",
		"azureEndpoint", f.SimAzureEndpoint)
	rg := SimResourceGroup(f.Location)
	cluster, sshKey, err := simnodes.Cluster(SimClusterName, f.Location, rg)
	if err != nil {
		return err
	}
	// The simulated kubelets report the version the nodes boot, as real ones would.
	if cluster.KubernetesVersion, err = nodeKubernetesVersion(cfg.Kube, f.KubernetesVersion); err != nil {
		return err
	}
	var launcher *azure.Launcher
	var upkeep controller.Upkeep
	if f.SimAzureEndpoint != "" {
		launcher, upkeep, err = simnodes.NewRemoteAzure(simnodes.RemoteOptions{Endpoint: f.SimAzureEndpoint, Location: f.Location,
			ResourceGroup: rg, ClusterName: SimClusterName, Offerings: cfg.Offerings, Logger: cfg.Logger})
		if err != nil {
			return &ConfigError{Flag: "--sim-azure-endpoint", Value: f.SimAzureEndpoint, Reason: "is not a simulated Azure's https URL", Err: err}
		}
	} else if launcher, upkeep, err = localSimulation(ctx, f, prov, simRest, cfg, cluster.KubernetesVersion, g); err != nil {
		return err
	}
	cfg.Upkeep.ImageVersions, cfg.Upkeep.Usage = upkeep.ImageVersions, upkeep.Usage
	cfg.Launcher, cfg.ClusterName, cfg.Cluster, cfg.SSHPublicKey = launcher, SimClusterName, cluster, sshKey
	cfg.NodeIdentities = []string{simnodes.KubeletIdentity(SimClusterName, rg)}
	return nil
}

// localSimulation runs the simulated Azure in this process and its simulated kubelets in g. The
// kubelets get a client of their own from simRest: thousands of real kubelets each have one.
func localSimulation(ctx context.Context, f *Flags, prov provisioning, simRest *rest.Config, cfg *controller.Config, version string,
	g *errgroup.Group) (*azure.Launcher, controller.Upkeep, error) {
	class := &api.AKSNodeClass{}
	class.Default()
	base, err := cfg.Catalogue(class)
	if err != nil {
		return nil, controller.Upkeep{}, err
	}
	azureOpts := simnodes.AzureOptions{Catalogue: base, ResourceGroup: SimResourceGroup(f.Location),
		ClusterName: SimClusterName, Offerings: cfg.Offerings, Logger: cfg.Logger}
	if prov.mode.IsMachineAPI() {
		azureOpts.Mode, azureOpts.MachinesPool, azureOpts.ClusterResourceGroup = prov.mode, prov.pool, SimClusterResourceGroup
		if cfg.Images.SIGSubscriptionID == "" {
			cfg.Images.SIGSubscriptionID = azuresim.DefaultSubscriptionID
		}
	}
	sim, launcher, err := simnodes.NewAzure(azureOpts)
	if err != nil {
		return nil, controller.Upkeep{}, err
	}
	simnodes.PublishNodeImages(sim, f.ImageVersion, time.Now())
	upkeep, err := simnodes.Upkeep(sim, simnodes.UpkeepOptions{})
	if err != nil {
		return nil, controller.Upkeep{}, err
	}
	simRest.QPS, simRest.Burst, simRest.UserAgent = simKubeletQPS, 2*simKubeletQPS, simnodes.UserAgent
	simKube, errKube := kubernetes.NewForConfig(simRest)
	simDyn, errDyn := dynamic.NewForConfig(simRest)
	if err := errors.Join(errKube, errDyn); err != nil {
		return nil, controller.Upkeep{}, fmt.Errorf("simulated kubelets' client: %w", err)
	}
	kubelet, err := simnodes.New(simnodes.Options{Kube: simKube, Dynamic: simDyn, Launcher: launcher,
		InstanceType: base.Find, Region: f.Location, BootDelay: f.SimBootDelay, Logger: cfg.Logger, KubeletVersion: "v" + version})
	if err != nil {
		return nil, controller.Upkeep{}, err
	}
	g.Go(func() error { return kubelet.Run(ctx) })
	return launcher, upkeep, nil
}
