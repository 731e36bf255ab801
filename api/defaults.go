package api

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CRD defaults.
const (
	DefaultExpireAfter         = 720 * time.Hour
	DefaultConsolidateAfter    = 0 * time.Second
	DefaultConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
	DefaultBudgetNodes         = "10%"
	DefaultImageFamily         = ImageFamilyUbuntu
	DefaultOSDiskSizeGB        = int32(128)
	DefaultGPUMode             = GPUModeDriver

	DefaultCPUManagerPolicy      = "none"
	DefaultCPUCFSQuota           = true
	DefaultCPUCFSQuotaPeriod     = 100 * time.Millisecond
	DefaultTopologyManagerPolicy = "none"
	DefaultContainerLogMaxSize   = "50Mi"
	DefaultContainerLogMaxFiles  = int32(5)
)

// Default fills in what the karpenter.sh/v1 CRD defaults (expireAfter, consolidateAfter,
// consolidationPolicy, budgets) and napkit's one addition: a nodeClassRef without group or kind
// refers to the AKSNodeClass of that name. CRD defaults are silent, as the API server's are; the
// napkit default is reported as a Note, because Karpenter itself would reject such a NodePool.
// Fields already set, including an explicit "Never" or an explicit empty budget list, are kept.
func (np *NodePool) Default() []Note {
	t := &np.Spec.Template.Spec
	if !t.ExpireAfter.IsSet() {
		t.ExpireAfter = NewDuration(DefaultExpireAfter)
	}
	d := &np.Spec.Disruption
	if !d.ConsolidateAfter.IsSet() {
		d.ConsolidateAfter = NewDuration(DefaultConsolidateAfter)
	}
	if d.ConsolidationPolicy == "" {
		d.ConsolidationPolicy = DefaultConsolidationPolicy
	}
	if d.Budgets == nil {
		d.Budgets = []Budget{{Nodes: DefaultBudgetNodes}}
	}
	for i := range d.Budgets {
		if d.Budgets[i].Nodes == "" {
			d.Budgets[i].Nodes = DefaultBudgetNodes
		}
	}
	return defaultNodeClassRef(KindNodePool+"/"+np.Name, "spec.template.spec.nodeClassRef", t.NodeClassRef)
}

// defaultNodeClassRef fills an empty group and kind and says so.
func defaultNodeClassRef(object, path string, ref *NodeClassReference) []Note {
	if ref == nil || (ref.Group != "" && ref.Kind != "") {
		return nil
	}
	var filled []string
	if ref.Group == "" {
		ref.Group = AzureGroup
		filled = append(filled, "group "+AzureGroup)
	}
	if ref.Kind == "" {
		ref.Kind = KindAKSNodeClass
		filled = append(filled, "kind "+KindAKSNodeClass)
	}
	return []Note{{
		Object:  object,
		Field:   path,
		Message: fmt.Sprintf("defaulted %s: the reference names only %q, taken as the AKSNodeClass of that name", strings.Join(filled, " and "), ref.Name),
	}}
}

// Default fills in what the karpenter.azure.com/v1beta1 CRD defaults: imageFamily Ubuntu,
// osDiskSizeGB 128, and, only inside blocks that are present, the kubelet defaults and gpu.mode
// Driver (the CRD defaults fields of an object, never the object itself).
func (nc *AKSNodeClass) Default() {
	s := &nc.Spec
	if s.ImageFamily == nil {
		s.ImageFamily = ptr(DefaultImageFamily)
	}
	if s.OSDiskSizeGB == nil {
		s.OSDiskSizeGB = ptr(DefaultOSDiskSizeGB)
	}
	if s.Kubelet != nil {
		defaultKubelet(s.Kubelet)
	}
	if s.GPU != nil && s.GPU.Mode == nil {
		s.GPU.Mode = ptr(DefaultGPUMode)
	}
}

func defaultKubelet(k *KubeletConfiguration) {
	if k.CPUManagerPolicy == nil {
		k.CPUManagerPolicy = ptr(DefaultCPUManagerPolicy)
	}
	if k.CPUCFSQuota == nil {
		k.CPUCFSQuota = ptr(DefaultCPUCFSQuota)
	}
	if k.CPUCFSQuotaPeriod == nil {
		k.CPUCFSQuotaPeriod = &metav1.Duration{Duration: DefaultCPUCFSQuotaPeriod}
	}
	if k.TopologyManagerPolicy == nil {
		k.TopologyManagerPolicy = ptr(DefaultTopologyManagerPolicy)
	}
	if k.ContainerLogMaxSize == nil {
		k.ContainerLogMaxSize = ptr(DefaultContainerLogMaxSize)
	}
	if k.ContainerLogMaxFiles == nil {
		k.ContainerLogMaxFiles = ptr(DefaultContainerLogMaxFiles)
	}
}

// Default fills in the karpenter.sh/v1 NodeClaim default: expireAfter 720h when absent. NodeClaims are
// written by Karpenter with a full nodeClassRef, so that is left for Validate to check.
func (c *NodeClaim) Default() {
	if !c.Spec.ExpireAfter.IsSet() {
		c.Spec.ExpireAfter = NewDuration(DefaultExpireAfter)
	}
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
