package manifest

import (
	"github.com/napkit/napkit/api"
)

// Kind identifies a document type by apiVersion and kind, as they appear in the manifest.
type Kind struct {
	APIVersion string
	Kind       string
}

// String renders "apiVersion/kind", e.g. "karpenter.sh/v1/NodePool" or "v1/Pod".
func (k Kind) String() string { return k.APIVersion + "/" + k.Kind }

// DecodeFunc reads one document into the set being built. It returns an error wrapping ErrDecode or
// api.ErrInvalid; the caller adds the document's position.
type DecodeFunc func(doc *Document, set *Set) error

// The kinds napkit reads into types, and the Kubernetes kinds it keeps as raw Objects for later
// decoders (pods and their controllers, disruption budgets, nodes, storage and priorities).
var (
	kindNodePool     = Kind{api.KarpenterVersion, api.KindNodePool}
	kindNodeClaim    = Kind{api.KarpenterVersion, api.KindNodeClaim}
	kindAKSNodeClass = Kind{api.AzureVersion, api.KindAKSNodeClass}
	kindList         = Kind{"v1", "List"}

	rawKinds = []Kind{
		{"v1", "Pod"}, {"v1", "Node"}, {"v1", "Namespace"}, {"v1", "ReplicationController"},
		{"v1", "PersistentVolume"}, {"v1", "PersistentVolumeClaim"},
		{"apps/v1", "Deployment"}, {"apps/v1", "StatefulSet"}, {"apps/v1", "DaemonSet"}, {"apps/v1", "ReplicaSet"},
		{"batch/v1", "Job"}, {"batch/v1", "CronJob"},
		{"policy/v1", "PodDisruptionBudget"},
		{"scheduling.k8s.io/v1", "PriorityClass"},
		{"storage.k8s.io/v1", "StorageClass"},
	}
)

// DefaultKinds returns a new table of the kinds Decode understands. Callers may add to or replace
// entries and pass the table to NewDecoder: a later Pod decoder replaces the raw entry for v1 Pod.
func DefaultKinds() map[Kind]DecodeFunc {
	kinds := map[Kind]DecodeFunc{
		kindNodePool:     decodeNodePool,
		kindNodeClaim:    decodeNodeClaim,
		kindAKSNodeClass: decodeNodeClass,
	}
	for _, k := range rawKinds {
		kinds[k] = KeepObject
	}
	return kinds
}

// KeepObject is the DecodeFunc for kinds napkit does not type yet: it keeps the document as an Object.
func KeepObject(doc *Document, set *Set) error {
	set.Objects = append(set.Objects, Object{
		Kind:      doc.Kind,
		Namespace: doc.Namespace,
		Name:      doc.Name,
		Position:  doc.Position(),
		JSON:      doc.JSON,
	})
	return nil
}
