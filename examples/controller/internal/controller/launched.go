package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
)

const reasonLaunchFailed = "LaunchFailed"

// markLaunched records the VM on the claim: the labels of the instance type and offering that
// really launched, then the provider ID, image, capacity and the Launched condition.
func (c *Controller) markLaunched(ctx context.Context, name string, inst *launch.Instance, cat *instancetype.Catalogue) error {
	it, ok := cat.Find(inst.SKU)
	if !ok {
		return fmt.Errorf("launched VM %s has size %s, which the catalogue lacks", inst.Name, inst.SKU)
	}
	labels := launchedLabels(it, inst)
	written, err := c.writeClaim(ctx, name, nil, func(nc *api.NodeClaim) bool {
		if nc.Labels == nil {
			nc.Labels = map[string]string{}
		}
		maps.Copy(nc.Labels, labels)
		return true
	}, false)
	if err != nil {
		return err
	}
	_, err = c.writeClaim(ctx, name, written, func(nc *api.NodeClaim) bool {
		nc.Status.ProviderID, nc.Status.ImageID = inst.ProviderID, inst.ImageID
		nc.Status.Capacity, nc.Status.Allocatable = it.Capacity.DeepCopy(), it.Allocatable().DeepCopy()
		return setCondition(nc, api.ConditionLaunched, metav1.ConditionTrue, "Launched", "", c.now())
	}, true)
	if err != nil {
		return err
	}
	c.log.Info("launched", "nodeClaim", name, "vm", inst.Name, "instanceType", inst.SKU, "zone", inst.Zone,
		"capacityType", inst.CapacityType)
	c.claimEvent(ctx, name, corev1.EventTypeNormal, "Launched", fmt.Sprintf("launched %s %s in %s", inst.Name, inst.SKU, inst.Zone))
	return nil
}

// launchedLabels are the single-valued labels of the instance type and the launched offering.
func launchedLabels(it *instancetype.InstanceType, inst *launch.Instance) map[string]string {
	labels := it.Requirements.Labels()
	for _, o := range it.Offerings {
		if o.Zone == inst.Zone && o.CapacityType == inst.CapacityType {
			maps.Copy(labels, o.Requirements.Labels())
		}
	}
	labels[api.LabelZone], labels[api.LabelCapacityType] = inst.Zone, inst.CapacityType
	return labels
}

// failLaunch marks the claim failed and deletes it; the pods it was for are planned again by the
// next batch, around the offerings the launcher marked unavailable.
func (c *Controller) failLaunch(ctx context.Context, nc *api.NodeClaim, cause error) error {
	msg := fmt.Sprint(cause)
	err := c.updateClaimStatus(ctx, nc.Name, func(nc *api.NodeClaim) bool {
		return setCondition(nc, api.ConditionLaunched, metav1.ConditionFalse, reasonLaunchFailed, msg, c.now())
	})
	c.claimEvent(ctx, nc.Name, corev1.EventTypeWarning, reasonLaunchFailed, msg)
	if delErr := c.deleteClaim(ctx, nc.Name); delErr != nil || err != nil {
		return fmt.Errorf("launch of %s failed (%w); marking it: %w", nc.Name, cause, errors.Join(err, delErr))
	}
	c.retriggerPending()
	return fmt.Errorf("launch of %s failed: %w", nc.Name, cause)
}
