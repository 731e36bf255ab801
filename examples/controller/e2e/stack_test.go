//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/app"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

const (
	region        = "eastus"
	clusterName   = "napkit-e2e"
	resourceGroup = "MC_napkit_napkit-e2e_eastus"
	// clusterResourceGroup is the managed cluster's own group and machinesPool its agent pool of
	// AKS Machines, in the Machine API modes (AKS puts the machines' VMs in resourceGroup).
	clusterResourceGroup = "napkit"
	machinesPool         = "napkit"
	subscription         = azuresim.DefaultSubscriptionID
)

// stack is everything outside the controller: the control plane, the simulated Azure and the
// simulated kubelets. They outlive controller restarts, as the cloud and the nodes would.
type stack struct {
	t        *testing.T
	c        *cluster
	sim      *azuresim.Sim
	launcher *azure.Launcher
	logPath  string
	opts     stackOptions
	ctrl     *running
	// metrics are the running controller's: its karpenter_* metrics and the requests of its own
	// clients (rest_client_requests_total); in a controller process, its /metrics.
	metrics prometheus.Gatherer
	// azure serves the simulated Azure to a controller process, proc is that process (both nil
	// in-process).
	azure *azureServer
	proc  *controllerProcess
}

// stackOptions vary a stack between tests.
type stackOptions struct {
	// tune adjusts the controller's Config before each start.
	tune func(*controller.Config)
	// azureLatency delays every call to the simulated Azure, to widen the window of a launch.
	azureLatency time.Duration
	// vmCreateTime is how long the simulated Azure takes to create a VM (its operation).
	vmCreateTime time.Duration
	// armLimits throttles the simulated Azure as ARM throttles a subscription (token buckets).
	armLimits bool
	// provisionMode is the launcher's and the controller's mode ("" is aksscriptless); the Machine
	// API modes PUT AKS Machines in pool machinesPool of cluster clusterName in group
	// clusterResourceGroup, whose VMs land in resourceGroup.
	provisionMode imagefamily.Mode
	// upkeep turns on the AKSNodeClass status writer (image discovery on the simulated galleries,
	// which publish upkeepImage), repair and quota, with intervals short enough for a test.
	upkeep bool
	// kubelet adjusts the simulated kubelets' options (boot delay, poll, workers).
	kubelet func(*simnodes.Options)
	// clusterEnv is extra environment for the control plane's script (audit logging).
	clusterEnv []string
	// beforeController runs on the started control plane before the simulated kubelets and the
	// controller start (to apply the chart's RBAC and switch them to its ServiceAccount).
	beforeController func(*cluster)
	// kubeletClients, when set, gives the simulated kubelets their clients (default: the admin's).
	kubeletClients func(*cluster) (kubernetes.Interface, dynamic.Interface)
	// process runs the controller binary in a process of its own (--simulate --sim-azure-endpoint),
	// the simulated Azure served to it over HTTPS from this process, which keeps the simulated
	// kubelets: its memory and CPU are then its own (process_test.go). tune then only reaches the
	// Config fields that have a flag (processArgs).
	process bool
}

// upkeepImage is the node image version the simulated galleries publish when a stack starts.
const upkeepImage = "202611.01.0"

// running is one started controller: stop asks it to stop; done closes when it has, err then
// being its error; dump returns its goroutines' stacks while it is still running.
type running struct {
	stop func()
	done chan struct{}
	err  error
	dump func() string
}

