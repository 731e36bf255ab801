package controller

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/kubeversion"
	"github.com/napkit/napkit/nodeclassstatus"
)

// bootSettings are the cluster and image inputs a node of the class boots with. With the status
// writer on, they come from the class's status: its Kubernetes version (never newer than the
// control plane) and its images, one version per definition; a class whose status is not Ready
// cannot launch, as upstream's NodeClassNotReady. Without it, they are Config's.
func (c *Controller) bootSettings(class *api.AKSNodeClass) (bootstrap.Cluster, imagefamily.ImageOptions, error) {
	cluster, images := c.cfg.Cluster, c.cfg.Images
	if c.cfg.Upkeep.ImageVersions == nil {
		return cluster, images, nil
	}
	ready := meta.FindStatusCondition(class.Status.Conditions, nodeclassstatus.ConditionReady)
	if ready == nil || ready.Status != "True" {
		why := "its status is not written yet"
		if ready != nil {
			why = ready.Message
		}
		return cluster, images, fmt.Errorf("AKSNodeClass %s is not ready: %s", class.Name, why)
	}
	if err := notNewerThanControlPlane(class, c.versions.controlPlane()); err != nil {
		return cluster, images, err
	}
	cluster.KubernetesVersion = class.Status.KubernetesVersion
	images.Version, images.Available = "", nil
	for _, img := range class.Status.Images {
		def, version, ok := imageDefinitionVersion(img.ID)
		if !ok {
			return cluster, images, fmt.Errorf("AKSNodeClass %s: status.images id %q is not a gallery image version", class.Name, img.ID)
		}
		images.Available = append(images.Available, imagefamily.AvailableVersion{Definition: def, Version: version})
	}
	return cluster, images, nil
}

// imageDefinitionVersion splits ".../images/<definition>/versions/<version>".
func imageDefinitionVersion(id string) (string, string, bool) {
	parts := strings.Split(id, "/")
	n := len(parts)
	if n < 4 || !strings.EqualFold(parts[n-2], "versions") || !strings.EqualFold(parts[n-4], "images") {
		return "", "", false
	}
	return parts[n-3], parts[n-1], parts[n-3] != "" && parts[n-1] != ""
}

// notNewerThanControlPlane refuses a boot version newer than the API server last read. The status
// never goes down (upstream keeps the recorded version when the API server answers an older one,
// as mixed API servers do during an upgrade), so without this a node launched then would run a
// kubelet newer than its control plane, which the version skew policy forbids; it launches once
// the API server reports the recorded version again.
func notNewerThanControlPlane(class *api.AKSNodeClass, controlPlane string) error {
	if controlPlane == "" {
		return nil // not read yet: the status it wrote is what the API server said
	}
	boot, err := utilversion.ParseGeneric(class.Status.KubernetesVersion)
	if err != nil {
		return fmt.Errorf("AKSNodeClass %s: status.kubernetesVersion %q: %w", class.Name, class.Status.KubernetesVersion, kubeversion.ErrInvalid)
	}
	if cp, err := utilversion.ParseGeneric(controlPlane); err == nil && boot.GreaterThan(cp) {
		return fmt.Errorf("AKSNodeClass %s: status.kubernetesVersion %s is newer than the control plane's %s: %w",
			class.Name, class.Status.KubernetesVersion, controlPlane, kubeversion.ErrNewerThanControlPlane)
	}
	return nil
}
