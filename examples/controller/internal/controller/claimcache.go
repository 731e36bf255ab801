package controller

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"unique"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/api"
)

// The claim cache holds each NodeClaim decoded, once, when the informer receives it. Every
// provisioning and disruption pass used to decode every cached claim (a JSON round trip), and a
// claim lists up to 600 instance types (Karpenter's launch cap): in the 20,000-pod scale-up those
// decodes were a quarter of the controller's CPU, and the copies two or three overlapping passes
// held were the largest part of its heap besides the caches (docs/benchmarks.md, issue 18;
// BenchmarkClaimCache). The instance-type names, the same few hundred in every claim, are
// interned.
//
// Claims read from the cache are shared with it, as Nodes and Pods are: c.claims and c.claimFor
// are read only; c.claim returns a copy, safe to change (the writes start from it).

// claimTransform is the claim informer's transform: managedFields dropped, then decoded into
// *api.NodeClaim. A claim that does not decode stays in the cache as it came (its name still owns
// its VM, so the garbage collector keeps it) and is logged; no decision reads it.
func claimTransform(log *slog.Logger) cache.TransformFunc {
	return func(obj any) (any, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil // already decoded: client-go may transform an object twice
		}
		u.SetManagedFields(nil)
		nc, err := FromUnstructured[api.NodeClaim](u)
		if err != nil {
			log.Warn("NodeClaim kept undecoded in the cache; no decision reads it", "nodeClaim", u.GetName(), "error", err)
			return u, nil
		}
		internClaim(nc)
		return nc, nil
	}
}

// internClaim shares the strings every claim repeats: requirement keys and values (the instance
// type names) and labels. The value lists are copied to their length: the JSON decoder grew them
// by doubling, up to 1,024 entries' room for Karpenter's 600.
func internClaim(nc *api.NodeClaim) {
	for i := range nc.Spec.Requirements {
		r := &nc.Spec.Requirements[i]
		r.Key = intern(r.Key)
		if r.Values == nil {
			continue
		}
		values := make([]string, len(r.Values))
		for j, v := range r.Values {
			values[j] = intern(v)
		}
		r.Values = values
	}
	if len(nc.Labels) > 0 {
		labels := make(map[string]string, len(nc.Labels))
		for k, v := range nc.Labels {
			labels[intern(k)] = intern(v)
		}
		nc.Labels = labels
	}
}

func intern(s string) string { return unique.Make(s).Value() }

// copyClaim is a deep copy of a cached claim, for a caller that changes it.
func copyClaim(nc *api.NodeClaim) (*api.NodeClaim, error) {
	data, err := json.Marshal(nc)
	if err != nil {
		return nil, fmt.Errorf("copy NodeClaim %s: %w", nc.Name, err)
	}
	out := new(api.NodeClaim)
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("copy NodeClaim %s: %w", nc.Name, err)
	}
	return out, nil
}

// cachedClaimName is the name of a cached claim, decoded or not.
func cachedClaimName(obj any) string {
	if m, err := meta.Accessor(obj); err == nil {
		return m.GetName()
	}
	return ""
}

// cachedClaimProviderID is the provider ID of a cached claim, decoded or not.
func cachedClaimProviderID(obj any) string {
	switch nc := obj.(type) {
	case *api.NodeClaim:
		return nc.Status.ProviderID
	case *unstructured.Unstructured:
		id, _, _ := unstructured.NestedString(nc.Object, "status", "providerID")
		return id
	}
	return ""
}
