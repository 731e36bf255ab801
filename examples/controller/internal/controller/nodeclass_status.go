package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/kubeversion"
	"github.com/napkit/napkit/nodeclassstatus"
)

// nodeClassLoop keeps every AKSNodeClass's status (Kubernetes version, images, conditions) and
// static hash current, every Upkeep.StatusInterval, when image discovery is configured.
func (c *Controller) nodeClassLoop(ctx context.Context) {
	if c.cfg.Upkeep.ImageVersions == nil {
		return
	}
	wait.UntilWithContext(ctx, c.updateNodeClasses, c.cfg.Upkeep.StatusInterval)
}

// updateNodeClasses runs one pass over every AKSNodeClass. A discovery failure leaves the status
// as it was (nodes keep booting the images last found) and is retried next pass.
func (c *Controller) updateNodeClasses(ctx context.Context) {
	version, err := c.versions.get(ctx, c)
	if err != nil {
		c.log.Error("discovering the Kubernetes version failed; AKSNodeClass status left as is", "error", err)
		return
	}
	window, err := c.maintenanceWindow(ctx)
	if err != nil {
		c.log.Error("reading the maintenance window failed; AKSNodeClass images left as they are", "error", err)
		return
	}
	des := c.checkDiskEncryptionSet(ctx)
	for _, class := range c.nodeClasses() {
		if class.DeletionTimestamp != nil {
			continue
		}
		if err := c.updateNodeClass(ctx, class, version, window, des); err != nil && ctx.Err() == nil {
			c.log.Error("updating AKSNodeClass status failed", "nodeClass", class.Name, "error", err)
		}
	}
	c.updateTagsInPlace(ctx)
}

func (c *Controller) updateNodeClass(ctx context.Context, class *api.AKSNodeClass, version string, window nodeclassstatus.Window, des desCheck) error {
	if err := c.stampNodeClassHash(ctx, class); err != nil {
		return err
	}
	next, _, err := kubeversion.Next(class.Status.KubernetesVersion, version)
	if err != nil {
		return err
	}
	family, defs, err := nodeclassstatus.Definitions(class, next, "")
	var available []imagefamily.AvailableVersion
	if err == nil {
		available, err = c.cfg.Upkeep.ImageVersions.Versions(ctx, c.cfg.Images.Gallery, family, defs)
		if err != nil {
			return fmt.Errorf("listing image versions: %w", err)
		}
	}
	notFound, err := c.checkSubnet(ctx, class)
	if err != nil {
		return err
	}
	out, err := nodeclassstatus.Compute(nodeclassstatus.Input{Class: class, ServerVersion: version, SubnetNotFound: notFound,
		Gallery: c.cfg.Images.Gallery, SIGSubscriptionID: c.cfg.Images.SIGSubscriptionID, Available: available,
		Window: window, Now: c.now(), Network: c.cfg.Cluster.Network, ClusterSubnetID: c.cfg.Cluster.SubnetID,
		NodeResourceGroup: c.cfg.Cluster.NodeResourceGroup, DiskEncryptionSetID: c.cfg.DiskEncryptionSetID,
		DiskEncryptionSetChecked: des.checked, DiskEncryptionSetDenied: des.denied})
	if err != nil {
		return err
	}
	if !out.Changed {
		return nil
	}
	if err := c.writeNodeClassStatus(ctx, class.Name, out.Status); err != nil {
		return err
	}
	if len(out.Notes) > 0 {
		c.log.Info("AKSNodeClass status updated", "nodeClass", class.Name, "changes", out.Notes)
		c.nodeClassEvent(ctx, class.Name, corev1.EventTypeNormal, "StatusUpdated", strings.Join(out.Notes, "; "))
	}
	return nil
}

// writeNodeClassStatus replaces the class's status through the status subresource.
func (c *Controller) writeNodeClassStatus(ctx context.Context, name string, status api.AKSNodeClassStatus) error {
	res := c.cfg.Dynamic.Resource(AKSNodeClassesGVR)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		class, err := FromUnstructured[api.AKSNodeClass](u)
		if err != nil {
			return err
		}
		// Only what this writer owns changes: other status fields (localDNSState) and conditions
		// written elsewhere are kept as stored.
		class.Status.KubernetesVersion, class.Status.Images = status.KubernetesVersion, status.Images
		for _, t := range nodeclassstatus.ConditionTypes {
			if cond := meta.FindStatusCondition(status.Conditions, t); cond != nil {
				meta.SetStatusCondition(&class.Status.Conditions, *cond)
			} else {
				meta.RemoveStatusCondition(&class.Status.Conditions, t)
			}
		}
		class.APIVersion, class.Kind = api.AzureVersion, api.KindAKSNodeClass
		out, err := ToUnstructured(class)
		if err != nil {
			return err
		}
		_, err = res.UpdateStatus(ctx, out, metav1.UpdateOptions{})
		return err
	})
}

