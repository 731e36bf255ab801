package controller

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/napkit/napkit/api"
)

// The custom resources the controller reads and writes.
var (
	NodePoolsGVR      = schema.GroupVersionResource{Group: api.KarpenterGroup, Version: "v1", Resource: "nodepools"}
	NodeClaimsGVR     = schema.GroupVersionResource{Group: api.KarpenterGroup, Version: "v1", Resource: "nodeclaims"}
	AKSNodeClassesGVR = schema.GroupVersionResource{Group: api.AzureGroup, Version: "v1beta1", Resource: "aksnodeclasses"}
)

// ListKinds maps the custom resources to their list kinds, as the dynamic fake client needs.
func ListKinds() map[schema.GroupVersionResource]string {
	return map[schema.GroupVersionResource]string{
		NodePoolsGVR: "NodePoolList", NodeClaimsGVR: "NodeClaimList", AKSNodeClassesGVR: "AKSNodeClassList",
	}
}

// FromUnstructured decodes a custom resource into its napkit type. JSON is the common ground: the
// api types carry JSON tags and custom marshalers (durations), which the reflection converter of
// apimachinery would not honour.
func FromUnstructured[T any](obj any) (*T, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("want *unstructured.Unstructured, got %T", obj)
	}
	data, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", u.GetName(), err)
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("decode %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return out, nil
}

// ToUnstructured encodes a napkit object (with its TypeMeta set) for the dynamic client.
func ToUnstructured(obj any) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return u, nil
}

// claimTypeMeta stamps the NodeClaim kind, which JSON round trips need.
func claimTypeMeta(nc *api.NodeClaim) {
	nc.APIVersion, nc.Kind = api.KarpenterVersion, api.KindNodeClaim
}
