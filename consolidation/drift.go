package consolidation

import (
	"cmp"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/requirements"
)

// The drift kinds, as Command.Detail spells them. The first three are Karpenter core's, the last two
// the Azure provider's (K8sVersionDrift, ImageDrift) under napkit's names.
const (
	DriftNodePool             = "NodePoolDrifted"
	DriftRequirements         = "RequirementsDrifted"
	DriftInstanceTypeNotFound = "InstanceTypeNotFound"
	DriftImage                = "ImageDrifted"
	DriftKubernetesVersion    = "KubernetesVersionDrifted"
)

// AnnotationNodePoolHashVersion is the NodeClaim annotation naming the scheme of
// karpenter.sh/nodepool-hash (package api has the hash annotation itself).
const AnnotationNodePoolHashVersion = "karpenter.sh/nodepool-hash-version"

// NodePoolHashVersion is the scheme NodePoolHash implements. It differs from Karpenter's "v3" on
// purpose: a NodeClaim Karpenter stamped is never compared with a napkit hash, which would call
// every such node drifted.
const NodePoolHashVersion = "napkit-v1"

// NodePoolHash is the static-drift hash of the pool's spec.template, which a controller stamps on
// NodeClaims as karpenter.sh/nodepool-hash (with NodePoolHashVersion as
// karpenter.sh/nodepool-hash-version): the FNV-64a hash, in decimal, of the template's JSON after
// normalising it. Requirements are left out, as in Karpenter, because RequirementsDrifted judges
// them against the node's labels; defaults are filled in (expireAfter 720h, the nodeClassRef's
// group and kind) and taints sorted, so that a defaulted and an undefaulted copy of one pool, or
// taints listed in another order, hash alike. JSON encodes map keys sorted, so the hash is stable.
// A nil pool hashes to "".
func NodePoolHash(pool *api.NodePool) string {
	if pool == nil {
		return ""
	}
	data, err := json.Marshal(hashableTemplate(pool.Spec.Template))
	if err != nil {
		return "" // cannot happen: the template holds only strings, maps, slices and durations
	}
	h := fnv.New64a()
	_, _ = h.Write(data) // hash.Hash writes never fail
	return strconv.FormatUint(h.Sum64(), 10)
}

// hashableTemplate returns a normalised copy of t; t is not modified.
func hashableTemplate(t api.NodeClaimTemplate) api.NodeClaimTemplate {
	t.Spec.Requirements = nil
	if !t.Spec.ExpireAfter.IsSet() {
		t.Spec.ExpireAfter = api.NewDuration(api.DefaultExpireAfter)
	}
	if ref := t.Spec.NodeClassRef; ref != nil {
		filled := *ref
		filled.Group = cmp.Or(filled.Group, api.AzureGroup)
		filled.Kind = cmp.Or(filled.Kind, api.KindAKSNodeClass)
		t.Spec.NodeClassRef = &filled
	}
	t.Spec.Taints = sortedTaints(t.Spec.Taints)
	t.Spec.StartupTaints = sortedTaints(t.Spec.StartupTaints)
	return t
}

func sortedTaints(taints []corev1.Taint) []corev1.Taint {
	out := slices.Clone(taints)
	slices.SortFunc(out, func(a, b corev1.Taint) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Value, b.Value), cmp.Compare(a.Effect, b.Effect))
	})
	return out
}

// driftReason returns the candidate's drift kind, or "". A NodeClaim already marked Drifted=True
// keeps the reason it was given. Otherwise the checks run in Karpenter's order: static (hash),
// requirements, instance type, then the provider's (Kubernetes version, image). poolHash is
// NodePoolHash(c.pool), computed once per pool by the caller. collect leaves c.instanceType nil
// only when the node's instance-type label names a type the pool's catalogue lacks.
func driftReason(c *candidate, poolHash string, now time.Time) string {
	nc, node := c.node.NodeClaim, c.node.Node
	if nc != nil {
		if cond := meta.FindStatusCondition(nc.Status.Conditions, api.ConditionDrifted); cond != nil && cond.Status == "True" {
			return cmp.Or(cond.Reason, api.ConditionDrifted)
		}
	}
	switch {
	case nodePoolDrifted(nc, poolHash):
		return DriftNodePool
	case requirementsDrifted(node, c.pool, c.instanceType):
		return DriftRequirements
	case (c.instanceType == nil || !hasOffering(c.instanceType, c.zone, c.capacityType)) && oldEnough(c.node, now):
		return DriftInstanceTypeNotFound
	case kubernetesVersionDrifted(node, c.class):
		return DriftKubernetesVersion
	case imageDrifted(nc, c.class):
		return DriftImage
	}
	return ""
}

