package manifest

import (
	"fmt"
	"strings"

	"github.com/napkit/napkit/api"
)

// ErrUnsupportedVersion is wrapped by the error for a document of a Karpenter API group in a version
// napkit does not read (it wraps ErrDecode): karpenter.sh/v1beta1 or v1alpha5 (NodePool, NodeClaim, Provisioner, Machine)
// and karpenter.azure.com/v1alpha1 or v1alpha2 (AKSNodeClass, AKSNodeTemplate). Skipping such a
// document, as napkit skips kinds it does not know, would plan every pod as if the NodePool did not
// exist; converting it would guess at fields whose meaning changed between versions (v1beta1's
// consolidationPolicy WhenUnderutilized, expireAfter moving to the template, ...). So it is an
// error that points to the migration.
var ErrUnsupportedVersion = fmt.Errorf("%w: unsupported apiVersion", ErrDecode)

// karpenterGroups are the API groups whose other versions are refused rather than skipped.
var karpenterGroups = map[string]string{
	"karpenter.sh":        api.KarpenterVersion,
	"karpenter.azure.com": api.AzureVersion,
}

// unsupportedVersion returns the error for a document of a Karpenter group in a version the
// decoder's table lacks, or nil.
func (b *build) unsupportedVersion(doc *Document) error {
	group, _, ok := strings.Cut(doc.Kind.APIVersion, "/")
	want, karpenter := karpenterGroups[group]
	if !ok || !karpenter {
		return nil
	}
	return fmt.Errorf("%w: apiVersion %q: %s", ErrUnsupportedVersion, doc.Kind.APIVersion, migrationHint(group, want, doc.Kind.Kind))
}

// migrationHint says what to do instead. A cluster that served the old version through a conversion
// webhook stores the new one, so `kubectl get` with the full resource name prints it.
func migrationHint(group, want, kind string) string {
	switch group {
	case "karpenter.sh":
		current := map[string]string{"Provisioner": api.KindNodePool, "Machine": api.KindNodeClaim}[kind]
		if current == "" {
			current = kind
		}
		return fmt.Sprintf("napkit reads %s %s; migrate with https://karpenter.sh/docs/upgrading/v1-migration/ "+
			"(a cluster already on Karpenter v1 prints it with `kubectl get %ss.%s -o yaml`)",
			want, current, strings.ToLower(current), strings.Replace(want, "karpenter.sh/", "", 1)+".karpenter.sh")
	default:
		return fmt.Sprintf("napkit reads %s AKSNodeClass; v1alpha2 is deprecated upstream (\"use v1beta1.AKSNodeClass instead\"), "+
			"and a cluster running a current provider prints it with `kubectl get aksnodeclasses.v1beta1.karpenter.azure.com -o yaml`", want)
	}
}
