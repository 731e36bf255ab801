//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/napkit/napkit/examples/controller/internal/controller"
)

// The custom resources, as the controller addresses them.
var (
	nodePoolsGVR  = controller.NodePoolsGVR
	nodeClaimsGVR = controller.NodeClaimsGVR
	nodeClassGVR  = controller.AKSNodeClassesGVR
)

// seedManifests is the repository's copy of the seed walkthrough manifests
// (../shared/reference/seed-manifests.yaml, kept identical in manifest/testdata).
func seedManifests(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "..", "manifest", "testdata", "seed-manifests.yaml"))
	require.NoError(t, err)
	return path
}

// readObjects splits a multi-document YAML file into unstructured objects, skipping empty documents.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading manifests: %w", err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// create creates every object as kubectl create would: the kind is mapped to its resource through
// discovery, and namespaced objects without a namespace go to "default".
func (c *cluster) create(ctx context.Context, objs ...*unstructured.Unstructured) error {
	return c.each(ctx, objs, func(ri dynamic.ResourceInterface, u *unstructured.Unstructured) error {
		if _, err := ri.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating: %w", err)
		}
		return nil
	})
}

// each calls fn with every object and the client of its resource (in its namespace, "default" when
// it names none), and names the object in fn's error.
func (c *cluster) each(ctx context.Context, objs []*unstructured.Unstructured, fn func(dynamic.ResourceInterface, *unstructured.Unstructured) error) error {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.kube.Discovery()))
	for _, u := range objs {
		m, err := mapper.RESTMapping(u.GroupVersionKind().GroupKind(), u.GroupVersionKind().Version)
		if err != nil {
			return fmt.Errorf("mapping %s: %w", u.GroupVersionKind(), err)
		}
		var ri dynamic.ResourceInterface = c.dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ns := u.GetNamespace()
			if ns == "" {
				ns = metav1.NamespaceDefault
			}
			ri = c.dyn.Resource(m.Resource).Namespace(ns)
		}
		if err := fn(ri, u); err != nil {
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}
