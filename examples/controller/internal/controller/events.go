package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// eventSource names the controller in the events it writes.
const eventSource = "napkit"

// podEvent records an event on a pod, where `kubectl describe pod` shows it.
func (c *Controller) podEvent(ctx context.Context, pod *corev1.Pod, kind, reason, msg string) {
	ref := corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
	c.event(ctx, pod.Namespace, ref, kind, reason, msg)
}

// claimEvent records an event on a NodeClaim (cluster-scoped, so its events live in default).
func (c *Controller) claimEvent(ctx context.Context, name, kind, reason, msg string) {
	ref := corev1.ObjectReference{Kind: api.KindNodeClaim, APIVersion: api.KarpenterVersion, Name: name}
	c.event(ctx, metav1.NamespaceDefault, ref, kind, reason, msg)
}

// event writes the event directly rather than through a broadcaster: the controller sends few, and
// a direct write is visible as soon as the call returns, which the end-to-end tests rely on.
// Failing to record is logged, never fatal.
func (c *Controller) event(ctx context.Context, ns string, ref corev1.ObjectReference, kind, reason, msg string) {
	now := metav1.NewTime(c.now())
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", ref.Name, now.UnixNano()), Namespace: ns},
		InvolvedObject: ref, Reason: reason, Message: msg, Type: kind, Count: 1,
		FirstTimestamp: now, LastTimestamp: now, Source: corev1.EventSource{Component: eventSource},
	}
	if _, err := c.cfg.Kube.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
		c.log.Warn("recording event failed", "object", ref.Name, "reason", reason, "error", err)
	}
}
