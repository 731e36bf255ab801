// Package crds ships the CustomResourceDefinitions the example controller serves: karpenter.sh/v1
// NodePool and NodeClaim, and karpenter.azure.com/v1beta1 AKSNodeClass. The YAML files are the
// manifests a cluster operator applies (kubectl apply -f examples/controller/crds/); this package
// embeds them so tests and tools can install exactly the same bytes.
package crds

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"
)

//go:embed *.yaml
var manifests embed.FS

// Files returns the embedded manifests by file name.
func Files() (map[string][]byte, error) {
	names, err := fs.Glob(manifests, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("listing CRD manifests: %w", err)
	}
	out := make(map[string][]byte, len(names))
	for _, n := range names {
		b, err := manifests.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", n, err)
		}
		out[n] = b
	}
	return out, nil
}

// CRDs decodes the embedded manifests, sorted by name. Decoding is strict, so a misspelt schema
// keyword fails here instead of being dropped silently.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := Files()
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for name, b := range files {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(b, crd); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", name, err)
		}
		out = append(out, crd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// EstablishTimeout bounds how long Install waits for the API server to serve one CRD.
const EstablishTimeout = 30 * time.Second

// Install creates the CRDs, or updates them to the embedded version, and waits until the API server
// reports each Established: until then creating a NodePool fails with "no matches for kind".
func Install(ctx context.Context, c apiextclient.CustomResourceDefinitionsGetter) error {
	list, err := CRDs()
	if err != nil {
		return err
	}
	for _, crd := range list {
		if err := apply(ctx, c, crd); err != nil {
			return err
		}
	}
	for _, crd := range list {
		if err := waitEstablished(ctx, c, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

func apply(ctx context.Context, c apiextclient.CustomResourceDefinitionsGetter, crd *apiextensionsv1.CustomResourceDefinition) error {
	api := c.CustomResourceDefinitions()
	_, err := api.Create(ctx, crd, metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
	}
	// Re-installing (a second controller start, an upgraded manifest) replaces the spec in place.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec = crd.Spec
		_, err = api.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("updating CRD %s: %w", crd.Name, err)
	}
	return nil
}

func waitEstablished(ctx context.Context, c apiextclient.CustomResourceDefinitionsGetter, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, EstablishTimeout, true,
		func(ctx context.Context) (bool, error) {
			crd, err := c.CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return established(crd), nil
		})
	if err != nil {
		return fmt.Errorf("waiting for CRD %s to be established: %w", name, err)
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
