// Package simnodes is a simulated kubelet for the simulated Azure: a VM that "boots" registers a
// Node with the provider ID, labels, taints, capacity and allocatable a real AKS node would have,
// turns Ready, and (standing in for the Cilium agent) drops its startup taints a little later. It
// runs the pods bound to its nodes (they turn Running) and finishes the ones being deleted, and it
// deletes a Node once its VM is gone. It is test support for the example controller; no part of
// napkit's decisions lives here.
package simnodes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
)

// Options configure a Kubelet. Zero durations mean the defaults in brackets.
type Options struct {
	Kube kubernetes.Interface
	// Dynamic reads the NodeClaim a VM was launched for: its labels and taints are what the
	// bootstrap data gave the real kubelet.
	Dynamic dynamic.Interface
	// Launcher lists the VMs (the launcher on the simulated Azure).
	Launcher launch.Launcher
	// InstanceType returns the catalogue entry of a VM size, for capacity and allocatable.
	InstanceType func(sku string) (*instancetype.InstanceType, bool)
	// Region labels the nodes.
	Region string
	// BootDelay is how long after its VM appears a node registers (1 s); StartupDelay how long
	// after registration its startup taints go (500 ms); Poll how often VMs are listed (100 ms).
	BootDelay, StartupDelay, Poll time.Duration
	// KubeletVersion is reported in the node info ("v1.33.2").
	KubeletVersion string
	Clock          func() time.Time
	Logger         *slog.Logger
}

// Kubelet simulates the kubelets of every VM the launcher lists.
type Kubelet struct {
	opts  Options
	pods  cache.SharedIndexInformer
	nodes map[string]*simNode // by node (= VM) name; only the Run goroutine touches it
}

// simNode is one VM's kubelet.
type simNode struct {
	seen, registered time.Time
	startupTaints    []corev1.Taint
	started          bool
}

// New checks opts and builds the kubelet; nothing runs until Run.
func New(opts Options) (*Kubelet, error) {
	if opts.Kube == nil || opts.Dynamic == nil || opts.Launcher == nil || opts.InstanceType == nil {
		return nil, errors.New("simnodes: Kube, Dynamic, Launcher and InstanceType are required")
	}
	setDefault(&opts.BootDelay, time.Second)
	setDefault(&opts.StartupDelay, 500*time.Millisecond)
	setDefault(&opts.Poll, 100*time.Millisecond)
	if opts.KubeletVersion == "" {
		opts.KubeletVersion = "v1.33.2"
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	pods := informers.NewSharedInformerFactory(opts.Kube, 0).Core().V1().Pods().Informer()
	return &Kubelet{opts: opts, pods: pods, nodes: map[string]*simNode{}}, nil
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// Run simulates until ctx ends.
func (k *Kubelet) Run(ctx context.Context) error {
	go k.pods.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), k.pods.HasSynced) {
		return nil
	}
	tick := time.NewTicker(k.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := k.step(ctx); err != nil && ctx.Err() == nil {
				k.opts.Logger.Warn("simulated kubelet step failed", "error", err)
			}
		}
	}
}

// step advances every simulated node by one poll.
func (k *Kubelet) step(ctx context.Context) error {
	insts, err := k.opts.Launcher.List(ctx)
	if err != nil {
		return fmt.Errorf("list VMs: %w", err)
	}
	now := k.opts.Clock()
	live := map[string]*launch.Instance{}
	for _, inst := range insts {
		if inst.State == launch.StateSucceeded {
			live[inst.Name] = inst
		}
	}
	var errs []error
	for name, inst := range live {
		errs = append(errs, k.boot(ctx, name, inst, now))
	}
	for name, n := range k.nodes {
		errs = append(errs, k.lifecycle(ctx, name, n, live[name] != nil, now))
	}
	errs = append(errs, k.runPods(ctx))
	return errors.Join(errs...)
}

// boot registers the VM's node once BootDelay has passed since the VM was first seen.
func (k *Kubelet) boot(ctx context.Context, name string, inst *launch.Instance, now time.Time) error {
	n := k.nodes[name]
	if n == nil {
		n = &simNode{seen: now}
		k.nodes[name] = n
	}
	if !n.registered.IsZero() || now.Sub(n.seen) < k.opts.BootDelay {
		return nil
	}
	taints, err := k.register(ctx, inst)
	if err != nil {
		return err
	}
	n.registered, n.startupTaints = now, taints
	return nil
}

// lifecycle finishes startup (drops the startup taints) and deletes the node once its VM is gone.
func (k *Kubelet) lifecycle(ctx context.Context, name string, n *simNode, vmLive bool, now time.Time) error {
	switch {
	case !vmLive:
		delete(k.nodes, name) // deleting while ranging is safe in Go
		if n.registered.IsZero() {
			return nil
		}
		return k.deregister(ctx, name)
	case n.registered.IsZero():
		return nil
	case !n.started && now.Sub(n.registered) >= k.opts.StartupDelay:
		n.started = true
		return k.finishStartup(ctx, name, n.startupTaints)
	}
	return nil
}
