package controller

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
)

// Config is everything the controller needs; New checks it. Nothing here is read from globals or
// the environment: main builds it from flags.
type Config struct {
	// Kube serves core objects (pods, nodes, PDBs, events, leases, evictions).
	Kube kubernetes.Interface
	// Dynamic serves the karpenter.sh and karpenter.azure.com custom resources.
	Dynamic dynamic.Interface
	// Launcher creates and deletes the VMs (the Azure launcher, or one on the simulated Azure).
	Launcher launch.Launcher
	// Catalogue returns the instance types a node class may use.
	Catalogue func(class *api.AKSNodeClass) (*instancetype.Catalogue, error)
	// ClusterName tags the VMs and names the cluster in bootstrap data.
	ClusterName string
	// Logger receives structured logs; Metrics receives the karpenter_* metrics.
	Logger  *slog.Logger
	Metrics prometheus.Registerer
	// Clock is the time source (time.Now when nil).
	Clock func() time.Time
	// BatchIdle and BatchMax bound how pending pods are batched (1 s and 10 s when zero).
	BatchIdle, BatchMax time.Duration
	// DisruptionInterval is how often consolidation, drift and expiration run (10 s when zero).
	DisruptionInterval time.Duration
	// LeaderElection, when set, names the Lease namespace/name the controller must hold to act.
	LeaderElectionNamespace, LeaderElectionName, Identity string
}
