package provisioner

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// azureDiskZoneKey is the Azure Disk CSI driver's zone label; volumes use it where nodes use the
// standard zone label, and an empty value there means a regional (zone "0") disk.
const azureDiskZoneKey = "topology.disk.csi.azure.com/zone"

// volumeRequirements returns the node requirements of the pod's bound PersistentVolumes (their
// node affinity, first term), or a reason the pod cannot be planned.
func (e *engine) volumeRequirements(pod *corev1.Pod) (requirements.Requirements, string) {
	out := requirements.Requirements{}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		key := pod.Namespace + "/" + v.PersistentVolumeClaim.ClaimName
		pvc, ok := e.pvcs[key]
		if !ok {
			return nil, fmt.Sprintf("PersistentVolumeClaim %s not found", key)
		}
		if pvc.Spec.VolumeName == "" {
			continue // unbound: provisioned where the pod lands (WaitForFirstConsumer)
		}
		pv, ok := e.pvs[pvc.Spec.VolumeName]
		if !ok {
			return nil, fmt.Sprintf("PersistentVolume %s of claim %s not found", pvc.Spec.VolumeName, key)
		}
		if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
		if len(terms) == 0 {
			continue
		}
		// Terms are ORed; keeping the first is conservative (never places a pod where the volume
		// cannot follow) and matches the single-zone disks Azure creates.
		for _, r := range terms[0].MatchExpressions {
			out.Add(volumeRequirement(r))
		}
	}
	return out, ""
}

func volumeRequirement(r corev1.NodeSelectorRequirement) *requirements.Requirement {
	if r.Key != azureDiskZoneKey {
		return requirements.NewRequirement(r.Key, r.Operator, r.Values...)
	}
	values := make([]string, len(r.Values))
	for i, v := range r.Values {
		if v == "" {
			v = api.RegionalZone
		}
		values[i] = v
	}
	return requirements.NewRequirement(api.LabelZone, r.Operator, values...)
}
