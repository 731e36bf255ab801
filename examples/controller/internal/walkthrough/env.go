package walkthrough

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
)

// The simulated cluster.
const (
	region        = "eastus"
	resourceGroup = "MC_napkit_napkit_eastus"
	clusterName   = "napkit"
	imageVersion  = "202611.01.0"
)

// env is everything the walkthrough runs: an in-process API (client-go's fakes), the simulated
// Azure with its kubelets, the controller, and the stand-ins for kube-scheduler and the
// Deployment controller.
type env struct {
	kube     *kubefake.Clientset
	dyn      *dynamicfake.FakeDynamicClient
	sim      *azuresim.Sim
	ctrl     *controller.Controller
	kubelet  *simnodes.Kubelet
	narrator *narrator
	binder   *binder
	replicas *replicator
	running  sync.WaitGroup
}

func newEnv(out io.Writer, log *slog.Logger) (*env, error) {
	kube, dyn := newCluster(time.Now)
	offerings := launch.NewUnavailableOfferings(nil)
	catalogue, err := controller.NewCatalogue(region, api.DefaultClusterNetwork(), offerings)
	if err != nil {
		return nil, err
	}
	class := &api.AKSNodeClass{}
	class.Default()
	base, err := catalogue(class)
	if err != nil {
		return nil, err
	}
	sim, launcher, err := simnodes.NewAzure(simnodes.AzureOptions{Catalogue: base, ResourceGroup: resourceGroup,
		ClusterName: clusterName, Offerings: offerings, Seed: 1, Logger: log})
	if err != nil {
		return nil, err
	}
	ctrl, err := newController(kube, dyn, launcher, offerings, catalogue, log)
	if err != nil {
		return nil, err
	}
	kubelet, err := simnodes.New(simnodes.Options{Kube: kube, Dynamic: dyn, Launcher: launcher, InstanceType: base.Find,
		Region: region, BootDelay: 300 * time.Millisecond, StartupDelay: 200 * time.Millisecond, Poll: 50 * time.Millisecond, Logger: log})
	if err != nil {
		return nil, err
	}
	return &env{kube: kube, dyn: dyn, sim: sim, ctrl: ctrl, kubelet: kubelet, narrator: newNarrator(out, kube, dyn, sim),
		binder: &binder{kube: kube}, replicas: &replicator{kube: kube}}, nil
}

// newController configures the controller with intervals short enough for a walkthrough that
// finishes in seconds; everything else is as in a cluster.
func newController(kube *kubefake.Clientset, dyn *dynamicfake.FakeDynamicClient, launcher launch.Launcher,
	offerings *launch.UnavailableOfferings, catalogue controller.CatalogueFunc, log *slog.Logger) (*controller.Controller, error) {
	cluster, sshKey, err := simnodes.Cluster(clusterName, region, resourceGroup)
	if err != nil {
		return nil, err
	}
	return controller.New(controller.Config{
		Kube: kube, Dynamic: dyn, Launcher: launcher, Offerings: offerings, Catalogue: catalogue,
		ClusterName: clusterName, Cluster: cluster, Images: imagefamily.ImageOptions{Version: imageVersion},
		SSHPublicKey: sshKey, NodeIdentities: []string{simnodes.KubeletIdentity(clusterName, resourceGroup)}, Logger: log, Seed: 1,
		BatchIdle: 200 * time.Millisecond, BatchMax: 2 * time.Second, DisruptionInterval: 500 * time.Millisecond,
		ValidationDelay: 200 * time.Millisecond, GCInterval: time.Second, GCGracePeriod: 2 * time.Second,
	})
}

// start runs every component until ctx ends (wait for them with e.running.Wait); a component
// that fails reports it through fail.
func (e *env) start(ctx context.Context, fail func(error)) {
	e.running.Go(func() {
		if err := e.ctrl.Run(ctx); err != nil {
			fail(fmt.Errorf("controller: %w", err))
		}
	})
	e.running.Go(func() {
		if err := e.kubelet.Run(ctx); err != nil {
			fail(fmt.Errorf("simulated kubelet: %w", err))
		}
	})
	e.running.Go(func() {
		if err := e.narrator.run(ctx); err != nil {
			fail(fmt.Errorf("narrator: %w", err))
		}
	})
	for name, step := range map[string]func(context.Context) error{
		"scheduler stand-in": e.binder.step, "deployment stand-in": e.replicas.step,
	} {
		e.running.Go(func() {
			wait.UntilWithContext(ctx, func(ctx context.Context) {
				if err := step(ctx); err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
					fail(fmt.Errorf("%s: %w", name, err))
				}
			}, 50*time.Millisecond)
		})
	}
}
