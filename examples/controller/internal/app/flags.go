// Package app is the controller binary's wiring: flags, logging, the Kubernetes clients, the Azure
// (real, or simulated only on --simulate) launcher, and the choice between a cluster and the
// in-process walkthrough.
package app

import (
	"flag"
	"os"
	"strings"
	"time"

	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/imagefamily"
)

// EnvBootstrapToken names the environment variable holding the TLS bootstrap token (the chart sets
// it from a Secret). The token is never a flag value, which `ps` would show.
const EnvBootstrapToken = "NAPKIT_BOOTSTRAP_TOKEN"

// Flags are the command line.
type Flags struct {
	// Kubeconfig selects a cluster; without it (and outside a pod) the walkthrough runs.
	Kubeconfig string
	// Simulate runs the simulated Azure and simulated kubelets against the cluster: the only way to
	// get them outside the walkthrough. Without it the Azure settings below are required.
	Simulate bool
	// SubscriptionID, ResourceGroup (the node resource group), ClusterName and Location say where
	// the nodes go on real Azure.
	SubscriptionID, ResourceGroup, ClusterName, Location string
	// Cluster settings the nodes' bootstrap data needs (real Azure only); the bootstrap token comes
	// from BootstrapTokenFile or $NAPKIT_BOOTSTRAP_TOKEN.
	APIServer, CAFile, BootstrapTokenFile, TenantID, SubnetID, SSHPublicKeyFile string
	KubeletIdentityClientID, VNETGUID, ClusterID, ClusterDNS                    string
	KubernetesVersion, ImageVersion                                             string
	// Upkeep: AKSNodeClass status, repair and price refresh.
	StatusInterval, RepairInterval, PriceRefresh time.Duration
	SystemNamespace, Prices                      string
	// ProvisionMode is --provision-mode (controller.Config.ProvisionMode); AKSMachinesPool
	// (--aks-machines-pool-name) and ClusterResourceGroup (--cluster-resource-group) address the
	// AKS Machines of the Machine API modes.
	// SIGSubscriptionID (--sig-subscription-id) is the subscription of AKS's shared image gallery,
	// which names the node images of the Machine API modes.
	ProvisionMode, AKSMachinesPool, ClusterResourceGroup, SIGSubscriptionID string
	// NominatePods is --nominate-pods (controller.NominatePolicy).
	NominatePods string
	// NominateMaxUnbound is --nominate-max-unbound (controller.Config.NominateMaxUnbound).
	NominateMaxUnbound int
	// NominateMaxPending is --nominate-max-pending (controller.Config.NominateMaxPending).
	NominateMaxPending int
	// MaxConcurrentLaunches is --max-concurrent-launches (controller.Config.MaxConcurrentLaunches,
	// and the Azure launcher's MaxConcurrency).
	MaxConcurrentLaunches int
	// DisruptionChainSteps is --disruption-chain-steps (controller.Config.DisruptionChainSteps).
	DisruptionChainSteps int
	// MarkUnneeded is --mark-unneeded-nodes (controller.Config.MarkUnneeded).
	MarkUnneeded bool
	// NodeIdentities (repeatable, or comma-separated) are the user-assigned managed identity resource
	// IDs every node VM gets, the kubelet identity among them; DiskEncryptionSetID encrypts the
	// nodes' managed OS disks.
	NodeIdentities      listFlag
	DiskEncryptionSetID string
	// MetricsAddr serves /metrics, HealthAddr /healthz and /readyz (empty: off).
	MetricsAddr, HealthAddr                                              string
	LeaderElect                                                          bool
	LeaderElectionNamespace, LeaderElectionName                          string
	BatchIdle, BatchMax, DisruptionInterval, ValidationDelay, GCInterval time.Duration
	WaitForScheduler                                                     bool
	PlanForScheduler                                                     bool
	// MinReplaceSavings is consolidation.Options.MinReplaceSavings.
	MinReplaceSavings float64
	// AllowManyToMany is consolidation.Options.AllowManyToMany: commands that replace M nodes by
	// N > 1 cheaper ones (a split when M is 1).
	AllowManyToMany bool
	// KubeAPIQPS and KubeAPIBurst bound the controller's requests to the API server (client-go's
	// defaults, 5 and 10, would make a thousand-node scale-up wait minutes for its own writes).
	KubeAPIQPS   float64
	KubeAPIBurst int
	// SimBootDelay is how long a simulated VM takes to register its node (--simulate only).
	SimBootDelay time.Duration
	// SimAzureEndpoint (--simulate, tests only) is where another process serves the simulated
	// Azure and runs the simulated kubelets, so that this process is the controller alone (the
	// scale suite measures its memory that way); empty: both run in this process.
	SimAzureEndpoint string
	// PprofAddr serves net/http/pprof's /debug/pprof/ (empty: off), for heap and CPU profiles.
	PprofAddr string
	// MemoryLimit is the container's memory limit (a quantity); the GC's soft limit is 90 % of it.
	MemoryLimit string
	// LogLevel is debug, info, warn or error; LogFormat is text or json.
	LogLevel, LogFormat string
	// Version prints the build (module version, VCS revision) and exits.
	Version bool
}

