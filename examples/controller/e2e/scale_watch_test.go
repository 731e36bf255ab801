//go:build e2e && scale

package e2e

import (
	"context"
	"hash/fnv"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
)

// watcher follows pods, nodes and NodeClaims through informers, so that the suite measures a
// cluster of thousands of objects without listing it every poll: the counts are read from the
// caches and the binding times are stamped as the watch events arrive.
type watcher struct {
	pods, nodes, claims cache.SharedIndexInformer
	mu                  sync.Mutex
	bound               []time.Time // when each binding was seen, in order
	created             map[string]time.Time
	pendingFor          time.Duration // the longest a pod waited from creation to Running
	// marked is when kube-scheduler's first verdict on each pod was seen: PodScheduled=False
	// (Unschedulable) or a binding, whichever came first; the controller plans a pod only once
	// kube-scheduler has marked it Unschedulable.
	marked map[string]time.Time
	// lives, nodeLives and claimSeen are each pod's and node's timeline (scale_pending_test.go).
	lives     map[string]*podLife
	nodeLives map[string]*nodeLife
	claimSeen map[string]time.Time
}

func startWatcher(t *testing.T, c *cluster) *watcher {
	t.Helper()
	kf := informers.NewSharedInformerFactory(c.kube, 0)
	napkitNodes := informers.NewSharedInformerFactoryWithOptions(c.kube, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = notSystemNode }))
	w := &watcher{pods: kf.Core().V1().Pods().Informer(), nodes: napkitNodes.Core().V1().Nodes().Informer(),
		claims:  dynamicinformer.NewDynamicSharedInformerFactory(c.dyn, 0).ForResource(controller.NodeClaimsGVR).Informer(),
		created: map[string]time.Time{}, marked: map[string]time.Time{},
		lives: map[string]*podLife{}, nodeLives: map[string]*nodeLife{}, claimSeen: map[string]time.Time{}}
	for inf, on := range map[cache.SharedIndexInformer]func(old, obj any){w.pods: w.onPod,
		w.nodes: func(_, obj any) { w.onNode(obj) }, w.claims: func(_, obj any) { w.onClaim(obj) }} {
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { on(nil, obj) }, UpdateFunc: on})
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, inf := range []cache.SharedIndexInformer{w.pods, w.nodes, w.claims} {
		go inf.Run(ctx.Done())
	}
	if !cache.WaitForCacheSync(t.Context().Done(), w.pods.HasSynced, w.nodes.HasSynced, w.claims.HasSynced) {
		t.Fatal("the suite's informers did not sync")
	}
	return w
}

func (w *watcher) onPod(oldObj, obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	old, _ := oldObj.(*corev1.Pod)
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	uid := string(pod.UID)
	life := w.lives[uid]
	if old == nil {
		w.created[uid] = now
		life = &podLife{name: pod.Name, created: now}
		w.lives[uid] = life
	}
	if _, seen := w.marked[uid]; !seen && (pod.Spec.NodeName != "" || unschedulable(pod)) {
		w.marked[uid] = now
	}
	if life != nil && life.unschedulable.IsZero() && unschedulable(pod) {
		life.unschedulable = now
	}
	if pod.Spec.NodeName != "" && (old == nil || old.Spec.NodeName == "") {
		w.bound = append(w.bound, now)
		if life != nil {
			life.bound, life.node = now, pod.Spec.NodeName
		}
	}
	if pod.Status.Phase == corev1.PodRunning && (old == nil || old.Status.Phase != corev1.PodRunning) {
		if at, ok := w.created[uid]; ok {
			w.pendingFor = max(w.pendingFor, now.Sub(at))
		}
		if life != nil {
			life.running = now
		}
	}
}

func unschedulable(pod *corev1.Pod) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled {
			return cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// verdicts is how fast kube-scheduler gave its first verdict on the pods created since from: the
// time from `from` to the last pod's verdict, and the median and longest creation-to-verdict wait.
func (w *watcher) verdicts(from time.Time) (last, median, longest time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var waits []time.Duration
	for uid, at := range w.marked {
		created, ok := w.created[uid]
		if !ok || created.Before(from) {
			continue
		}
		last = max(last, at.Sub(from))
		waits = append(waits, at.Sub(created))
	}
	if len(waits) == 0 {
		return last, 0, 0
	}
	slices.Sort(waits)
	return last, waits[len(waits)/2], waits[len(waits)-1]
}

// counts is one reading of the caches.
type counts struct {
	pods, running, pending, terminating int
	nodes, initialized                  int
	claims                              int
	// claimSet identifies the set of NodeClaim names (a sum of their hashes), so that a
	// replacement (one NodeClaim gone, one new) counts as a change.
	claimSet uint64
}

func (w *watcher) count() counts {
	var c counts
	for _, obj := range w.pods.GetStore().List() {
		pod := obj.(*corev1.Pod)
		switch {
		case pod.DeletionTimestamp != nil:
			c.terminating++
		case pod.Status.Phase == corev1.PodRunning && pod.Spec.NodeName != "":
			c.pods++
			c.running++
		default:
			c.pods++
			c.pending++
		}
	}
	for _, obj := range w.nodes.GetStore().List() {
		node := obj.(*corev1.Node)
		c.nodes++
		if node.Labels[api.LabelNodeInitialized] == "true" && nodeIsReady(node) {
			c.initialized++
		}
	}
	keys := w.claims.GetStore().ListKeys()
	c.claims = len(keys)
	for _, k := range keys {
		h := fnv.New64a()
		_, _ = h.Write([]byte(k))
		c.claimSet += h.Sum64()
	}
	return c
}

func nodeIsReady(node *corev1.Node) bool {
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// bindingRate is kube-scheduler's binding rate over the bindings seen since from: the mean over
// their span, and the most bindings seen in any one second.
func (w *watcher) bindingRate(from time.Time) (mean, peak float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var times []time.Time
	for _, at := range w.bound {
		if !at.Before(from) {
			times = append(times, at)
		}
	}
	if len(times) < 2 {
		return 0, 0
	}
	if span := times[len(times)-1].Sub(times[0]).Seconds(); span > 0 {
		mean = float64(len(times)) / span
	}
	for i, j := 0, 0; j < len(times); j++ {
		for times[j].Sub(times[i]) > time.Second {
			i++
		}
		peak = max(peak, float64(j-i+1))
	}
	return mean, peak
}

// podsCreated is how many pods the watch has seen created.
func (w *watcher) podsCreated() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.created)
}

// takePendingFor returns the longest creation-to-Running wait seen since the last call.
func (w *watcher) takePendingFor() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.pendingFor
	w.pendingFor = 0
	return d
}
