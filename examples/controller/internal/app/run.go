package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/buildinfo"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/walkthrough"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
)

// Run prints the version (--version), runs the walkthrough (no kubeconfig, not in a pod) or the
// controller against a cluster. A configuration error returns at once, except in a pod, which
// holds it unready (holdUnready) until ctx ends.
func Run(ctx context.Context, f *Flags, stdout, stderr io.Writer) error {
	if f.Version {
		_, err := fmt.Fprintln(stdout, buildinfo.Line("napkit-controller"))
		return err
	}
	log, err := newLogger(f.LogLevel, f.LogFormat, stderr)
	if err != nil {
		return unreadyInPod(ctx, f, err, slog.New(slog.NewJSONHandler(stderr, nil)))
	}
	if f.Kubeconfig == "" && os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		if set := append(f.azureFlagsSet(), clusterOnlyFlags(f)...); len(set) > 0 {
			return &ConfigError{Flag: "--kubeconfig", Reason: fmt.Sprintf("is required with %s (without a cluster only the in-process walkthrough runs)",
				strings.Join(set, ", "))}
		}
		if _, err := walkthrough.Run(ctx, walkthrough.Options{Out: stdout, Logger: log}); err != nil {
			return fmt.Errorf("walkthrough failed: %w", err)
		}
		return nil
	}
	return unreadyInPod(ctx, f, runController(ctx, f, log), log)
}

// unreadyInPod holds a pod whose configuration is wrong unready, serving /healthz and a failing
// /readyz on --health-addr (holdUnready); any other error, or one outside a pod (from a terminal,
// where the error is the answer), is returned as it is.
func unreadyInPod(ctx context.Context, f *Flags, err error, log *slog.Logger) error {
	if err == nil || !IsConfigError(err) || f.HealthAddr == "" || !inPod(os.Getenv) {
		return err
	}
	return holdUnready(ctx, f.HealthAddr, err, log)
}

// clusterOnlyFlags names the flags given, besides the Azure ones, that only a run against a
// cluster reads: the walkthrough would ignore them.
func clusterOnlyFlags(f *Flags) []string {
	var set []string
	for _, v := range []struct {
		name string
		set  bool
	}{
		{"--simulate", f.Simulate}, {"--provision-mode", f.ProvisionMode != string(imagefamily.ModeScriptless)},
		{"--aks-machines-pool-name", f.AKSMachinesPool != ""}, {"--sig-subscription-id", f.SIGSubscriptionID != ""},
	} {
		if v.set {
			set = append(set, v.name)
		}
	}
	return set
}

