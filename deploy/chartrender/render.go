package chartrender

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// Options name the release.
type Options struct {
	// ChartDir is the chart's directory (charts/napkit).
	ChartDir string
	// ReleaseName and Namespace are what `helm install NAME -n NAMESPACE` would use.
	ReleaseName, Namespace string
	// Values override the chart's values.yaml, as -f does.
	Values map[string]any
	// KubeVersion is the cluster version the templates see (DefaultKubeVersion when empty).
	KubeVersion string
}

// DefaultKubeVersion is a cluster version the chart supports (Chart.yaml's kubeVersion).
const DefaultKubeVersion = "v1.33.0"

// Render renders the chart client-side, CRDs included, and returns its manifest text and objects.
func Render(ctx context.Context, opts Options) (string, []*unstructured.Unstructured, error) {
	chart, err := loader.Load(opts.ChartDir)
	if err != nil {
		return "", nil, fmt.Errorf("loading chart %s: %w", opts.ChartDir, err)
	}
	install := action.NewInstall(action.NewConfiguration())
	install.DryRunStrategy = action.DryRunClient
	install.ReleaseName, install.Namespace = opts.ReleaseName, opts.Namespace
	install.Replace, install.IncludeCRDs = true, true
	kubeVersion := opts.KubeVersion
	if kubeVersion == "" {
		kubeVersion = DefaultKubeVersion
	}
	if install.KubeVersion, err = common.ParseKubeVersion(kubeVersion); err != nil {
		return "", nil, fmt.Errorf("kube version %q: %w", kubeVersion, err)
	}
	rel, err := install.RunWithContext(ctx, chart, opts.Values)
	if err != nil {
		return "", nil, fmt.Errorf("rendering chart %s: %w", opts.ChartDir, err)
	}
	r, ok := rel.(*release.Release)
	if !ok {
		return "", nil, fmt.Errorf("rendering chart %s: unexpected release type %T", opts.ChartDir, rel)
	}
	objs, err := Decode(r.Manifest)
	return r.Manifest, objs, err
}

// Decode splits a multi-document manifest into objects, skipping empty documents.
func Decode(manifest string) ([]*unstructured.Unstructured, error) {
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("decoding rendered manifest: %w", err)
		}
		if len(obj) > 0 {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

// Kinds lists the objects as sorted "Kind/name" strings.
func Kinds(objs []*unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	sort.Strings(out)
	return out
}

// Find returns the object of that kind (and name, when not empty), or nil.
func Find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			return o
		}
	}
	return nil
}

// Encode writes objects back as one multi-document YAML stream, in the given order.
func Encode(objs []*unstructured.Unstructured) ([]byte, error) {
	var b bytes.Buffer
	for _, o := range objs {
		data, err := o.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encoding %s/%s: %w", o.GetKind(), o.GetName(), err)
		}
		y, err := jsonToYAML(data)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.Bytes(), nil
}