// stampNodeClassHash keeps the class's static-hash annotations current and, when the hash
// version changed (a napkit upgrade), re-stamps its NodeClaims so that no node rolls for it
// (upstream: pkg/controllers/nodeclass/hash/controller.go).
func (c *Controller) stampNodeClassHash(ctx context.Context, class *api.AKSNodeClass) error {
	want := consolidation.NodeClassHashAnnotations(class)
	if class.Annotations[api.AnnotationAKSNodeClassHashVersion] != consolidation.NodeClassHashVersion {
		for _, nc := range c.claims() {
			if nc.Spec.NodeClassRef == nil || nc.Spec.NodeClassRef.Name != class.Name {
				continue
			}
			if _, ok := consolidation.RestampNodeClassHash(nc, class); !ok {
				continue
			}
			err := c.updateClaim(ctx, nc.Name, func(nc *api.NodeClaim) bool {
				ann, ok := consolidation.RestampNodeClassHash(nc, class)
				nc.Annotations = ann
				return ok
			})
			if ignoreNotFound(err) != nil {
				return err
			}
		}
	}
	if class.Annotations[api.AnnotationAKSNodeClassHash] == want[api.AnnotationAKSNodeClassHash] &&
		class.Annotations[api.AnnotationAKSNodeClassHashVersion] == consolidation.NodeClassHashVersion {
		return nil
	}
	res := c.cfg.Dynamic.Resource(AKSNodeClassesGVR)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := res.Get(ctx, class.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ann := u.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[api.AnnotationAKSNodeClassHash] = want[api.AnnotationAKSNodeClassHash]
		ann[api.AnnotationAKSNodeClassHashVersion] = consolidation.NodeClassHashVersion
		u.SetAnnotations(ann)
		_, err = res.Update(ctx, u, metav1.UpdateOptions{})
		return err
	})
}

// maintenanceWindow reads AKS's ConfigMap; none (or no namespace configured) means no window.
func (c *Controller) maintenanceWindow(ctx context.Context) (nodeclassstatus.Window, error) {
	ns := c.cfg.Upkeep.SystemNamespace
	if ns == "" {
		return nodeclassstatus.Window{}, nil
	}
	cm, err := c.cfg.Kube.CoreV1().ConfigMaps(ns).Get(ctx, nodeclassstatus.MaintenanceWindowConfigMap, metav1.GetOptions{})
	if ignoreNotFound(err) != nil {
		return nodeclassstatus.Window{}, fmt.Errorf("ConfigMap %s/%s: %w", ns, nodeclassstatus.MaintenanceWindowConfigMap, err)
	}
	if err != nil || cm == nil {
		return nodeclassstatus.Window{}, nil
	}
	return nodeclassstatus.ParseWindow(cm.Data)
}

// nodeClassEvent records an event on an AKSNodeClass (cluster-scoped, so in default).
func (c *Controller) nodeClassEvent(ctx context.Context, name, kind, reason, msg string) {
	ref := corev1.ObjectReference{Kind: api.KindAKSNodeClass, APIVersion: api.AzureVersion, Name: name}
	c.event(ctx, metav1.NamespaceDefault, ref, kind, reason, msg)
}

// versionCache holds the node Kubernetes version for Upkeep.VersionTTL: the API server's, or the
// pinned one (which must not be newer).
type versionCache struct {
	mu      sync.Mutex
	version string
	// server is the API server's own version, as last read.
	server string
	at     time.Time
}

// controlPlane is the API server's version as last read ("" before the first read).
func (v *versionCache) controlPlane() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.server
}

func (v *versionCache) get(ctx context.Context, c *Controller) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.version != "" && c.now().Sub(v.at) < c.cfg.Upkeep.VersionTTL {
		return v.version, nil
	}
	info, err := c.cfg.Kube.Discovery().ServerVersion()
	if err != nil {
		return "", fmt.Errorf("API server /version: %w", err)
	}
	server, err := kubeversion.FromServer(info)
	if err != nil {
		return "", err
	}
	version, err := kubeversion.ForNodes(server, c.cfg.Upkeep.KubernetesVersion)
	if err != nil {
		return "", err
	}
	v.version, v.server, v.at = version, server, c.now()
	return version, nil
}
