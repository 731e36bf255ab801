package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/walkthrough"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
)

// Run runs the walkthrough (no kubeconfig, not in a pod) or the controller against a cluster.
func Run(ctx context.Context, f *Flags, stdout, stderr io.Writer) error {
	level := slog.LevelWarn
	if f.Verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if f.Kubeconfig == "" && os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		_, err := walkthrough.Run(ctx, walkthrough.Options{Out: stdout, Logger: log})
		if err != nil {
			return fmt.Errorf("walkthrough failed: %w", err)
		}
		return nil
	}
	return runController(ctx, f, log)
}

// runController manages the cluster of the kubeconfig (or the pod's own cluster).
func runController(ctx context.Context, f *Flags, log *slog.Logger) error {
	rest, err := clientcmd.BuildConfigFromFlags("", f.Kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	kube, err := kubernetes.NewForConfig(rest)
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(rest)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	offerings := launch.NewUnavailableOfferings(nil)
	catalogue, err := controller.NewCatalogue(f.Location, api.DefaultClusterNetwork(), offerings)
	if err != nil {
		return err
	}
	cfg := controller.Config{Kube: kube, Dynamic: dyn, Offerings: offerings, Catalogue: catalogue, Logger: log,
		Images: imagefamily.ImageOptions{Version: f.ImageVersion}, HTTPAddr: f.HTTPAddr,
		BatchIdle: f.BatchIdle, BatchMax: f.BatchMax, DisruptionInterval: f.DisruptionInterval,
		ValidationDelay: f.ValidationDelay, GCInterval: f.GCInterval}
	if f.LeaderElect {
		host, _ := os.Hostname()
		cfg.LeaderElectionNamespace, cfg.LeaderElectionName, cfg.Identity = f.LeaderElectionNamespace, f.LeaderElectionName, host
	}
	// The group's context ends every part when one fails (the controller, or the simulated kubelet).
	g, ctx := errgroup.WithContext(ctx)
	if f.realAzure() {
		err = configureAzure(f, &cfg)
	} else {
		err = configureSimulation(ctx, f, &cfg, g)
	}
	if err != nil {
		return err
	}
	ctrl, err := controller.New(cfg)
	if err != nil {
		return err
	}
	g.Go(func() error { return ctrl.Run(ctx) })
	return g.Wait()
}
