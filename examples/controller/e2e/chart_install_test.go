//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/napkit/napkit/examples/controller/crds"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
	"github.com/napkit/napkit/nodeclassstatus"
)

// installChart follows README's "Run on AKS" install on the control plane, as far as a machine
// without Azure and without a container runtime allows: it creates the release namespace and the
// bootstrap-token Secret (step 3), has the API server accept every object the chart renders
// (server-side dry run: the CRDs, RBAC, ServiceAccount, Deployment, PDB, Service, ConfigMap), and
// creates the ServiceAccount and RBAC the controller (and, with the RBAC the chart adds under
// controller.simulate, the simulated kubelets) then runs under. The Deployment is not
// created: no kubelet here runs its image. It also writes AKS's maintenance-window ConfigMap (an
// open window) in the system namespace, which the controller reads.
func installChart(t *testing.T, c *cluster) {
	t.Helper()
	ctx := t.Context()
	_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chartNamespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = c.kube.CoreV1().Secrets(chartNamespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "napkit-bootstrap-token"},
		StringData: map[string]string{"token": "abcdef.0123456789abcdef"},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	rendered, err := readObjects(chartObjects)
	require.NoError(t, err)
	crdObjs, err := embeddedCRDs()
	require.NoError(t, err)
	require.NoError(t, c.dryRunApply(ctx, append(crdObjs, rendered...)), "the API server refuses a rendered object")

	kinds := map[string]int{}
	var identity []*unstructured.Unstructured
	for _, o := range rendered {
		kinds[o.GetKind()]++
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			identity = append(identity, o)
		}
	}
	require.Equal(t, map[string]int{"ServiceAccount": 1, "ClusterRole": 2, "ClusterRoleBinding": 2, "Role": 3, "RoleBinding": 3,
		"ConfigMap": 1, "Deployment": 1, "PodDisruptionBudget": 1, "Service": 1}, kinds)
	require.NoError(t, c.create(ctx, identity...))

	now := time.Now().UTC()
	_, err = c.kube.CoreV1().ConfigMaps(chartSystemNamespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: nodeclassstatus.MaintenanceWindowConfigMap},
		Data: map[string]string{
			nodeclassstatus.NodeOSChannel + "-start": now.Add(-time.Hour).Format(time.RFC3339),
			nodeclassstatus.NodeOSChannel + "-end":   now.Add(24 * time.Hour).Format(time.RFC3339),
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// dryRunApply sends every object as a server-side apply with dryRun=All (kubectl apply
// --server-side --dry-run=server): the API server validates and admits each one, new or already
// there (the CRDs), and stores nothing.
func (c *cluster) dryRunApply(ctx context.Context, objs []*unstructured.Unstructured) error {
	return c.each(ctx, objs, func(ri dynamic.ResourceInterface, u *unstructured.Unstructured) error {
		_, err := ri.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "helm", Force: true, DryRun: []string{metav1.DryRunAll}})
		return err
	})
}

// embeddedCRDs are the controller's embedded CRD manifests, the chart's crds/ (symlinks to them).
func embeddedCRDs() ([]*unstructured.Unstructured, error) {
	files, err := crds.Files()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*unstructured.Unstructured, 0, len(names))
	for _, n := range names {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(files[n], &u.Object); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", n, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// startKubelets runs another set of simulated kubelets on the stack's Azure with the given
// clients, as a restarted simulation would, until the returned stop.
func (s *stack) startKubelets(kube kubernetes.Interface, dyn dynamic.Interface) (stop func()) {
	s.t.Helper()
	base, err := baseCatalogue()
	require.NoError(s.t, err)
	info, err := s.c.kube.Discovery().ServerVersion()
	require.NoError(s.t, err)
	kubelet, err := simnodes.New(simnodes.Options{Kube: kube, Dynamic: dyn, Launcher: s.launcher, InstanceType: base.Find,
		Region: region, Logger: s.logger(), KubeletVersion: info.GitVersion, LeaseRenewInterval: time.Second})
	require.NoError(s.t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kubelet.Run(ctx) }()
	return func() {
		cancel()
		require.NoError(s.t, <-done)
	}
}