// Register defines the flags on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to manage; without it, and outside a pod, the seed walkthrough runs in-process")
	fs.BoolVar(&f.Simulate, "simulate", false, "on a real cluster, launch on the simulated Azure and register simulated Ready nodes (fake nodes!); without it the Azure flags are required")
	fs.StringVar(&f.SubscriptionID, "subscription-id", "", "Azure subscription of the nodes")
	fs.StringVar(&f.ResourceGroup, "resource-group", "", "node resource group (MC_...)")
	fs.StringVar(&f.ClusterName, "cluster-name", "", "AKS cluster name")
	fs.StringVar(&f.Location, "location", "eastus", "Azure region of the nodes")
	fs.StringVar(&f.TenantID, "tenant-id", "", "Azure tenant ID")
	fs.StringVar(&f.ProvisionMode, "provision-mode", string(imagefamily.ModeScriptless), "how nodes are made, as Azure's provider's --provision-mode: "+
		"aksscriptless (a NIC and a VM, the bootstrap script as custom data), aksmachineapi (an AKS Machine per node, which AKS builds), "+
		"aksmachineapiheaderbatch (the same, up to 50 machines per request)")
	fs.StringVar(&f.AKSMachinesPool, "aks-machines-pool-name", "", "the agent pool AKS Machines go in (required in the Machine API modes; machines outside it are not napkit's)")
	fs.StringVar(&f.SIGSubscriptionID, "sig-subscription-id", "", "subscription of AKS's shared image gallery, which names the node images of the Machine API modes (required there on real Azure)")
	fs.StringVar(&f.ClusterResourceGroup, "cluster-resource-group", "", "the AKS cluster's own resource group, which holds its agent pools (required in the Machine API modes on real Azure)")
	fs.StringVar(&f.APIServer, "api-server", "", "API server host the nodes join, without scheme or port")
	fs.StringVar(&f.CAFile, "ca-file", "", "cluster CA certificate, PEM")
	fs.StringVar(&f.BootstrapTokenFile, "bootstrap-token-file", "", "file holding the TLS bootstrap token <id>.<secret> (default: $"+EnvBootstrapToken+")")
	fs.StringVar(&f.SubnetID, "subnet-id", "", "node subnet ARM ID")
	fs.StringVar(&f.SSHPublicKeyFile, "ssh-public-key-file", "", "nodes' admin SSH public key")
	fs.StringVar(&f.KubeletIdentityClientID, "kubelet-identity-client-id", "", "client ID of the kubelet's managed identity (optional)")
	fs.StringVar(&f.VNETGUID, "vnet-guid", "", "resourceGuid of the node virtual network (optional)")
	fs.Var(&f.NodeIdentities, "node-identities", "user-assigned managed identity resource IDs every node VM gets, the kubelet identity among them (repeatable or comma-separated)")
	fs.StringVar(&f.DiskEncryptionSetID, "disk-encryption-set-id", "", "disk encryption set that encrypts the nodes' managed OS disks (optional)")
	fs.StringVar(&f.ClusterID, "cluster-id", "", "8-digit number in the names of AKS-managed resources (optional)")
	fs.StringVar(&f.ClusterDNS, "dns-service-ip", "", "cluster DNS service IP (optional; default the kubelet's)")
	fs.StringVar(&f.KubernetesVersion, "kubernetes-version", "", "pin the nodes' Kubernetes version (default: the API server's /version; a pin newer than it is refused)")
	fs.StringVar(&f.ImageVersion, "image-version", "202611.01.0", "--simulate: the node image version the simulated galleries publish (real Azure discovers the newest)")
	fs.DurationVar(&f.StatusInterval, "nodeclass-status-interval", 5*time.Minute, "how often AKSNodeClass status (Kubernetes version, images) is recomputed")
	fs.StringVar(&f.SystemNamespace, "system-namespace", os.Getenv("SYSTEM_NAMESPACE"), "namespace of AKS's upcoming-maintenance-window ConfigMap (default $SYSTEM_NAMESPACE; empty: no window)")
	fs.DurationVar(&f.RepairInterval, "repair-interval", 30*time.Second, "how often unhealthy nodes are looked for (repair)")
	fs.StringVar(&f.Prices, "prices", "live", "live: refresh from the Azure Retail Prices API every --price-refresh-interval (real Azure); embedded: the built-in snapshot")
	fs.DurationVar(&f.PriceRefresh, "price-refresh-interval", 12*time.Hour, "how often live prices are refreshed")
	fs.StringVar(&f.MetricsAddr, "metrics-addr", ":8080", "address serving /metrics (empty: off)")
	fs.StringVar(&f.HealthAddr, "health-addr", ":8081", "address serving /healthz and /readyz (empty: off)")
	fs.BoolVar(&f.LeaderElect, "leader-elect", false, "hold a Lease before acting, so replicas can stand by")
	fs.StringVar(&f.LeaderElectionNamespace, "leader-election-namespace", "kube-system", "namespace of the leader-election Lease")
	fs.StringVar(&f.LeaderElectionName, "leader-election-name", "napkit", "name of the leader-election Lease")
	fs.DurationVar(&f.BatchIdle, "batch-idle-duration", time.Second, "provisioning batch closes after this long without new pending pods")
	fs.BoolVar(&f.WaitForScheduler, "wait-for-scheduler", false, "plan a pod only once kube-scheduler marked it Unschedulable (Karpenter's rule); off: every unbound, ungated pod, existing capacity first")
	fs.BoolVar(&f.PlanForScheduler, "plan-for-kube-scheduler", false, "replay kube-scheduler's default placement of each batch onto its new NodeClaims and plan, in the same batch, claims for the pods it would leave without room")
	fs.StringVar(&f.NominatePods, "nominate-pods", string(controller.NominatePredicted), "which pending pods get status.nominatedNodeName set to the node a plan put them on, as it registers: off, all, constrained (required anti-affinity, DoNotSchedule spread, or a quarter of the node's cpu or memory), replanned (pods planned again after kube-scheduler gave their first node away), or predicted (the pods a replay of kube-scheduler on each batch's new nodes says its spread would strand; the batch's nodes are released together); one pods/status patch each")
	fs.IntVar(&f.NominateMaxUnbound, "nominate-max-unbound", controller.DefaultNominateMaxUnbound, "with --nominate-pods, the most pods nominated and not yet bound at once (kube-scheduler weighs every nominated pod of a node for each pod it tries there); the others are nominated as pods bind; negative: no bound")
	fs.IntVar(&f.NominateMaxPending, "nominate-max-pending", controller.DefaultNominateMaxPending, "with --nominate-pods, no nominations while more pods than this are pending in the cluster (kube-scheduler pays for nominated pods in each attempt, and a burst of thousands makes thousands of attempts); the held pods are nominated once the burst drains under it; negative: no bound")
	fs.IntVar(&f.MaxConcurrentLaunches, "max-concurrent-launches", controller.DefaultMaxConcurrentLaunches, "NodeClaims launched at once; each holds its slot until its VM create succeeds (tens of seconds on Azure), so this bounds the launch rate")
	fs.DurationVar(&f.BatchMax, "batch-max-duration", 10*time.Second, "provisioning batch closes after this long at most")
	fs.DurationVar(&f.DisruptionInterval, "disruption-interval", 10*time.Second, "the longest a disruption pass that found nothing to do waits before the next (sooner when a node's consolidateAfter ends or a disrupted node is gone)")
	fs.DurationVar(&f.ValidationDelay, "disruption-validation-delay", 15*time.Second, "how long a disruption command waits to be re-validated")
	fs.IntVar(&f.DisruptionChainSteps, "disruption-chain-steps", controller.DefaultDisruptionChainSteps, "how many passes a disruption pass that proposes deletes decides ahead of them, validated after the same delay and started one after another as the nodes before them go, within the budgets; negative: one pass at a time (Karpenter's)")
	fs.BoolVar(&f.MarkUnneeded, "mark-unneeded-nodes", false, "keep the soft taint napkit.io/deletion-candidate:PreferNoSchedule on the nodes consolidation would remove but for its budgets and consolidateAfter, so kube-scheduler sends pods elsewhere while they wait their turn (fewer evictions, a quicker scale-down, a dearer end: docs/benchmarks.md)")
	fs.Float64Var(&f.MinReplaceSavings, "consolidation-min-replace-savings", controller.DefaultMinReplaceSavings,
		"least fraction of the removed nodes' price a consolidation replace must save, in [0, 1); 0: any saving (Karpenter's rule)")
	fs.BoolVar(&f.AllowManyToMany, "consolidation-allow-many-to-many", false,
		"let a consolidation command replace M nodes by several cheaper ones (one by two or more included); off: by one at most (Karpenter's rule)")
	fs.DurationVar(&f.GCInterval, "gc-interval", time.Minute, "how often VMs without a NodeClaim are collected")
	fs.Float64Var(&f.KubeAPIQPS, "kube-api-qps", 200, "requests per second the controller may make to the API server")
	fs.IntVar(&f.KubeAPIBurst, "kube-api-burst", 300, "requests the controller may burst to the API server above --kube-api-qps")
	fs.DurationVar(&f.SimBootDelay, "sim-boot-delay", time.Second, "--simulate: how long a simulated VM takes to register its node")
	fs.StringVar(&f.SimAzureEndpoint, "sim-azure-endpoint", "", "--simulate, tests only: reach the simulated Azure another process serves at this https URL "+
		"(it runs the simulated kubelets too; trust its certificate with SSL_CERT_FILE) instead of running both in this process")
	fs.StringVar(&f.PprofAddr, "pprof-addr", "", "address serving net/http/pprof's /debug/pprof/ for heap and CPU profiles (empty: off)")
	fs.StringVar(&f.MemoryLimit, "memory-limit", "", "the container's memory limit, a quantity such as 1Gi (the chart passes resources.limits.memory); "+
		"the Go GC's soft memory limit is set to 90 % of it, as Karpenter does; empty: none (GOMEMLIMIT applies)")
	fs.StringVar(&f.LogLevel, "log-level", "warn", "debug, info, warn or error")
	fs.StringVar(&f.LogFormat, "log-format", "text", "text or json")
	fs.BoolVar(&f.Version, "version", false, "print the build (module version and VCS revision) and exit")
}

// azureFlagsSet names the real-Azure flags given, for the error when they meet --simulate.
func (f *Flags) azureFlagsSet() []string {
	var set []string
	for _, v := range []struct{ name, value string }{
		{"--subscription-id", f.SubscriptionID}, {"--resource-group", f.ResourceGroup}, {"--cluster-name", f.ClusterName},
		{"--tenant-id", f.TenantID}, {"--api-server", f.APIServer}, {"--subnet-id", f.SubnetID},
		{"--cluster-resource-group", f.ClusterResourceGroup},
	} {
		if v.value != "" {
			set = append(set, v.name)
		}
	}
	return set
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}

func (l listFlag) values() []string { return append([]string(nil), l...) }
