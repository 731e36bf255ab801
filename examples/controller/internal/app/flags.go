// Package app is the controller binary's wiring: flags, the Kubernetes clients, the Azure (real
// or simulated) launcher, and the choice between a cluster and the in-process walkthrough.
package app

import (
	"flag"
	"os"
	"time"
)

// Flags are the command line.
type Flags struct {
	// Kubeconfig selects a cluster; without it (and outside a pod) the walkthrough runs.
	Kubeconfig string
	// SubscriptionID, ResourceGroup (the node resource group) and ClusterName select real Azure;
	// without them VMs go to the simulated Azure, whose nodes a simulated kubelet registers.
	SubscriptionID, ResourceGroup, ClusterName, Location string
	// Cluster settings the nodes' bootstrap data needs (real Azure only).
	APIServer, CAFile, BootstrapToken, TenantID, SubnetID, SSHPublicKeyFile, KubernetesVersion, ImageVersion string
	HTTPAddr                                                                                                 string
	LeaderElect                                                                                              bool
	LeaderElectionNamespace, LeaderElectionName                                                              string
	BatchIdle, BatchMax, DisruptionInterval, ValidationDelay, GCInterval                                     time.Duration
	// SimBootDelay is how long a simulated VM takes to register its node.
	SimBootDelay time.Duration
	Verbose      bool
}

// Register defines the flags on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to manage; without it, and outside a pod, the seed walkthrough runs in-process")
	fs.StringVar(&f.SubscriptionID, "subscription-id", "", "Azure subscription of the nodes (with --resource-group and --cluster-name: real Azure)")
	fs.StringVar(&f.ResourceGroup, "resource-group", "", "node resource group (MC_...)")
	fs.StringVar(&f.ClusterName, "cluster-name", "", "AKS cluster name")
	fs.StringVar(&f.Location, "location", "eastus", "Azure region of the nodes")
	fs.StringVar(&f.APIServer, "api-server", "", "API server host the nodes join (real Azure)")
	fs.StringVar(&f.CAFile, "ca-file", "", "cluster CA certificate, PEM (real Azure)")
	fs.StringVar(&f.BootstrapToken, "bootstrap-token", os.Getenv("NAPKIT_BOOTSTRAP_TOKEN"), "TLS bootstrap token <id>.<secret> (real Azure; default $NAPKIT_BOOTSTRAP_TOKEN)")
	fs.StringVar(&f.TenantID, "tenant-id", "", "Azure tenant ID (real Azure)")
	fs.StringVar(&f.SubnetID, "subnet-id", "", "node subnet ARM ID (real Azure)")
	fs.StringVar(&f.SSHPublicKeyFile, "ssh-public-key-file", "", "nodes' admin SSH public key (real Azure)")
	fs.StringVar(&f.KubernetesVersion, "kubernetes-version", "1.33.2", "cluster Kubernetes version")
	fs.StringVar(&f.ImageVersion, "image-version", "202611.01.0", "node image version to boot")
	fs.StringVar(&f.HTTPAddr, "http-addr", ":8080", "address for /metrics, /healthz and /readyz (empty: off)")
	fs.BoolVar(&f.LeaderElect, "leader-elect", false, "hold a Lease before acting, so replicas can stand by")
	fs.StringVar(&f.LeaderElectionNamespace, "leader-election-namespace", "kube-system", "namespace of the leader-election Lease")
	fs.StringVar(&f.LeaderElectionName, "leader-election-name", "napkit", "name of the leader-election Lease")
	fs.DurationVar(&f.BatchIdle, "batch-idle-duration", time.Second, "provisioning batch closes after this long without new pending pods")
	fs.DurationVar(&f.BatchMax, "batch-max-duration", 10*time.Second, "provisioning batch closes after this long at most")
	fs.DurationVar(&f.DisruptionInterval, "disruption-interval", 10*time.Second, "how often consolidation, drift and expiration run")
	fs.DurationVar(&f.ValidationDelay, "disruption-validation-delay", 15*time.Second, "how long a disruption command waits to be re-validated")
	fs.DurationVar(&f.GCInterval, "gc-interval", time.Minute, "how often VMs without a NodeClaim are collected")
	fs.DurationVar(&f.SimBootDelay, "sim-boot-delay", time.Second, "simulated Azure: how long a VM takes to register its node")
	fs.BoolVar(&f.Verbose, "v", false, "log at info level (default: warnings)")
}

// realAzure reports whether the flags select real Azure.
func (f *Flags) realAzure() bool {
	return f.SubscriptionID != "" || f.ResourceGroup != "" || f.ClusterName != ""
}
