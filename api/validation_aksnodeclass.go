package api

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// AKSNodeClass limits from the karpenter.azure.com/v1beta1 CRD.
const (
	MinOSDiskSizeGB = 30
	MaxOSDiskSizeGB = 2048
	MinMaxPods      = 10
	MaxMaxPods      = 250
	MaxTagKeyLen    = 512
	MaxTagValueLen  = 256
)

// subnetIDPattern is the CRD pattern for spec.vnetSubnetID (case-insensitive, as ARM IDs are).
var subnetIDPattern = regexp.MustCompile(`(?i)^/subscriptions/[^/]+/resourceGroups/[a-zA-Z0-9_\-().]{0,89}[a-zA-Z0-9_\-()]/providers/Microsoft\.Network/virtualNetworks/[^/]+/subnets/[^/]+$`)

// tagKeyForbidden are the characters Azure rejects in tag names.
const tagKeyForbidden = `<>%&?\`

var gpuModes = []string{string(GPUModeDriver), string(GPUModeNone)}

// Validate checks the AKSNodeClass against the karpenter.azure.com/v1beta1 CRD rules (OpenAPI and
// CEL): disk and pod limits, image family and FIPS combinations, subnet ID, tags, kubelet, LocalDNS
// and Linux OS settings. Windows families pass here; ValidateForMode decides whether the provisioning
// mode can build them. The error lists every problem with its field path and bad value, and wraps
// ErrInvalid.
func (nc *AKSNodeClass) Validate() error {
	s := &nc.Spec
	sp := field.NewPath("spec")
	errs := validateName(nc.Name, false)
	errs = append(errs, validateSubnetID(sp.Child("vnetSubnetID"), s.VNETSubnetID)...)
	errs = append(errs, inRange(sp.Child("osDiskSizeGB"), s.OSDiskSizeGB, MinOSDiskSizeGB, MaxOSDiskSizeGB)...)
	errs = append(errs, inRange(sp.Child("maxPods"), s.MaxPods, MinMaxPods, MaxMaxPods)...)
	errs = append(errs, validateImage(sp, s)...)
	errs = append(errs, validateTags(sp.Child("tags"), s.Tags)...)
	errs = append(errs, validateKubelet(sp.Child("kubelet"), s.Kubelet)...)
	errs = append(errs, validateLocalDNS(sp.Child("localDNS"), s.LocalDNS)...)
	errs = append(errs, validateLinuxOSConfig(sp.Child("linuxOSConfig"), s)...)
	if s.GPU != nil && s.GPU.Mode != nil {
		errs = append(errs, oneOf(sp.Child("gpu", "mode"), string(*s.GPU.Mode), gpuModes...)...)
	}
	return toError(errs)
}

func validateSubnetID(p *field.Path, id *string) []*FieldError {
	if id == nil || subnetIDPattern.MatchString(*id) {
		return nil
	}
	return []*FieldError{invalid(p, *id, "must be a subnet resource ID: "+
		"/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>")}
}

// validateTags applies Azure's tag limits, so a bad tag fails here rather than at VM creation.
func validateTags(p *field.Path, tags map[string]string) []*FieldError {
	var errs []*FieldError
	for _, k := range sets.List(sets.KeySet(tags)) {
		kp := p.Key(k)
		if len(k) > MaxTagKeyLen {
			errs = append(errs, invalid(kp, k, "tag keys must be at most %d characters", MaxTagKeyLen))
		}
		if strings.ContainsAny(k, tagKeyForbidden) {
			errs = append(errs, invalid(kp, k, "tag keys must not contain any of < > %% & ? \\"))
		}
		if v := tags[k]; len(v) > MaxTagValueLen {
			errs = append(errs, invalid(kp, v, "tag values must be at most %d characters", MaxTagValueLen))
		}
	}
	return errs
}
