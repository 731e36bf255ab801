// Package kubeversion decides which Kubernetes version nodes run. The version comes from the API
// server (its discovery /version answer, which the caller fetches and passes in as a
// version.Info): a kubelet must never be newer than the control plane, and Karpenter's Azure
// provider never rolls nodes back to an older version than the one its AKSNodeClass already
// records. Everything here is pure: the caller does the I/O and caches the answer (upstream keeps
// it for KubernetesVersionTTL, 15 minutes).
//
// Data flow: version.Info (from /version) -> FromServer -> Next (against the AKSNodeClass's
// status.kubernetesVersion) -> status.kubernetesVersion -> the nodes' bootstrap data. A version
// pinned by an operator goes through ForNodes, which refuses one newer than the control plane.
package kubeversion
