package controller

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// refit makes each claim ask for the pods the replay gave it (assign, keep): its requests become
// its DaemonSets' room plus those pods', and its launch list keeps only the instance types whose
// allocatable holds them, so that a launch that falls back from the chosen type (out of capacity)
// does not take a size Solve chose for other pods. The chosen type always stays: the replay
// placed the pods within its allocatable.
func (rc *replayClaims) refit(in provisioner.Input, byKey map[string]*corev1.Pod) {
	types := map[string]map[string]*instancetype.InstanceType{}
	for _, p := range in.NodePools {
		byName := make(map[string]*instancetype.InstanceType, len(p.InstanceTypes))
		for _, it := range p.InstanceTypes {
			byName[it.Name] = it
		}
		types[p.NodePool.Name] = byName
	}
	for i := range rc.planned {
		nc := &rc.planned[i]
		want := maps.Clone(rc.reserved[i])
		for _, key := range nc.Pods {
			if pod := byKey[key]; pod != nil {
				for name, v := range provisioner.PodRequests(pod) {
					want[name] += v
				}
			}
		}
		nc.Requests = resourceList(want)
		pool := types[nc.NodePool]
		nc.InstanceTypeOptions = slices.DeleteFunc(slices.Clone(nc.InstanceTypeOptions), func(name string) bool {
			it := pool[name]
			return name != nc.InstanceType && (it == nil || !holds(it.Allocatable(), want))
		})
	}
}

// holds reports whether allocatable covers every positive request (PodRequests' units).
func holds(allocatable corev1.ResourceList, want map[corev1.ResourceName]int64) bool {
	for name, v := range want {
		if v <= 0 {
			continue
		}
		q, ok := allocatable[name]
		if !ok || provisioner.QuantityValue(name, q) < v {
			return false
		}
	}
	return true
}

// resourceList turns PodRequests' units back into quantities (cpu in millicores, memory and
// storage in bytes, the rest as counts); nothing below zero.
func resourceList(in map[corev1.ResourceName]int64) corev1.ResourceList {
	out := make(corev1.ResourceList, len(in))
	for name, v := range in {
		v = max(v, 0)
		switch name {
		case corev1.ResourceCPU:
			out[name] = *resource.NewMilliQuantity(v, resource.DecimalSI)
		case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
			out[name] = *resource.NewQuantity(v, resource.BinarySI)
		default:
			out[name] = *resource.NewQuantity(v, resource.DecimalSI)
		}
	}
	return out
}