// instanceTypeDriftMinAge is Karpenter's grace before InstanceTypeNotFound: a catalogue refreshed
// mid-launch, or an offering briefly missing from it, must not replace a node just made.
const instanceTypeDriftMinAge = time.Hour

// oldEnough reports whether the node's NodeClaim (else the Node) was created at least
// instanceTypeDriftMinAge before now. A snapshot without creation times says nothing is new.
func oldEnough(n *Node, now time.Time) bool {
	created := n.Node.CreationTimestamp.Time
	if n.NodeClaim != nil && !n.NodeClaim.CreationTimestamp.IsZero() {
		created = n.NodeClaim.CreationTimestamp.Time
	}
	return created.IsZero() || !now.Before(created.Add(instanceTypeDriftMinAge))
}

// nodePoolDrifted compares the NodeClaim's stamped hash with the pool's, but only when the claim
// carries a hash made by this scheme.
func nodePoolDrifted(nc *api.NodeClaim, poolHash string) bool {
	if nc == nil || nc.Annotations[AnnotationNodePoolHashVersion] != NodePoolHashVersion {
		return false
	}
	stamped, ok := nc.Annotations[api.AnnotationNodePoolHash]
	return ok && stamped != poolHash
}

// requirementsDrifted is Karpenter's strict check: every pool requirement must be met by the node's
// labels, a positive requirement on a label the node lacks included. Labels a node described only
// by a few labels would leave out are filled from its instance type (what Karpenter would have put
// on the node), so such a node is not called drifted for want of, say, its SKU family label.
func requirementsDrifted(node *corev1.Node, pool *api.NodePool, it *instancetype.InstanceType) bool {
	want := requirements.FromAPI(pool.Spec.Template.Spec.Requirements)
	have := requirements.FromLabels(node.Labels)
	if it != nil {
		for key, r := range it.Requirements {
			if !have.Has(key) {
				have.Add(r)
			}
		}
	}
	return !have.IsCompatible(want, nil)
}

// hasOffering reports whether the type still has an offering for the node's zone and capacity type.
// Availability is not asked: an offering out of capacity for new launches says nothing about a
// node already running on it. Without both labels nothing can be said, so the answer is yes.
func hasOffering(it *instancetype.InstanceType, zone, capacityType string) bool {
	if zone == "" || capacityType == "" {
		return true
	}
	_, ok := findOffering(it, zone, capacityType)
	return ok
}

func findOffering(it *instancetype.InstanceType, zone, capacityType string) (instancetype.Offering, bool) {
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o, true
		}
	}
	return instancetype.Offering{}, false
}

// kubernetesVersionDrifted compares the kubelet's version with the node class's, as the Azure
// provider does (a leading "v" ignored), when both are known.
func kubernetesVersionDrifted(node *corev1.Node, class *api.AKSNodeClass) bool {
	if class == nil {
		return false
	}
	want := strings.TrimPrefix(class.Status.KubernetesVersion, "v")
	have := strings.TrimPrefix(node.Status.NodeInfo.KubeletVersion, "v")
	return want != "" && have != "" && want != have
}

// imageDrifted is the Azure provider's ImageDrift: the NodeClaim's image is none of the images the
// node class currently resolves to. It answers only when both sides are known (a NodeClaim with an
// imageID, a class with at least one resolved image). ARM resource IDs are case-insensitive, so the
// comparison is too.
func imageDrifted(nc *api.NodeClaim, class *api.AKSNodeClass) bool {
	if nc == nil || class == nil || nc.Status.ImageID == "" {
		return false
	}
	known := false
	for _, img := range class.Status.Images {
		if img.ID == "" {
			continue
		}
		if strings.EqualFold(img.ID, nc.Status.ImageID) {
			return false
		}
		known = true
	}
	return known
}
