//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"

	"github.com/napkit/napkit/api"
)

// pauseImage is the seed walkthrough's image; nothing pulls it, there is no kubelet.
const pauseImage = "mcr.microsoft.com/oss/kubernetes/pause:3.6"

// newNamespace creates a namespace for one test's workloads.
func (c *cluster) newNamespace(t *testing.T, name string) string {
	t.Helper()
	_, err := c.kube.CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	return name
}

// deployment is an inflate-style Deployment: pause pods requesting cpu each, with grace period 0
// so that deleting or evicting a pod does not leave it Terminating (see the tools README).
func deployment(ns, name string, replicas int32, cpu string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: new(int64),
					Containers: []corev1.Container{{
						Name: name, Image: pauseImage,
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse(cpu),
						}},
					}},
				},
			},
		},
	}
}

// pdb allows the given number of the app's pods to be unavailable.
func pdb(ns, app string, maxUnavailable int) *policyv1.PodDisruptionBudget {
	mu := intstr.FromInt(maxUnavailable)
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: &mu,
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		},
	}
}

// scale sets a Deployment's replicas through the scale subresource, as kubectl scale does. A
// conflict (the deployment controller just wrote the status of a fresh Deployment) is retried on
// the latest version, as kubectl does.
func (c *cluster) scale(ctx context.Context, ns, name string, replicas int32) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := c.kube.AppsV1().Deployments(ns).GetScale(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading scale of %s: %w", name, err)
		}
		s.Spec.Replicas = replicas
		if _, err := c.kube.AppsV1().Deployments(ns).UpdateScale(ctx, name, s, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("scaling %s: %w", name, err)
		}
		return nil
	})
}

// appPods lists the live (not terminating) pods of an app.
func (c *cluster) appPods(ctx context.Context, ns, app string) ([]corev1.Pod, error) {
	list, err := c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return nil, fmt.Errorf("listing pods of %s: %w", app, err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// runningPods waits-friendly: an error unless exactly want pods of the app are bound and Running.
func (c *cluster) runningPods(ctx context.Context, ns, app string, want int) ([]corev1.Pod, error) {
	pods, err := c.appPods(ctx, ns, app)
	if err != nil {
		return nil, err
	}
	running := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	if running != want || len(pods) != want {
		return nil, fmt.Errorf("%d/%d pods of %s running (%d exist)", running, want, app, len(pods))
	}
	return pods, nil
}

// nodeClaims lists the NodeClaims as the library types.
func (c *cluster) nodeClaims(ctx context.Context) ([]*api.NodeClaim, error) {
	list, err := c.dyn.Resource(nodeClaimsGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	out := make([]*api.NodeClaim, 0, len(list.Items))
	for _, u := range list.Items {
		b, err := json.Marshal(u.Object)
		if err != nil {
			return nil, fmt.Errorf("NodeClaim %s: %w", u.GetName(), err)
		}
		nc := &api.NodeClaim{}
		if err := json.Unmarshal(b, nc); err != nil {
			return nil, fmt.Errorf("NodeClaim %s: %w", u.GetName(), err)
		}
		out = append(out, nc)
	}
	return out, nil
}

// poolNodes lists the Nodes the controller made for a NodePool.
func (c *cluster) poolNodes(ctx context.Context, pool string) ([]corev1.Node, error) {
	list, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: api.LabelNodePool + "=" + pool})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	return list.Items, nil
}

// podEvents returns the messages of the events about a pod with the given reason.
func (c *cluster) podEvents(ctx context.Context, pod *corev1.Pod, reason string) ([]string, error) {
	sel := fmt.Sprintf("involvedObject.kind=Pod,involvedObject.name=%s,reason=%s", pod.Name, reason)
	list, err := c.kube.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("listing events of %s: %w", pod.Name, err)
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.UID == pod.UID {
			out = append(out, e.Source.Component+": "+e.Message)
		}
	}
	return out, nil
}
