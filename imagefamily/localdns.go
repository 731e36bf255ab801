package imagefamily

import (
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/internal/kubever"
)

// localDNSPreferredMinor is the least Kubernetes 1.x minor for which LocalDNS mode Preferred may
// resolve to Enabled. The Karpenter provider for Azure holds the threshold at 1.99.0, so Preferred
// resolves to Disabled on every released Kubernetes version.
const localDNSPreferredMinor = 99

// LocalDNSStateInput is what resolving an AKSNodeClass's LocalDNS state depends on: the node class
// (spec.localDNS.mode and the state already recorded), the cluster, and two facts the caller reads
// from the cluster's API.
type LocalDNSStateInput struct {
	NodeClass         *api.AKSNodeClass
	KubernetesVersion string
	Network           api.ClusterNetwork
	// ClusterChecked says the caller read the two cluster facts below; when false, Preferred's
	// cluster gates count as failed, so Preferred resolves to Disabled (unless already Enabled).
	ClusterChecked bool
	// ConflictingNetworkPolicies is true when a NetworkPolicy other than AKS's konnectivity-agent one
	// exists (or a Cilium/Calico policy when the cluster runs that policy engine).
	ConflictingNetworkPolicies bool
	// NodeLocalDNSDaemonSet is true when kube-system/node-local-dns exists.
	NodeLocalDNSDaemonSet bool
}

// ResolveLocalDNSState returns the status.localDNSState an AKSNodeClass should record: Enabled for
// mode Required, Disabled without spec.localDNS or for mode Disabled, and for Preferred Enabled only if
// it was already Enabled (the decision sticks) or every gate passes: Kubernetes at least the
// threshold, a CNI other than "none", and (ClusterChecked) no conflicting network policy and no
// node-local-dns DaemonSet.
// An unparseable Kubernetes version resolves Preferred to Disabled.
func ResolveLocalDNSState(in LocalDNSStateInput) string {
	nc := in.NodeClass
	if nc == nil || nc.Spec.LocalDNS == nil {
		return api.LocalDNSStateDisabled
	}
	switch nc.Spec.LocalDNS.Mode {
	case api.LocalDNSModeRequired:
		return api.LocalDNSStateEnabled
	case api.LocalDNSModePreferred:
		if nc.Status.LocalDNSState == api.LocalDNSStateEnabled || preferredGatesPass(in) {
			return api.LocalDNSStateEnabled
		}
	}
	return api.LocalDNSStateDisabled
}

func preferredGatesPass(in LocalDNSStateInput) bool {
	v, err := kubever.Parse(in.KubernetesVersion)
	if err != nil || !v.AtLeast(1, localDNSPreferredMinor) {
		return false
	}
	return !strings.EqualFold(in.Network.Plugin, api.NetworkPluginNone) && in.ClusterChecked &&
		!in.ConflictingNetworkPolicies && !in.NodeLocalDNSDaemonSet
}
