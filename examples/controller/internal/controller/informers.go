package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// Index names: pods by the node they are bound to, nodes and NodeClaims by provider ID (the only
// link between a NodeClaim and its Node before registration).
const (
	byNodeName   = "nodeName"
	byProviderID = "providerID"
)

// informerSet is the controller's cached view of the cluster.
type informerSet struct {
	kube                          informers.SharedInformerFactory
	dyn                           dynamicinformer.DynamicSharedInformerFactory
	pods, nodes, pdbs, daemonSets cache.SharedIndexInformer
	pools, claims, classes        cache.SharedIndexInformer
}

func newInformers(cfg Config) (*informerSet, error) {
	kf := informers.NewSharedInformerFactory(cfg.Kube, 0)
	df := dynamicinformer.NewDynamicSharedInformerFactory(cfg.Dynamic, 0)
	s := &informerSet{
		kube: kf, dyn: df,
		pods: kf.Core().V1().Pods().Informer(), nodes: kf.Core().V1().Nodes().Informer(),
		pdbs: kf.Policy().V1().PodDisruptionBudgets().Informer(), daemonSets: kf.Apps().V1().DaemonSets().Informer(),
		pools: df.ForResource(NodePoolsGVR).Informer(), claims: df.ForResource(NodeClaimsGVR).Informer(),
		classes: df.ForResource(AKSNodeClassesGVR).Informer(),
	}
	var errs []error
	for _, inf := range s.all() {
		if inf != s.claims {
			errs = append(errs, inf.SetTransform(stripManagedFields))
		}
	}
	errs = append(errs, s.claims.SetTransform(claimTransform(cfg.Logger)))
	err := errors.Join(append(errs,
		s.pods.AddIndexers(cache.Indexers{byNodeName: podNodeName}),
		s.nodes.AddIndexers(cache.Indexers{byProviderID: nodeProviderID}),
		s.claims.AddIndexers(cache.Indexers{byProviderID: claimProviderID}),
	)...)
	if err != nil {
		return nil, fmt.Errorf("informer transforms and indexers: %w", err)
	}
	return s, nil
}

// all are the set's informers.
func (s *informerSet) all() []cache.SharedIndexInformer {
	return []cache.SharedIndexInformer{s.pods, s.nodes, s.pdbs, s.daemonSets, s.pools, s.claims, s.classes}
}

// stripManagedFields drops metadata.managedFields before an object enters a cache. The controller
// never reads them, and they repeat every field each writer set (a pod's: kube-controller-manager,
// kube-scheduler, the kubelet; a NodeClaim's: its whole requirements list): with 20,000 pods they
// are a large share of the controller's memory. controller-runtime offers the same transform
// (cache.TransformStripManagedFields, "a significant reduction in memory usage"). An update the
// controller sends from a stripped copy carries no managedFields, and the API server then keeps
// the object's own. Objects without metadata (a DeletedFinalStateUnknown) pass unchanged.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// start runs the informers and waits for their first list.
func (s *informerSet) start(ctx context.Context) error {
	s.kube.Start(ctx.Done())
	s.dyn.Start(ctx.Done())
	synced := []cache.InformerSynced{s.pods.HasSynced, s.nodes.HasSynced, s.pdbs.HasSynced, s.daemonSets.HasSynced,
		s.pools.HasSynced, s.claims.HasSynced, s.classes.HasSynced}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("informer caches did not sync: %w", context.Cause(ctx))
	}
	return nil
}

// shutdown waits for every informer, and every event handler, to return; the context start was
// given must be done first. A handler still running after Run returned would act on a controller
// its caller thinks stopped.
func (s *informerSet) shutdown() {
	s.kube.Shutdown()
	s.dyn.Shutdown()
}

func podNodeName(obj any) ([]string, error) {
	if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.NodeName != "" {
		return []string{pod.Spec.NodeName}, nil
	}
	return nil, nil
}

func nodeProviderID(obj any) ([]string, error) {
	if node, ok := obj.(*corev1.Node); ok && node.Spec.ProviderID != "" {
		return []string{node.Spec.ProviderID}, nil
	}
	return nil, nil
}

func claimProviderID(obj any) ([]string, error) {
	if id := cachedClaimProviderID(obj); id != "" {
		return []string{id}, nil
	}
	return nil, nil
}
