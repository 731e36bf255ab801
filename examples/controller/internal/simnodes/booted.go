package simnodes

import (
	"encoding/base64"
	"encoding/json"
	"regexp"

	"github.com/napkit/napkit/launch/azuresim"
)

// kubeletVersion is what the VM's kubelet reports: the version its bootstrap data installed when
// that is known, else Options.KubeletVersion.
func (k *Kubelet) kubeletVersion(vm string) string {
	if k.opts.BootedVersion != nil {
		if v, ok := k.opts.BootedVersion(vm); ok {
			return v
		}
	}
	return k.opts.KubeletVersion
}

// bootVersion finds the Kubernetes version the aksscriptless bootstrap script exports.
var bootVersion = regexp.MustCompile(`(?m)^KUBERNETES_VERSION='([0-9]+\.[0-9]+\.[0-9]+)'$`)

// BootedVersion returns a BootedVersion option reading the VM PUTs the simulated Azure received:
// the kubelet of VM vm is the version its last PUT's customData (the bootstrap script) installs,
// as "v1.33.2"; false when no PUT of vm carries one (a Machine API node, a VM made elsewhere).
func BootedVersion(sim *azuresim.Sim) func(vm string) (string, bool) {
	return func(vm string) (string, bool) {
		puts := sim.RequestsFor(azuresim.OpVMPut, vm)
		if len(puts) == 0 {
			return "", false
		}
		var body struct {
			Properties struct {
				OSProfile struct {
					CustomData string `json:"customData"`
				} `json:"osProfile"`
			} `json:"properties"`
		}
		if json.Unmarshal(puts[len(puts)-1].Body, &body) != nil {
			return "", false
		}
		script, err := base64.StdEncoding.DecodeString(body.Properties.OSProfile.CustomData)
		if err != nil {
			return "", false
		}
		m := bootVersion.FindSubmatch(script)
		if m == nil {
			return "", false
		}
		return "v" + string(m[1]), true
	}
}
