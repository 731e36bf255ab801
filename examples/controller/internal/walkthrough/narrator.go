package walkthrough

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/launch/azuresim"
)

// narrator prints, as they happen, the NodeClaims, VMs and nodes that come, change and go, the
// events the controller records, and how many of the walkthrough's pods run. It watches the API
// like any client (informers) and polls the simulated Azure, and it counts the figures of the
// summary line.
type narrator struct {
	out   io.Writer
	start time.Time
	kube  kubernetes.Interface
	dyn   dynamic.Interface
	sim   *azuresim.Sim
	pods  cache.SharedIndexInformer

	mu      sync.Mutex
	claims  map[string]string // name -> last state printed
	nodes   map[string]string
	vms     map[string]bool
	running int
	// launched counts every VM seen, removed every node seen to go.
	launched, removed int
}

func newNarrator(out io.Writer, kube kubernetes.Interface, dyn dynamic.Interface, sim *azuresim.Sim) *narrator {
	return &narrator{out: out, start: time.Now(), kube: kube, dyn: dyn, sim: sim,
		claims: map[string]string{}, nodes: map[string]string{}, vms: map[string]bool{}}
}

// say prints one line stamped with the time since the walkthrough began.
func (n *narrator) say(format string, args ...any) {
	fmt.Fprintf(n.out, "[%5.2fs] %s\n", time.Since(n.start).Seconds(), fmt.Sprintf(format, args...))
}

// run watches until ctx ends.
func (n *narrator) run(ctx context.Context) error {
	kf := informers.NewSharedInformerFactory(n.kube, 0)
	df := dynamicinformer.NewDynamicSharedInformerFactory(n.dyn, 0)
	n.pods = kf.Core().V1().Pods().Informer()
	inf := map[cache.SharedIndexInformer]func(obj any, gone bool){
		df.ForResource(controller.NodeClaimsGVR).Informer(): n.onClaim,
		kf.Core().V1().Nodes().Informer():                   n.onNode,
		kf.Core().V1().Events().Informer():                  n.onEvent,
		n.pods:                                              func(any, bool) { n.onPods() },
	}
	for i, f := range inf {
		_, err := i.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) { f(obj, false) }, UpdateFunc: func(_, obj any) { f(obj, false) },
			DeleteFunc: func(obj any) { f(obj, true) },
		})
		if err != nil {
			return err
		}
	}
	kf.Start(ctx.Done())
	df.Start(ctx.Done())
	wait.UntilWithContext(ctx, func(context.Context) { n.watchVMs() }, 20*time.Millisecond)
	// Wait for the informers' handlers to return: one still printing after run returns would
	// write to Out while Run prints the summary line (a data race the race detector caught).
	kf.Shutdown()
	df.Shutdown()
	return nil
}

func (n *narrator) onClaim(obj any, gone bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	nc, err := controller.FromUnstructured[api.NodeClaim](obj)
	if err != nil {
		return
	}
	n.change("nodeclaim", n.claims, nc.Name, claimState(nc), gone)
}

func (n *narrator) onNode(obj any, gone bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if node, ok := obj.(*corev1.Node); ok {
		n.change("node", n.nodes, node.Name, nodeState(node), gone)
	}
}

// change prints an object's new state, or its deletion.
func (n *narrator) change(kind string, last map[string]string, name, state string, gone bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case gone:
		delete(last, name)
		n.say("%s %s: deleted", kind, name)
		if kind == "node" {
			n.removed++
		}
	case last[name] != state:
		last[name] = state
		n.say("%s %s: %s", kind, name, state)
	}
}

// onEvent prints the controller's events (scheduling reasons, launches, evictions).
func (n *narrator) onEvent(obj any, gone bool) {
	ev, ok := obj.(*corev1.Event)
	if !ok || gone || ev.Source.Component != "napkit" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.say("event %s %s: %s: %s", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message)
}

// onPods recounts the walkthrough's running pods.
func (n *narrator) onPods() {
	running := 0
	for _, obj := range n.pods.GetStore().List() {
		if p, ok := obj.(*corev1.Pod); ok && p.Labels["app"] == deployment && isRunning(p) {
			running++
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if running != n.running {
		n.running = running
		n.say("pods running %d/%d", running, replicas)
	}
}

func isRunning(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil
}

func (n *narrator) watchVMs() {
	names := n.sim.VMNames()
	n.mu.Lock()
	defer n.mu.Unlock()
	now := map[string]bool{}
	for _, name := range names {
		now[name] = true
		if !n.vms[name] {
			n.say("vm %s: created", name)
			n.launched++
		}
	}
	for _, name := range sortedKeys(n.vms) {
		if !now[name] {
			n.say("vm %s: deleted", name)
		}
	}
	n.vms = now
}

// runningPods is the running count as printed last, so the script never runs ahead of the story.
func (n *narrator) runningPods() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.running
}

// hasNode reports whether the narrator still sees the node.
func (n *narrator) hasNode(name string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.nodes[name]
	return ok
}

// nodesSeen is how many nodes the narrator's informer still shows.
func (n *narrator) nodesSeen() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.nodes)
}

// counts returns the summary's VM and node figures.
func (n *narrator) counts() (launched, removed int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.launched, n.removed
}