// startStack starts a control plane, the simulated Azure with its kubelets, and the controller.
func startStack(t *testing.T, opts stackOptions) *stack {
	t.Helper()
	s := &stack{t: t, c: startClusterEnv(t, "", opts.clusterEnv), opts: opts, logPath: filepath.Join(t.TempDir(), "controller.log")}
	t.Cleanup(s.dumpLogsOnFailure)
	base, err := baseCatalogue()
	require.NoError(t, err)
	logger := s.logger()
	rg, name := resourceGroup, clusterName
	if opts.process {
		rg, name = app.SimResourceGroup(region), app.SimClusterName // the binary's --simulate names
	}
	azureOpts := simnodes.AzureOptions{
		Catalogue: base, ResourceGroup: rg, ClusterName: name, Logger: logger,
		Latency: opts.azureLatency, VMCreateTime: opts.vmCreateTime, RateLimits: armLimits(opts.armLimits),
	}
	if opts.provisionMode.IsMachineAPI() {
		require.False(t, opts.process, "the controller binary's --simulate runs the VM mode only")
		azureOpts.Mode, azureOpts.MachinesPool, azureOpts.ClusterResourceGroup = opts.provisionMode, machinesPool, clusterResourceGroup
	}
	s.sim, s.launcher, err = simnodes.NewAzure(azureOpts)
	require.NoError(t, err)
	observer, err := simnodes.NewObserver(s.sim, azureOpts)
	require.NoError(t, err)
	kubeletVersion := ""
	if opts.process {
		kubeletVersion = s.serveAzure()
	}
	if opts.upkeep {
		// Nodes boot the control plane's version (the AKSNodeClass status says so), and report it.
		info, err := s.c.kube.Discovery().ServerVersion()
		require.NoError(t, err)
		kubeletVersion = info.GitVersion
		simnodes.PublishNodeImages(s.sim, upkeepImage, time.Now().Add(-time.Hour))
	}
	if opts.beforeController != nil {
		opts.beforeController(s.c)
	}
	kubeletOpts := simnodes.Options{
		Kube: s.c.kubeletClient(), Dynamic: s.c.dyn, Launcher: observer, InstanceType: base.Find, Region: region, Logger: logger,
		KubeletVersion: kubeletVersion,
	}
	if opts.upkeep {
		// A kubelet runs the version its VM's bootstrap data installed, as a real one does.
		kubeletOpts.BootedVersion = simnodes.BootedVersion(s.sim)
	}
	if opts.kubeletClients != nil {
		kubeletOpts.Kube, kubeletOpts.Dynamic = opts.kubeletClients(s.c)
	}
	if opts.kubelet != nil {
		opts.kubelet(&kubeletOpts)
	}
	kubelet, err := simnodes.New(kubeletOpts)
	require.NoError(t, err)
	runUntilCleanup(t, "simulated kubelets", kubelet.Run)
	s.startController()
	return s
}

