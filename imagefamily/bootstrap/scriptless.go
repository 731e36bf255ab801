package bootstrap

import (
	"bytes"
	"encoding/base64"
	"errors"
	"slices"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/internal/kubever"
	"github.com/napkit/napkit/kubeletconfig"
	corev1 "k8s.io/api/core/v1"
)

// flagRegisterWithTaints is the kubelet flag that carries the node's initial taints.
const flagRegisterWithTaints = "--register-with-taints"

// ScriptlessInput is everything the aksscriptless customData is rendered from.
type ScriptlessInput struct {
	Cluster Cluster
	// Arch is the node's kubernetes.io/arch (amd64 or arm64); it picks the binaries to download.
	Arch string
	// KubeletFlags are the flags rendered by kubeletconfig (Config.Flags), without
	// --register-with-taints: taints come from Taints. They are laid over the AKS base flags, which
	// they override by name.
	KubeletFlags []string
	// Labels are all the node's labels; those a kubelet may not set (see CanKubeletSetLabel) are
	// left out of the script and applied later by the controller.
	Labels map[string]string
	// Taints are every taint the node registers with, startup taints included, in order.
	Taints []corev1.Taint
	// GPU is the NVIDIA driver the image should install, or nil when it should install none.
	GPU *GPUDriver
}

// Scriptless is the rendered aksscriptless bootstrap data.
type Scriptless struct {
	// Script is the bash script (the decoded customData).
	Script Payload
	// CustomData is the base64 of Script: the VM's osProfile.customData.
	CustomData Payload
	// KubeletFlags are the flags in KUBELET_FLAGS, sorted: the AKS base flags, kubeletconfig's and
	// --register-with-taints.
	KubeletFlags []string
	// KubeletLabels are the labels in KUBELET_NODE_LABELS.
	KubeletLabels map[string]string
}

// RenderScriptless validates the input and renders the customData. Identical input gives
// byte-identical output: every list is sorted or kept in the caller's order, never in map order.
// Errors are *api.FieldError values (joined) naming each rejected label, taint, flag or setting.
func RenderScriptless(in ScriptlessInput) (*Scriptless, error) {
	flags, labels, err := in.prepare()
	if err != nil {
		return nil, err
	}
	vars, err := scriptVariables(in, flags, labels)
	if err != nil {
		return nil, err
	}
	script, err := renderScript(vars)
	if err != nil {
		return nil, err
	}
	// Every occurrence is masked, not only TLS_BOOTSTRAP_TOKEN's: the token must not survive in the
	// redacted copy even if some other value happens to contain it.
	redacted := bytes.ReplaceAll(script, []byte(in.Cluster.BootstrapToken.Reveal()), []byte(Redacted))
	return &Scriptless{
		Script:        newPayload(ContentTypeShell, script, redacted),
		CustomData:    newPayload(ContentTypeBase64, encode(script), encode(redacted)),
		KubeletFlags:  flags,
		KubeletLabels: labels,
	}, nil
}

// prepare validates the input and returns the final flag list (the AKS base flags under
// kubeletconfig's and the taints) and the kubelet labels.
func (in ScriptlessInput) prepare() ([]string, map[string]string, error) {
	errs := []error{in.Cluster.Validate(), validateArch(in.Arch), ValidateLabels(in.Labels), ValidateTaints(in.Taints)}
	if _, err := kubeletconfig.ParseFlags(in.KubeletFlags); err != nil {
		errs = append(errs, invalid("kubelet flags", nil, "%v", err))
	}
	for _, f := range in.KubeletFlags {
		if strings.HasPrefix(f, flagRegisterWithTaints+"=") {
			errs = append(errs, invalid("kubelet flag", f, "taints are passed as Taints, not as a flag"))
		}
	}
	configured := slices.Clone(in.KubeletFlags)
	if len(in.Taints) > 0 {
		configured = append(configured, flagRegisterWithTaints+"="+FormatTaints(in.Taints))
	}
	errs = append(errs, ValidateFlags(configured))
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	v, err := kubever.Parse(in.Cluster.KubernetesVersion)
	if err != nil {
		return nil, nil, invalid("Kubernetes version", in.Cluster.KubernetesVersion, "%v", err)
	}
	return mergeKubeletFlags(v, configured), KubeletLabels(in.Labels), nil
}

func validateArch(arch string) error {
	if arch != api.ArchAMD64 && arch != api.ArchARM64 {
		return invalid("architecture", arch, "must be %s or %s", api.ArchAMD64, api.ArchARM64)
	}
	return nil
}

func encode(b []byte) []byte {
	out := make([]byte, base64.StdEncoding.EncodedLen(len(b)))
	base64.StdEncoding.Encode(out, b)
	return out
}
