package nodeclassstatus

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/kubeversion"
)

// The AKSNodeClass condition types napkit sets (upstream: pkg/apis/v1beta1/aksnodeclass_status.go).
const (
	ConditionReady                  = "Ready"
	ConditionImagesReady            = "ImagesReady"
	ConditionKubernetesVersionReady = "KubernetesVersionReady"
)

// Condition reasons.
const (
	ReasonKubernetesUpgrade  = "KubernetesUpgrade"
	ReasonImagesNotFound     = "ImagesNotFound"
	ReasonSIGRequiredForFIPS = "SIGRequiredForFIPS"
	ReasonImageFamily        = "ImageFamilyUnsupported"
	ReasonNotReady           = "NotReady"
)

// Input is everything one Compute reads.
type Input struct {
	// Class is the AKSNodeClass as stored; Compute never modifies it.
	Class *api.AKSNodeClass
	// ServerVersion is the API server's version (kubeversion.FromServer); required.
	ServerVersion string
	// Mode is the provisioning mode ("" is aksscriptless).
	Mode imagefamily.Mode
	// Gallery and SIGSubscriptionID say where images come from ("" is the community gallery).
	Gallery           imagefamily.GalleryKind
	SIGSubscriptionID string
	// Available are the published versions discovery found for the class's definitions.
	Available []imagefamily.AvailableVersion
	// Window is the node-OS maintenance window (see ParseWindow).
	Window Window
	// Now stamps condition transitions and is compared with the window.
	Now time.Time
	// ClusterSubnetID is the subnet nodes join unless the class names one; NodeResourceGroup is the
	// cluster's node resource group (an AKS-managed VNET lives there). Both feed SubnetsReady.
	ClusterSubnetID, NodeResourceGroup string
	// SubnetNotFound, when set, says why reading the class's subnet (AKSNodeClass.SubnetID) found none.
	SubnetNotFound string
	// DiskEncryptionSetID is the disk encryption set of the nodes' OS disks ("" for none); without
	// one ValidationSucceeded is True, as upstream's. With one, DiskEncryptionSetChecked says it
	// was read this pass (else the condition stays as recorded) and DiskEncryptionSetDenied, when
	// set, why the controlling identity may not read it (ValidationSucceeded False).
	DiskEncryptionSetID      string
	DiskEncryptionSetChecked bool
	DiskEncryptionSetDenied  string
	// Network is the cluster's network; with LocalDNSClusterChecked, ConflictingNetworkPolicies and
	// NodeLocalDNSDaemonSet it resolves status.localDNSState (imagefamily.ResolveLocalDNSState).
	Network                    api.ClusterNetwork
	LocalDNSClusterChecked     bool
	ConflictingNetworkPolicies bool
	NodeLocalDNSDaemonSet      bool
}

// Output is the computed status.
type Output struct {
	Status api.AKSNodeClassStatus
	// Changed reports that Status differs from the class's recorded status.
	Changed bool
	// Notes say, in order, what changed and why (for logs and events); empty when nothing did.
	Notes []string
}

