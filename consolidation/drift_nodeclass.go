package consolidation

import (
	"encoding/json"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/napkit/napkit/api"
)

// NodeClassHashVersion is the scheme NodeClassHash implements. Like NodePoolHashVersion it differs
// from the Azure provider's ("v3") on purpose, and a NodeClaim stamped under another version is
// never compared: a napkit upgrade that changes hashing changes this version, so it rolls no node
// (upstream: pkg/cloudprovider/drift.go areStaticFieldsDrifted, and
// pkg/controllers/nodeclass/hash/controller.go for the re-stamping, done by RestampNodeClassHash).
const NodeClassHashVersion = "napkit-v1"

// nodeClassFieldPrefix prefixes the field names NodeClassFieldHashes returns.
const nodeClassFieldPrefix = "spec."

// NodeClassFieldHashes hashes every set field of the class's defaulted spec on its own, keyed by
// its path ("spec.osDiskSizeGB"). Tags are left out: the Azure provider updates them in place
// (hash:"ignore" on spec.tags) instead of replacing nodes, and so does napkit. List fields whose
// order carries no meaning are sorted first. A nil class has no fields.
func NodeClassFieldHashes(class *api.AKSNodeClass) map[string]string {
	if class == nil {
		return map[string]string{}
	}
	c := &api.AKSNodeClass{Spec: class.Spec}
	c.Default()
	spec := c.Spec
	spec.Tags = nil
	if k := spec.Kubelet; k != nil && len(k.AllowedUnsafeSysctls) > 0 {
		kc := *k
		kc.AllowedUnsafeSysctls = slices.Sorted(slices.Values(k.AllowedUnsafeSysctls))
		spec.Kubelet = &kc
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return map[string]string{} // cannot happen: the spec holds only plain values
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return map[string]string{}
	}
	out := make(map[string]string, len(fields))
	for name, raw := range fields {
		out[nodeClassFieldPrefix+name] = fnvString(raw)
	}
	return out
}

// NodeClassHash is the static hash of the class: one hash over NodeClassFieldHashes (JSON encodes
// the keys sorted, so it is stable). A nil class hashes to "".
func NodeClassHash(class *api.AKSNodeClass) string {
	if class == nil {
		return ""
	}
	data, _ := json.Marshal(NodeClassFieldHashes(class)) // a map of strings always marshals
	return fnvString(data)
}

// NodeClassHashAnnotations are the annotations a NodeClaim launched from class carries.
func NodeClassHashAnnotations(class *api.AKSNodeClass) map[string]string {
	fields, _ := json.Marshal(NodeClassFieldHashes(class))
	return map[string]string{
		api.AnnotationAKSNodeClassHash:        NodeClassHash(class),
		api.AnnotationAKSNodeClassHashVersion: NodeClassHashVersion,
		api.AnnotationAKSNodeClassFieldHashes: string(fields),
	}
}

// RestampNodeClassHash returns the annotations a NodeClaim stamped under another hash version
// should get, and whether any change is needed. As upstream, the version is always brought
// current, but the hash itself is replaced by the class's current one only when the claim is not
// already Drifted: a drifted claim stays drifted, any other claim is taken to match the class,
// since hashes of two versions cannot be compared.
func RestampNodeClassHash(nc *api.NodeClaim, class *api.AKSNodeClass) (map[string]string, bool) {
	if nc == nil || class == nil || nc.Annotations[api.AnnotationAKSNodeClassHashVersion] == NodeClassHashVersion {
		return nil, false
	}
	out := maps.Clone(nc.Annotations)
	if out == nil {
		out = map[string]string{}
	}
	if meta.FindStatusCondition(nc.Status.Conditions, api.ConditionDrifted) == nil {
		maps.Copy(out, NodeClassHashAnnotations(class))
	} else {
		out[api.AnnotationAKSNodeClassHashVersion] = NodeClassHashVersion
	}
	return out, true
}

// nodeClassDrift compares the claim's stamped hash with the class's, when both are of this
// version, and names the fields whose hashes differ.
func nodeClassDrift(nc *api.NodeClaim, class *api.AKSNodeClass) []string {
	if nc == nil || class == nil || nc.Annotations[api.AnnotationAKSNodeClassHashVersion] != NodeClassHashVersion {
		return nil
	}
	stamped, ok := nc.Annotations[api.AnnotationAKSNodeClassHash]
	if !ok || stamped == NodeClassHash(class) {
		return nil
	}
	var before map[string]string
	if err := json.Unmarshal([]byte(nc.Annotations[api.AnnotationAKSNodeClassFieldHashes]), &before); err != nil {
		return []string{"spec"}
	}
	now := NodeClassFieldHashes(class)
	var changed []string
	for _, field := range slices.Sorted(maps.Keys(mergeKeys(before, now))) {
		if before[field] != now[field] {
			changed = append(changed, field)
		}
	}
	if len(changed) == 0 {
		return []string{"spec"} // the field hashes agree but the hash does not: a hand-edited annotation
	}
	return changed
}

func mergeKeys(a, b map[string]string) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func fnvString(data []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(data) // hash.Hash writes never fail
	return strconv.FormatUint(h.Sum64(), 10)
}
