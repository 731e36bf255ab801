package consolidation

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/requirements"
)

// The drift kinds, as Command.Detail and the NodeClaim's Drifted reason spell them. The first
// three are Karpenter core's, the others the Azure provider's (NodeClassDrift, K8sVersionDrift,
// KubeletIdentityDrift, ClusterConfigDrift, ImageDrift) under napkit's names.
const (
	DriftNodePool             = "NodePoolDrifted"
	DriftRequirements         = "RequirementsDrifted"
	DriftInstanceTypeNotFound = "InstanceTypeNotFound"
	DriftNodeClass            = "NodeClassDrifted"
	DriftKubernetesVersion    = "KubernetesVersionDrifted"
	DriftKubeletIdentity      = "KubeletIdentityDrifted"
	DriftClusterConfig        = "ClusterConfigDrifted"
	DriftImage                = "ImageDrifted"
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

// driftReason returns the candidate's drift kind and what changed, or "". A NodeClaim already
// marked Drifted=True keeps the reason it was given, and its message (what changed) when it has
// one. Otherwise the checks run in Karpenter's order: static (NodePool hash), requirements,
// instance type, then the provider's in the Azure provider's order (AKSNodeClass hash, Kubernetes
// version, kubelet identity, cluster configuration, image; upstream: pkg/cloudprovider/drift.go).
// poolHash is NodePoolHash(c.pool), computed once per pool by the caller. collect leaves
// c.instanceType nil only when the node's instance-type label names a type the pool's catalogue
// lacks.
func driftReason(c *candidate, poolHash string, cluster ClusterConfig, now time.Time) (string, []string) {
	nc, node := c.node.NodeClaim, c.node.Node
	if nc != nil {
		if cond := meta.FindStatusCondition(nc.Status.Conditions, api.ConditionDrifted); cond != nil && cond.Status == "True" {
			var changed []string
			if cond.Message != "" {
				changed = strings.Split(cond.Message, "; ")
			}
			return cmp.Or(cond.Reason, api.ConditionDrifted), changed
		}
	}
	if nodePoolDrifted(nc, poolHash) {
		return DriftNodePool, []string{fmt.Sprintf("nodepool-hash %s -> %s", nc.Annotations[api.AnnotationNodePoolHash], poolHash)}
	}
	if unmet := unmetRequirements(node, c.pool, c.instanceType); len(unmet) > 0 {
		return DriftRequirements, unmet
	}
	if (c.instanceType == nil || !hasOffering(c.instanceType, c.zone, c.capacityType)) && oldEnough(c.node, now) {
		return DriftInstanceTypeNotFound, []string{fmt.Sprintf("offering %s %s %s is no longer in the catalogue",
			nodeLabel(node.Labels, api.LabelInstanceType), c.zone, c.capacityType)}
	}
	for _, check := range []struct {
		kind    string
		changed []string
	}{
		{DriftNodeClass, nodeClassDrift(nc, c.class)},
		{DriftKubernetesVersion, kubernetesVersionDrift(node, c.class)},
		{DriftKubeletIdentity, kubeletIdentityDrift(node, cluster)},
		{DriftClusterConfig, clusterNetworkDrift(nc, cluster)},
		{DriftImage, imageDrift(nc, c.class)},
	} {
		if len(check.changed) > 0 {
			return check.kind, check.changed
		}
	}
	return "", nil
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

// unmetRequirements is Karpenter's strict requirements check: every pool requirement must be met
// by the node's labels, a positive requirement on a label the node lacks included. Labels a node
// described only by a few labels would leave out are filled from its instance type (what
// Karpenter would have put on the node), so such a node is not called drifted for want of, say,
// its SKU family label. It returns one line per requirement the node does not meet.
func unmetRequirements(node *corev1.Node, pool *api.NodePool, it *instancetype.InstanceType) []string {
	want := requirements.FromAPI(pool.Spec.Template.Spec.Requirements)
	have := requirements.FromLabels(node.Labels)
	if it != nil {
		for key, r := range it.Requirements {
			if !have.Has(key) {
				have.Add(r)
			}
		}
	}
	if have.IsCompatible(want, nil) {
		return nil
	}
	var unmet []string
	for _, key := range slices.Sorted(maps.Keys(want)) {
		one := requirements.Requirements{key: want[key]}
		if !have.IsCompatible(one, nil) {
			value := "(no label)"
			if v, ok := node.Labels[key]; ok {
				value = v
			}
			unmet = append(unmet, fmt.Sprintf("requirement %s not met by node label %s=%s", want[key], key, value))
		}
	}
	if len(unmet) == 0 {
		unmet = []string{"the pool's requirements together are not met by the node's labels"}
	}
	return unmet
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

// kubernetesVersionDrift compares the kubelet's version with the node class's, as the Azure
// provider does (a leading "v" ignored), when both are known and the class's version is ready to
// use (a KubernetesVersionReady condition, when present, is True).
func kubernetesVersionDrift(node *corev1.Node, class *api.AKSNodeClass) []string {
	if class == nil || conditionFalse(class.Status.Conditions, conditionKubernetesVersionReady) {
		return nil
	}
	want := strings.TrimPrefix(class.Status.KubernetesVersion, "v")
	have := strings.TrimPrefix(node.Status.NodeInfo.KubeletVersion, "v")
	if want == "" || have == "" || want == have {
		return nil
	}
	return []string{fmt.Sprintf("kubernetesVersion %s -> %s", have, want)}
}

// imageDrift is the Azure provider's ImageDrift: the NodeClaim's image is none of the images the
// node class currently resolves to. It answers only when both sides are known (a NodeClaim with an
// imageID, a class with at least one resolved image whose ImagesReady condition, when present, is
// True). ARM resource IDs are case-insensitive, so the comparison is too. What changed names the
// class's image of the same definition when there is one.
func imageDrift(nc *api.NodeClaim, class *api.AKSNodeClass) []string {
	if nc == nil || class == nil || nc.Status.ImageID == "" || conditionFalse(class.Status.Conditions, conditionImagesReady) {
		return nil
	}
	var known []string
	for _, img := range class.Status.Images {
		if img.ID == "" {
			continue
		}
		if strings.EqualFold(img.ID, nc.Status.ImageID) {
			return nil
		}
		known = append(known, img.ID)
	}
	if len(known) == 0 {
		return nil
	}
	want := known[0]
	for _, id := range known {
		if strings.EqualFold(imageBase(id), imageBase(nc.Status.ImageID)) {
			want = id
			break
		}
	}
	return []string{fmt.Sprintf("image %s -> %s", nc.Status.ImageID, want)}
}

// The AKSNodeClass conditions that gate provider drift (package nodeclassstatus sets them).
const (
	conditionKubernetesVersionReady = "KubernetesVersionReady"
	conditionImagesReady            = "ImagesReady"
)

// conditionFalse reports a condition present and not True. A class without the condition (one
// written by hand, as `napkit consolidate` reads) is taken as ready.
func conditionFalse(conds []metav1.Condition, t string) bool {
	c := meta.FindStatusCondition(conds, t)
	return c != nil && c.Status != metav1.ConditionTrue
}

// imageBase trims "/versions/<version>" off an image version ID.
func imageBase(id string) string {
	if i := strings.LastIndex(strings.ToLower(id), "/versions/"); i >= 0 {
		return id[:i]
	}
	return id
}
