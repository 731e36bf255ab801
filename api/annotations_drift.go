package api

// Annotations and labels the drift checks read. The AKSNodeClass hash pair is the Azure provider's
// (upstream: pkg/apis/v1beta1/labels.go); the field hashes and the cluster network are napkit's own,
// so that a drift can say what changed.
const (
	// AnnotationAKSNodeClassHash is the static hash of the AKSNodeClass spec a NodeClaim was
	// launched from (and, on the AKSNodeClass, its current hash).
	AnnotationAKSNodeClassHash = "karpenter.azure.com/aksnodeclass-hash"
	// AnnotationAKSNodeClassHashVersion names the hashing scheme of AnnotationAKSNodeClassHash;
	// hashes of different versions are never compared.
	AnnotationAKSNodeClassHashVersion = "karpenter.azure.com/aksnodeclass-hash-version"
	// AnnotationAKSNodeClassFieldHashes is a JSON object of spec field -> hash, stamped beside
	// the hash, so NodeClass drift can name the fields that changed.
	AnnotationAKSNodeClassFieldHashes = "napkit.io/aksnodeclass-field-hashes"
	// AnnotationClusterNetwork records the cluster network settings a NodeClaim was launched
	// with ("plugin=azure,pluginMode=overlay,dataplane=cilium").
	AnnotationClusterNetwork = "napkit.io/cluster-network"
	// LabelKubeletIdentityClientID is the client ID of the kubelet identity a node runs with.
	LabelKubeletIdentityClientID = "kubernetes.azure.com/kubelet-identity-client-id"
)

// AnnotationInPlaceUpdateHash records, on a NodeClaim, the hash of the settings last applied to
// its VM in place (the node class's tags), so a change is applied once (upstream:
// pkg/apis/v1beta1/annotations.go).
const AnnotationInPlaceUpdateHash = "karpenter.azure.com/in-place-update-hash"