// baseCatalogue is the region's catalogue for a default AKSNodeClass: the VM sizes the simulated
// Azure offers and the capacities the simulated kubelets report.
func baseCatalogue() (*instancetype.Catalogue, error) {
	build, err := controller.NewCatalogue(region, api.DefaultClusterNetwork(), launch.NewUnavailableOfferings(time.Now))
	if err != nil {
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	class := &api.AKSNodeClass{}
	class.Default()
	return build(class)
}

// startController builds a new controller from scratch, as a restarted process would, and runs it
// until stopController or the end of the test.
func (s *stack) startController() {
	s.t.Helper()
	if s.opts.process {
		s.ctrl = s.startProcess()
		s.t.Cleanup(func() { s.stopController() })
		return
	}
	cfg, err := s.config()
	require.NoError(s.t, err)
	ctrl, err := controller.New(cfg)
	require.NoError(s.t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stop: cancel, done: make(chan struct{}), dump: controllerGoroutines}
	go func() { r.err = ctrl.Run(ctx); close(r.done) }()
	s.ctrl = r
	s.t.Cleanup(func() { s.stopController() })
}

// stopPrompt is how soon a controller must stop (issue 18); stopLimit is when the suite gives up.
const (
	stopPrompt = 5 * time.Second
	stopLimit  = 30 * time.Second
)

// stopController stops the running controller and waits for Run to return. One that takes longer
// than stopPrompt fails the test with its goroutines, which say where it blocks.
func (s *stack) stopController() {
	if s.ctrl == nil {
		return
	}
	r := s.ctrl
	s.ctrl = nil
	began := time.Now()
	r.stop()
	var dump string
	select {
	case <-r.done:
		s.reportRunErr(r.err, began)
		return
	case <-time.After(stopPrompt):
		dump = r.dump()
	}
	select {
	case <-r.done:
		s.t.Errorf("controller stopped in %s, over %s; its goroutines at %s:\n%s", time.Since(began).Round(time.Millisecond), stopPrompt, stopPrompt, dump)
		s.reportRunErr(r.err, began)
	case <-time.After(stopLimit - stopPrompt):
		s.t.Errorf("controller did not stop within %s; its goroutines at %s:\n%s", stopLimit, stopPrompt, dump)
	}
}

func (s *stack) reportRunErr(err error, began time.Time) {
	if err != nil {
		s.t.Errorf("controller.Run: %v", err)
	}
	s.t.Logf("controller stopped in %s", time.Since(began).Round(time.Millisecond))
}

// controllerGoroutines are the stacks of this process's goroutines that run the controller's code
// (the simulated kubelets' and the informers' own are left out: thousands of lines at scale).
func controllerGoroutines() string {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
	var keep []string
	for _, g := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(g, "/examples/controller/internal/controller.") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}

// config is the controller's Config on this stack. Its intervals are shorter than the production
// defaults (Karpenter's 15 s validation delay, 10 s disruption interval) so that the suite stays
// within minutes; the logic they pace is the same.
func (s *stack) config() (controller.Config, error) {
	offerings := launch.NewUnavailableOfferings(time.Now)
	catalogue, err := controller.NewCatalogue(region, api.DefaultClusterNetwork(), offerings)
	if err != nil {
		return controller.Config{}, fmt.Errorf("catalogue: %w", err)
	}
	host, err := url.Parse(s.c.rest.Host)
	if err != nil {
		return controller.Config{}, fmt.Errorf("API server URL: %w", err)
	}
	registry := prometheus.NewRegistry()
	s.metrics = registry
	clientMetrics, err := controller.NewClientMetrics(registry)
	if err != nil {
		return controller.Config{}, err
	}
	rest := restclient.CopyConfig(s.c.rest)
	clientMetrics.Instrument(rest)
	cfg := controller.Config{
		Kube: kubernetes.NewForConfigOrDie(rest), Dynamic: dynamic.NewForConfigOrDie(rest), Metrics: registry,
		Launcher: s.launcher, Offerings: offerings, Catalogue: catalogue,
		ClusterName: clusterName, SSHPublicKey: testSSHKey,
		Cluster: bootstrap.Cluster{
			ClusterName: clusterName, KubernetesVersion: "1.33.2", APIServerHost: host.Hostname(),
			CACertificate: s.c.rest.CAData, BootstrapToken: bootstrap.NewSecret("abcdef.0123456789abcdef"),
			TenantID: subscription, SubscriptionID: subscription, NodeResourceGroup: resourceGroup, Location: region,
			SubnetID: "/subscriptions/" + subscription + "/resourceGroups/" + resourceGroup +
				"/providers/Microsoft.Network/virtualNetworks/aks-vnet-00000000/subnets/aks-subnet",
			Network: api.DefaultClusterNetwork(), KubeletIdentityClientID: kubeletClientID, VNETGUID: vnetGUID,
		},
		NodeIdentities: []string{kubeletIdentity}, ProvisionMode: s.opts.provisionMode,
		Images: imagefamily.ImageOptions{Version: "202611.01.0", SIGSubscriptionID: subscription},
		Logger: s.logger(), Seed: 1,
		BatchIdle: 500 * time.Millisecond, BatchMax: 3 * time.Second,
		DisruptionInterval: 2 * time.Second, ValidationDelay: 2 * time.Second,
		GCInterval: 2 * time.Second, GCGracePeriod: 5 * time.Second,
	}
	if s.opts.upkeep {
		up, err := simnodes.Upkeep(s.sim, simnodes.UpkeepOptions{ImageTTL: time.Millisecond, UsageTTL: time.Second})
		if err != nil {
			return controller.Config{}, err
		}
		up.StatusInterval, up.RepairInterval, up.QuotaInterval = time.Second, time.Second, 2*time.Second
		cfg.Upkeep = up
	}
	if s.opts.tune != nil {
		s.opts.tune(&cfg)
	}
	return cfg, nil
}

// The kubelet identity the nodes get, and the node VNET's resourceGuid.
const (
	kubeletClientID = "00000000-0000-0000-0000-0000000000c1"
	kubeletIdentity = "/subscriptions/" + subscription + "/resourceGroups/" + resourceGroup +
		"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + clusterName + "-agentpool"
	vnetGUID = "00000000-0000-0000-0000-0000000000f1"
)

// testSSHKey is a syntactically valid public key; no node is ever logged into.
const testSSHKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA napkit-e2e"

// logger writes the controller's and the simulation's logs to one file per test, shown on failure.
func (s *stack) logger() *slog.Logger {
	f, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(s.t, err)
	s.t.Cleanup(func() { _ = f.Close() })
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (s *stack) dumpLogsOnFailure() {
	if s.t.Failed() {
		s.t.Logf("--- last lines of the controller log:\n%s", tailFile(s.logPath, 60))
	}
}

// runUntilCleanup runs fn in the background until the test ends and reports its error.
func runUntilCleanup(t *testing.T, what string, fn func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := fn(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v", what, err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// armLimits are ARM's subscription buckets when on, else none.
func armLimits(on bool) *azuresim.RateLimits {
	if !on {
		return nil
	}
	l := azuresim.ARMSubscriptionLimits()
	return &l
}