// Compute returns the class's new status. Only a ServerVersion that does not parse is an error;
// everything the class itself gets wrong ends in a False condition with the reason.
func Compute(in Input) (Output, error) {
	status := in.Class.Status
	status.Images = slices.Clone(status.Images)
	status.Conditions = slices.Clone(status.Conditions)
	out := Output{}
	recordedVersion := status.KubernetesVersion
	if !conditionTrue(status.Conditions, ConditionKubernetesVersionReady) {
		recordedVersion = ""
	}
	version, upgraded, err := kubeversion.Next(recordedVersion, in.ServerVersion)
	if err != nil {
		return Output{}, err
	}
	if version != status.KubernetesVersion {
		out.Notes = append(out.Notes, fmt.Sprintf("kubernetesVersion %s -> %s", orNone(status.KubernetesVersion), version))
	}
	status.KubernetesVersion = version
	set := func(condType string, ok bool, reason, msg string) {
		c := metav1.Condition{Type: condType, Status: metav1.ConditionTrue, Reason: condType, Message: msg,
			ObservedGeneration: in.Class.Generation, LastTransitionTime: metav1.NewTime(in.Now)}
		if !ok {
			c.Status, c.Reason = metav1.ConditionFalse, reason
		}
		meta.SetStatusCondition(&status.Conditions, c)
	}
	set(ConditionKubernetesVersionReady, true, "", "")
	state := imagefamily.ResolveLocalDNSState(imagefamily.LocalDNSStateInput{NodeClass: in.Class, KubernetesVersion: version,
		Network: in.Network, ClusterChecked: in.LocalDNSClusterChecked,
		ConflictingNetworkPolicies: in.ConflictingNetworkPolicies, NodeLocalDNSDaemonSet: in.NodeLocalDNSDaemonSet})
	if in.Class.Spec.LocalDNS == nil {
		state = "" // nothing to resolve: the field stays unset
	}
	if state != status.LocalDNSState {
		out.Notes = append(out.Notes, fmt.Sprintf("localDNSState %s -> %s", orNone(status.LocalDNSState), orNone(state)))
	}
	status.LocalDNSState = state
	imagesOK, reason, msg := in.images(&status, upgraded, &out.Notes)
	set(ConditionImagesReady, imagesOK, reason, msg)
	subnetOK, subnetReason, subnetMsg, subnetChecked := in.subnets()
	if subnetChecked {
		set(ConditionSubnetsReady, subnetOK, subnetReason, subnetMsg)
	} else {
		meta.RemoveStatusCondition(&status.Conditions, ConditionSubnetsReady)
	}
	if in.DiskEncryptionSetID == "" || in.DiskEncryptionSetChecked {
		set(ConditionValidationSucceeded, in.DiskEncryptionSetDenied == "", ReasonDiskEncryptionSetRBACMissing, in.DiskEncryptionSetDenied)
	}
	validationOK := !conditionFalse(status.Conditions, ConditionValidationSucceeded)
	// The local DNS state resolves from the spec and the cluster facts given; nothing can fail.
	set(ConditionLocalDNSReady, true, "", "")
	switch {
	case !imagesOK:
		set(ConditionReady, false, ReasonNotReady, ConditionImagesReady+" is False: "+msg)
	case !subnetOK:
		set(ConditionReady, false, ReasonNotReady, ConditionSubnetsReady+" is False: "+subnetMsg)
	case !validationOK:
		set(ConditionReady, false, ReasonNotReady, ConditionValidationSucceeded+" is False: "+
			meta.FindStatusCondition(status.Conditions, ConditionValidationSucceeded).Message)
	default:
		set(ConditionReady, true, "", "")
	}
	out.Status = status
	out.Changed = !equality.Semantic.DeepEqual(status, in.Class.Status)
	return out, nil
}

// images updates status.images and says whether they are ready.
func (in Input) images(status *api.AKSNodeClassStatus, upgraded bool, notes *[]string) (bool, string, string) {
	if in.Class.Spec.FIPS() && (in.Gallery == "" || in.Gallery == imagefamily.CommunityGallery) {
		status.Images = nil
		return false, ReasonSIGRequiredForFIPS, "FIPS images are published only in AKS's shared image gallery; the community gallery has none"
	}
	family, defs, err := Definitions(in.Class, status.KubernetesVersion, in.Mode)
	if err != nil {
		status.Images = nil
		return false, ReasonImageFamily, err.Error()
	}
	goal, err := goalImages(in, family, defs)
	if err != nil {
		status.Images = nil
		return false, ReasonImageFamily, err.Error()
	}
	unready := upgraded || !conditionTrue(status.Conditions, ConditionImagesReady)
	switch {
	case unready:
		if upgraded {
			*notes = append(*notes, "images re-picked for the Kubernetes upgrade")
		}
	case in.Window.Open(in.Now):
	default:
		held := keepRecordedVersions(status.Images, goal)
		if !equality.Semantic.DeepEqual(held, goal) {
			*notes = append(*notes, "newer images held until the node-OS maintenance window opens")
		}
		goal = held
	}
	if len(goal) == 0 {
		status.Images = nil
		return false, ReasonImagesNotFound, fmt.Sprintf("no published version of any %s image definition (%s)", family, defNames(defs))
	}
	*notes = append(*notes, imageNotes(status.Images, goal)...)
	status.Images = goal
	return true, "", ""
}

func imageNotes(old, goal []api.NodeImage) []string {
	before := map[string]string{}
	for _, img := range old {
		before[baseID(img.ID)] = VersionOf(img.ID)
	}
	var notes []string
	for _, img := range goal {
		if was, now := before[baseID(img.ID)], VersionOf(img.ID); was != now {
			notes = append(notes, fmt.Sprintf("image %s %s -> %s", baseID(img.ID), orNone(was), now))
		}
	}
	return notes
}

func defNames(defs []imagefamily.Definition) string {
	s := ""
	for i, d := range defs {
		if i > 0 {
			s += ", "
		}
		s += d.Name
	}
	return s
}

func conditionTrue(conds []metav1.Condition, t string) bool {
	return meta.IsStatusConditionTrue(conds, t)
}

func conditionFalse(conds []metav1.Condition, t string) bool {
	return meta.IsStatusConditionFalse(conds, t)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
