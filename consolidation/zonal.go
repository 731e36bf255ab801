package consolidation

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// hasZonalTerms reports whether any pod of the snapshot has a topology term over a domain wider
// than one node (a zone, say): a spread constraint or pod (anti-)affinity term, required or
// preferred, whose topology key is not the hostname. Only such terms can tell a stand-in node from
// where its pods really went (see pass), so without them the simulator is never rebuilt.
func hasZonalTerms(in *Input) bool {
	for _, pod := range in.PendingPods {
		if zonalPod(pod) {
			return true
		}
	}
	for _, n := range in.Nodes {
		for _, pod := range n.Pods {
			if zonalPod(pod) {
				return true
			}
		}
	}
	for _, f := range in.InFlight {
		for _, pod := range f.Pods {
			if zonalPod(pod) {
				return true
			}
		}
	}
	return false
}

func zonalPod(pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.TopologyKey != api.LabelHostname {
			return true
		}
	}
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	return zonalTerms(a.PodAffinity) || zonalAntiTerms(a.PodAntiAffinity)
}

func zonalTerms(a *corev1.PodAffinity) bool {
	if a == nil {
		return false
	}
	return wideTerms(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution)
}

func zonalAntiTerms(a *corev1.PodAntiAffinity) bool {
	if a == nil {
		return false
	}
	return wideTerms(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution)
}

// wideTerms reports a term whose topology key is not the hostname.
func wideTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) bool {
	for _, t := range required {
		if t.TopologyKey != api.LabelHostname {
			return true
		}
	}
	for _, t := range preferred {
		if t.PodAffinityTerm.TopologyKey != api.LabelHostname {
			return true
		}
	}
	return false
}
