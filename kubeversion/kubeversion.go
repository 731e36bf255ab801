package kubeversion

import (
	"errors"
	"fmt"
	"strings"
	"time"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"

	"github.com/napkit/napkit/api"
)

// TTL is how long a discovered version may be reused before the API server is asked again
// (upstream: pkg/cache/cache.go KubernetesVersionTTL).
const TTL = 15 * time.Minute

// MaxKubeletSkew is how many minor versions a kubelet may trail the API server (Kubernetes'
// version skew policy since 1.28).
const MaxKubeletSkew = 3

// The error kinds; every error wraps one of them.
var (
	// ErrInvalid: a version string that is not major.minor.patch.
	ErrInvalid = errors.New("invalid Kubernetes version")
	// ErrNewerThanControlPlane: a kubelet version newer than the API server's.
	ErrNewerThanControlPlane = errors.New("kubelet version newer than the control plane")
	// ErrTooOld: a kubelet version more than MaxKubeletSkew minors behind the API server.
	ErrTooOld = errors.New("kubelet version too far behind the control plane")
)

// Parse reads "1.33.2", "v1.33.2" or a build-tagged "v1.33.2-aks.1" / "v1.33.2+k3s1" and returns
// the plain "1.33.2". The field names where the string came from, for the error: an
// *api.FieldError of class ErrInvalid.
func Parse(field, s string) (string, error) {
	v, err := utilversion.ParseGeneric(strings.TrimSpace(s))
	if err != nil || len(v.Components()) < 3 {
		return "", api.Invalid(ErrInvalid, "", field, s, "want major.minor.patch such as 1.33.2")
	}
	return fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch()), nil
}

// FromServer returns the API server's version from its /version answer.
func FromServer(info *version.Info) (string, error) {
	if info == nil {
		return "", fmt.Errorf("/version gitVersion: no answer: %w", ErrInvalid)
	}
	return Parse("/version gitVersion", info.GitVersion)
}

// Next is the version an AKSNodeClass should record, given what it records now (current, "" when
// unset) and what the API server reports (discovered). Upstream takes the discovered version
// unless it is older than the recorded one (it never downgrades); upgraded says the version went
// up, which resets the class's images so they are picked again for the new version
// (upstream: pkg/controllers/nodeclass/status/kubernetesversion.go).
func Next(current, discovered string) (next string, upgraded bool, err error) {
	d, err := utilversion.ParseGeneric(discovered)
	if err != nil {
		return "", false, fmt.Errorf("discovered version %q: %w", discovered, ErrInvalid)
	}
	if current == "" {
		return discovered, false, nil
	}
	c, err := utilversion.ParseGeneric(current)
	if err != nil {
		// A corrupt status value is replaced, not kept: nothing can boot with it.
		return discovered, false, nil
	}
	switch {
	case d.GreaterThan(c):
		return discovered, true, nil
	case d.LessThan(c):
		return current, false, nil
	}
	return discovered, false, nil
}

// ForNodes returns the version nodes boot with: pinned when an operator pinned one, else the
// control plane's. A pinned version newer than the control plane, or more than MaxKubeletSkew
// minors behind it, is an error: such a kubelet would be refused or unsupported.
func ForNodes(controlPlane, pinned string) (string, error) {
	cp, err := utilversion.ParseGeneric(controlPlane)
	if err != nil {
		return "", fmt.Errorf("control plane version %q: %w", controlPlane, ErrInvalid)
	}
	if pinned == "" {
		return controlPlane, nil
	}
	p, err := Parse("pinned kubernetes version", pinned)
	if err != nil {
		return "", err
	}
	pv := utilversion.MustParseGeneric(p)
	if pv.GreaterThan(cp) {
		return "", fmt.Errorf("pinned kubernetes version %s is newer than the control plane's %s: %w", p, controlPlane, ErrNewerThanControlPlane)
	}
	if cp.Major() == pv.Major() && cp.Minor() > pv.Minor()+MaxKubeletSkew {
		return "", fmt.Errorf("pinned kubernetes version %s is more than %d minor versions behind the control plane's %s: %w",
			p, MaxKubeletSkew, controlPlane, ErrTooOld)
	}
	return p, nil
}