// runController manages the cluster of the kubeconfig (or the pod's own cluster).
func runController(ctx context.Context, f *Flags, log *slog.Logger) error {
	info, _ := buildinfo.Read()
	log.Info("starting napkit controller", "version", info.Version, "revision", info.Revision, "simulate", f.Simulate)
	rest, err := clientcmd.BuildConfigFromFlags("", f.Kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	if err := checkNumbers(f); err != nil {
		return err
	}
	if err := checkSimEndpoint(f); err != nil {
		return err
	}
	if _, err := applyMemoryLimit(f.MemoryLimit, log); err != nil {
		return err
	}
	stopPprof, err := servePprof(ctx, f.PprofAddr, log)
	if err != nil {
		return err
	}
	defer stopPprof()
	simRest := restclient.CopyConfig(rest) // the simulated kubelets' own client, unlimited by the controller's
	rest.QPS, rest.Burst = float32(f.KubeAPIQPS), f.KubeAPIBurst
	registry := prometheus.NewRegistry()
	// The Go runtime's and the process's own figures (heap, GC, RSS, CPU), as controller-runtime
	// serves them: what a controller's memory and CPU are judged by.
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	clientMetrics, err := controller.NewClientMetrics(registry)
	if err != nil {
		return err
	}
	clientMetrics.Instrument(rest)
	kube, err := kubernetes.NewForConfig(rest)
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rest)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	offerings := launch.NewUnavailableOfferings(nil)
	prices, err := livePrices(f)
	if err != nil {
		return err
	}
	nominate, err := controller.ParseNominatePolicy(f.NominatePods)
	if err != nil {
		return &ConfigError{Flag: "--nominate-pods", Value: f.NominatePods, Reason: "must be off, all, constrained, replanned or predicted", Err: err}
	}
	prov, err := provisionSettings(f)
	if err != nil {
		return err
	}
	catalogue, err := controller.NewLiveCatalogue(f.Location, api.DefaultClusterNetwork(), offerings, prices)
	if err != nil {
		return err
	}
	cfg := controller.Config{Kube: kube, Dynamic: dyn, Offerings: offerings, Catalogue: catalogue, Logger: log, Metrics: registry,
		Images: imagefamily.ImageOptions{Version: f.ImageVersion, SIGSubscriptionID: prov.sigSubscriptionID}, MetricsAddr: f.MetricsAddr, HealthAddr: f.HealthAddr,
		BatchIdle: f.BatchIdle, BatchMax: f.BatchMax, WaitForScheduler: f.WaitForScheduler, PlanForScheduler: f.PlanForScheduler, NominatePods: nominate, NominateMaxUnbound: f.NominateMaxUnbound, NominateMaxPending: f.NominateMaxPending, DisruptionInterval: f.DisruptionInterval,
		MaxConcurrentLaunches: f.MaxConcurrentLaunches, ProvisionMode: prov.mode,
		DisruptionChainSteps: f.DisruptionChainSteps, MarkUnneeded: f.MarkUnneeded,
		ValidationDelay: f.ValidationDelay, GCInterval: f.GCInterval,
		Consolidation: f.consolidationOptions(),
		Upkeep: controller.Upkeep{StatusInterval: f.StatusInterval, SystemNamespace: f.SystemNamespace,
			KubernetesVersion: f.KubernetesVersion, RepairInterval: f.RepairInterval, Prices: prices, PriceRefresh: f.PriceRefresh}}
	if f.LeaderElect {
		host, _ := os.Hostname()
		cfg.LeaderElectionNamespace, cfg.LeaderElectionName, cfg.Identity = f.LeaderElectionNamespace, f.LeaderElectionName, host
	}
	// The group's context ends every part when one fails (the controller, or the simulated kubelet).
	g, ctx := errgroup.WithContext(ctx)
	if f.Simulate {
		err = configureSimulation(ctx, f, prov, simRest, &cfg, g)
	} else {
		err = configureAzure(f, prov, &cfg)
	}
	if err != nil {
		return err
	}
	// Nodes boot the control plane's version (or the pin, never newer): resolved now, so a bad pin
	// stops the start, and kept current afterwards by the AKSNodeClass status writer.
	if cfg.Cluster.KubernetesVersion, err = nodeKubernetesVersion(kube, f.KubernetesVersion); err != nil {
		return err
	}
	ctrl, err := controller.New(cfg)
	if err != nil {
		return err
	}
	g.Go(func() error { return ctrl.Run(ctx) })
	return g.Wait()
}

// consolidationOptions are the flags' consolidation settings.
func (f *Flags) consolidationOptions() consolidation.Options {
	return consolidation.Options{MinReplaceSavings: f.MinReplaceSavings, AllowManyToMany: f.AllowManyToMany}
}

// checkNumbers rejects the numeric flags out of their range before anything starts: a
// --consolidation-min-replace-savings outside [0, 1) would otherwise fail every disruption pass.
func checkNumbers(f *Flags) error {
	switch {
	case f.KubeAPIQPS <= 0:
		return &ConfigError{Flag: "--kube-api-qps", Value: fmt.Sprint(f.KubeAPIQPS), Reason: "must be positive"}
	case f.KubeAPIBurst <= 0:
		return &ConfigError{Flag: "--kube-api-burst", Value: fmt.Sprint(f.KubeAPIBurst), Reason: "must be positive"}
	case f.MaxConcurrentLaunches < 0:
		return &ConfigError{Flag: "--max-concurrent-launches", Value: fmt.Sprint(f.MaxConcurrentLaunches),
			Reason: "must not be negative (0: the default, 1,000)"}
	case !(f.MinReplaceSavings >= 0 && f.MinReplaceSavings < 1):
		return &ConfigError{Flag: "--consolidation-min-replace-savings", Value: fmt.Sprint(f.MinReplaceSavings),
			Reason: "must be a fraction in [0, 1), such as 0.1 for 10 %"}
	}
	return nil
}

// checkSimEndpoint refuses --sim-azure-endpoint without --simulate (it is the simulated Azure's
// address, never real Azure's) or that is not an https URL (azcore sends its token over TLS only).
func checkSimEndpoint(f *Flags) error {
	if f.SimAzureEndpoint == "" {
		return nil
	}
	if !f.Simulate {
		return &ConfigError{Flag: "--sim-azure-endpoint", Value: f.SimAzureEndpoint, Reason: "needs --simulate (it is the simulated Azure's address)"}
	}
	if u, err := url.Parse(f.SimAzureEndpoint); err != nil || u.Scheme != "https" || u.Host == "" {
		return &ConfigError{Flag: "--sim-azure-endpoint", Value: f.SimAzureEndpoint, Reason: "must be an https://host:port URL"}
	}
	return nil
}
