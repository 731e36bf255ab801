package bootstrap

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// kubeletSetLabels are the kubernetes.io labels the NodeRestriction admission plugin still lets a
// kubelet set on its own Node, stable and deprecated beta keys alike.
var kubeletSetLabels = []string{
	corev1.LabelHostname,
	corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
	corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion,
	corev1.LabelInstanceTypeStable, corev1.LabelInstanceType,
	corev1.LabelOSStable, corev1.LabelArchStable,
	"beta.kubernetes.io/os", "beta.kubernetes.io/arch",
}

// kubeletNamespaces are the kubernetes.io sub-domains reserved for labels the kubelet may set.
var kubeletNamespaces = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}

// CanKubeletSetLabel reports whether a kubelet may put the label on its own Node at registration
// (--node-labels). NodeRestriction rejects other kubernetes.io and k8s.io labels and the node would
// never register, so those are applied later by the controller instead.
func CanKubeletSetLabel(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok || slices.Contains(kubeletSetLabels, key) {
		return true
	}
	for _, ns := range kubeletNamespaces {
		if inDomain(domain, ns) {
			return true
		}
	}
	return !inDomain(domain, "kubernetes.io") && !inDomain(domain, "k8s.io")
}

// inDomain reports whether domain is parent or one of its sub-domains.
func inDomain(domain, parent string) bool {
	return domain == parent || strings.HasSuffix(domain, "."+parent)
}

// KubeletLabels returns the labels a kubelet may set; the map is new.
func KubeletLabels(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	maps.DeleteFunc(out, func(k, _ string) bool { return !CanKubeletSetLabel(k) })
	if out == nil {
		out = map[string]string{}
	}
	return out
}

// FormatLabels renders labels as the kubelet's --node-labels list, "k=v,k=v" in key order.
func FormatLabels(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range sortedKeys(labels) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}

// FormatTaint renders a taint as "key=value:Effect", or "key:Effect" without a value.
func FormatTaint(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// FormatTaints renders taints as the --register-with-taints list, in the given order.
func FormatTaints(taints []corev1.Taint) string {
	parts := make([]string, len(taints))
	for i, t := range taints {
		parts[i] = FormatTaint(t)
	}
	return strings.Join(parts, ",")
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
