package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// newClaim turns a planned NodeClaim into the object: the pool's template, the labels the plan
// worked out (which the launch corrects to the instance type actually launched), and
// requirements narrowed to the plan's launch list, zone and capacity type. Pinning the zone and
// capacity type keeps every pod the plan put here satisfied whichever option launches; if that
// offering is out of capacity the claim fails and the next batch plans around it.
func newClaim(name string, pool *api.NodePool, p provisioner.NodeClaim) *api.NodeClaim {
	t := pool.Spec.Template
	labels := maps.Clone(p.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, t.ObjectMeta.Labels)
	labels[api.LabelNodePool] = pool.Name
	annotations := maps.Clone(t.ObjectMeta.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[api.AnnotationNodePoolHash] = consolidation.NodePoolHash(pool)
	annotations[consolidation.AnnotationNodePoolHashVersion] = consolidation.NodePoolHashVersion
	nc := &api.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: labels, Annotations: annotations, Finalizers: []string{api.TerminationFinalizer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: api.KarpenterVersion, Kind: api.KindNodePool,
				Name: pool.Name, UID: pool.UID, BlockOwnerDeletion: ptr(true)}},
		},
		Spec: api.NodeClaimSpec{
			Taints: slices.Clone(p.Taints), StartupTaints: slices.Clone(p.StartupTaints),
			Requirements: claimRequirements(t.Spec.Requirements, p),
			Resources:    api.ResourceRequirements{Requests: p.Requests.DeepCopy()},
			NodeClassRef: t.Spec.NodeClassRef, TerminationGracePeriod: t.Spec.TerminationGracePeriod,
			ExpireAfter: t.Spec.ExpireAfter,
		},
	}
	claimTypeMeta(nc)
	return nc
}

// claimRequirements are the pool's requirements and the plan's narrowing; a node selector ANDs
// requirements on the same key, so the pool's stay as they are.
func claimRequirements(pool []api.NodeSelectorRequirementWithMinValues, p provisioner.NodeClaim) []api.NodeSelectorRequirementWithMinValues {
	out := slices.Clone(pool)
	in := func(key string, values ...string) {
		out = append(out, api.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values})
	}
	in(api.LabelInstanceType, p.InstanceTypeOptions...)
	in(api.LabelZone, p.Zone)
	in(api.LabelCapacityType, p.CapacityType)
	return out
}

func (c *Controller) createClaim(ctx context.Context, nc *api.NodeClaim) error {
	u, err := ToUnstructured(nc)
	if err != nil {
		return fmt.Errorf("NodeClaim %s: %w", nc.Name, err)
	}
	if _, err := c.cfg.Dynamic.Resource(NodeClaimsGVR).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create NodeClaim %s: %w", nc.Name, err)
	}
	return nil
}

// deleteClaim asks for the claim's deletion; the termination finalizer does the rest.
func (c *Controller) deleteClaim(ctx context.Context, name string) error {
	err := c.cfg.Dynamic.Resource(NodeClaimsGVR).Delete(ctx, name, metav1.DeleteOptions{})
	if ignoreNotFound(err) != nil {
		return fmt.Errorf("delete NodeClaim %s: %w", name, err)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
