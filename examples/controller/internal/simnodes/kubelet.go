// Package simnodes is a simulated kubelet for the simulated Azure: a VM that "boots" registers a
// Node with the provider ID, labels, taints, capacity and allocatable a real AKS node would have,
// turns Ready, holds a Lease in kube-node-lease that it renews as a kubelet does, and (standing in
// for the Cilium agent) drops its startup taints a little later. It runs the pods kube-scheduler
// binds to its nodes (they turn Running) and finishes the ones being deleted, and it deletes a Node
// once its VM is gone. It is test support for the example controller; no part of napkit's
// decisions lives here.
//
// Data flows in two ways. A poll lists the VMs (one ARM list) and turns what changed into work
// items: register, finish startup, renew a Lease, deregister. Pod changes arrive through a shared
// informer and become work items too. A pool of workers does the writes in parallel, so thousands
// of nodes cost one list per poll plus one write per change, never a pass over every pod.
package simnodes

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
)

// Options configure a Kubelet. Zero durations and counts mean the defaults in brackets.
type Options struct {
	// Kube writes Nodes, Leases and pod status. Give the kubelets a client of their own (real
	// kubelets each have one), so that their writes do not queue behind the controller's.
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
	// LeaseRenewInterval is how often a node renews its Lease (10 s, the kubelet's).
	LeaseRenewInterval time.Duration
	// Workers is how many writes run in parallel (16).
	Workers int
	// KubeletVersion is reported in the node info ("v1.33.2"), unless BootedVersion knows the
	// version the VM's bootstrap data installed (see BootedVersion).
	KubeletVersion string
	BootedVersion  func(vm string) (string, bool)
	Clock          func() time.Time
	Logger         *slog.Logger
}

// leaseDuration is the kubelet's default node lease duration.
const leaseDuration = 40 * time.Second

// Kubelet simulates the kubelets of every VM the launcher lists.
type Kubelet struct {
	opts                Options
	pods, nodes, claims cache.SharedIndexInformer
	queue               workqueue.TypedRateLimitingInterface[item]
	mu                  sync.Mutex
	vms                 map[string]*simNode // by node (= VM) name
}

// simNode is one VM's kubelet.
type simNode struct {
	inst *launch.Instance
	// seen is when the VM was first listed; registered when its Node was created (zero: not yet).
	seen, registered time.Time
	startupTaints    []corev1.Taint
	started, gone    bool
	// queued is set while a register or deregister item for it waits or runs.
	queued bool
	// lease is the node's Lease as last written; renewed is when.
	lease   *coordinationv1.Lease
	renewed time.Time
}

// New checks opts and builds the kubelet; nothing runs until Run.
func New(opts Options) (*Kubelet, error) {
	if opts.Kube == nil || opts.Dynamic == nil || opts.Launcher == nil || opts.InstanceType == nil {
		return nil, errors.New("simnodes: Kube, Dynamic, Launcher and InstanceType are required")
	}
	if opts.Workers < 0 {
		return nil, errors.New("simnodes: Workers must not be negative")
	}
	setDefault(&opts.BootDelay, time.Second)
	setDefault(&opts.StartupDelay, 500*time.Millisecond)
	setDefault(&opts.Poll, 100*time.Millisecond)
	setDefault(&opts.LeaseRenewInterval, 10*time.Second)
	if opts.Workers == 0 {
		opts.Workers = 16
	}
	if opts.KubeletVersion == "" {
		opts.KubeletVersion = "v1.33.2"
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	kf := informers.NewSharedInformerFactory(opts.Kube, 0)
	k := &Kubelet{
		opts: opts, pods: kf.Core().V1().Pods().Informer(), nodes: kf.Core().V1().Nodes().Informer(),
		claims: dynamicinformer.NewDynamicSharedInformerFactory(opts.Dynamic, 0).ForResource(controller.NodeClaimsGVR).Informer(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[item](50*time.Millisecond, 5*time.Second),
			workqueue.TypedRateLimitingQueueConfig[item]{Name: "simnodes"}),
		vms: map[string]*simNode{},
	}
	if err := k.pods.AddIndexers(cache.Indexers{byNode: podNode}); err != nil {
		return nil, err
	}
	if _, err := k.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: k.onPod, UpdateFunc: func(_, obj any) { k.onPod(obj) },
	}); err != nil {
		return nil, err
	}
	return k, nil
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// Run simulates until ctx ends.
func (k *Kubelet) Run(ctx context.Context) error {
	var informers sync.WaitGroup
	defer informers.Wait() // after ctx ends: no handler outlives Run
	for _, inf := range []cache.SharedIndexInformer{k.pods, k.nodes, k.claims} {
		informers.Go(func() { inf.Run(ctx.Done()) })
	}
	if !cache.WaitForCacheSync(ctx.Done(), k.pods.HasSynced, k.nodes.HasSynced, k.claims.HasSynced) {
		k.queue.ShutDown()
		return nil
	}
	var wg sync.WaitGroup
	for range k.opts.Workers {
		wg.Go(func() { k.work(ctx) })
	}
	defer func() { k.queue.ShutDown(); wg.Wait() }()
	tick := time.NewTicker(k.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := k.poll(ctx); err != nil && ctx.Err() == nil {
				k.opts.Logger.Warn("simulated kubelet poll failed", "error", err)
			}
		}
	}
}

// poll lists the VMs once and queues what each node has to do next.
func (k *Kubelet) poll(ctx context.Context) error {
	insts, err := k.opts.Launcher.List(ctx)
	if err != nil {
		return err
	}
	now := k.opts.Clock()
	live := make(map[string]*launch.Instance, len(insts))
	for _, inst := range insts {
		if inst.State == launch.StateSucceeded {
			live[inst.Name] = inst
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, inst := range live {
		if k.vms[name] == nil {
			k.vms[name] = &simNode{inst: inst, seen: now}
		}
	}
	for name, n := range k.vms {
		if next, ok := k.nextStep(n, live[name] != nil, now); ok {
			k.queue.Add(item{kind: next, name: name})
		}
	}
	return nil
}

// nextStep is what the node must do now, if anything. The caller holds k.mu.
func (k *Kubelet) nextStep(n *simNode, vmLive bool, now time.Time) (itemKind, bool) {
	switch {
	case n.queued:
		return 0, false
	case !vmLive:
		n.gone, n.queued = true, true
		return deregisterNode, true
	case n.registered.IsZero():
		if now.Sub(n.seen) < k.opts.BootDelay {
			return 0, false
		}
		n.queued = true
		return registerNode, true
	case !n.started && now.Sub(n.registered) >= k.opts.StartupDelay:
		n.started = true
		return finishStartup, true
	case now.Sub(n.renewed) >= k.opts.LeaseRenewInterval:
		n.renewed = now // the write follows; a failure is retried by the queue
		return renewLease, true
	}
	return 0, false
}

// registeredNode returns the node's state if its Node is registered and its VM still live.
func (k *Kubelet) registeredNode(name string) (*simNode, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.vms[name]
	if n == nil || n.registered.IsZero() || n.gone {
		return nil, false
	}
	return n, true
}
