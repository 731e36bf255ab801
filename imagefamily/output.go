package imagefamily

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/kubeletconfig"
	corev1 "k8s.io/api/core/v1"
)

// Output describes the node Generate planned. Payload and CustomData are bootstrap.Payload values:
// they print, format and marshal redacted (the bootstrap token shows as <redacted>), so an Output can
// be logged or encoded as it is. Only Payload.Reveal, CustomData.Reveal and JSON(true) give the
// secret back.
type Output struct {
	Mode  Mode  `json:"mode"`
	Image Image `json:"image"`
	// KubeletFlags are the kubelet's flags, sorted: kubeletconfig's, plus --register-with-taints in
	// the scriptless mode (in the other modes AKS builds the kubelet's command line itself).
	KubeletFlags []string `json:"kubeletFlags"`
	// NodeLabels are every label the node will carry.
	NodeLabels map[string]string `json:"nodeLabels"`
	// KubeletNodeLabels are the NodeLabels a kubelet may set; the others are applied by the
	// controller after registration.
	KubeletNodeLabels map[string]string `json:"kubeletNodeLabels"`
	// Taints are the node's taints followed by its startup taints, karpenter.sh/unregistered included.
	Taints []corev1.Taint `json:"taints"`
	// Payload is the decoded bootstrap data: the customData script (aksscriptless), the node
	// bootstrapping request body (bootstrappingclient) or the AKS Machine body (Machine API modes).
	Payload bootstrap.Payload `json:"payload"`
	// CustomData is the base64 customData of the scriptless mode; empty otherwise.
	CustomData bootstrap.Payload `json:"customData,omitzero"`
	// MachineName is the AKS Machine name (Machine API modes).
	MachineName string `json:"machineName,omitempty"`

	// Kubelet is the typed kubelet configuration the flags were rendered from.
	Kubelet *kubeletconfig.Config `json:"-"`
	// Machine is the typed Machine body (Machine API modes), for batching with bootstrap.GroupBatches.
	Machine *bootstrap.Machine `json:"-"`
	// Provision is the typed request body (bootstrappingclient).
	Provision *bootstrap.ProvisionValues `json:"-"`
}

// Redacted returns a copy whose payloads hold the redacted bytes only, so even Reveal on it yields no
// secret. Maps and slices are copied.
func (o *Output) Redacted() *Output {
	c := *o
	c.KubeletFlags = slices.Clone(o.KubeletFlags)
	c.NodeLabels = maps.Clone(o.NodeLabels)
	c.KubeletNodeLabels = maps.Clone(o.KubeletNodeLabels)
	c.Taints = slices.Clone(o.Taints)
	c.Payload = o.Payload.Redact()
	c.CustomData = o.CustomData.Redact()
	return &c
}

// JSON renders the output as the napkit bootstrap command prints it. With reveal false (the normal
// case) secrets show as <redacted>; with reveal true the payloads are written as generated, secrets
// included, for a user who explicitly asked to see them.
func (o *Output) JSON(reveal bool) ([]byte, error) {
	if !reveal {
		return indentJSON(o)
	}
	type plain Output // drops Output's methods but keeps the field tags
	view := struct {
		plain
		Payload    json.RawMessage `json:"payload"`
		CustomData string          `json:"customData,omitempty"`
	}{plain: plain(*o), CustomData: string(o.CustomData.Reveal())}
	raw, err := revealedPayload(o.Payload)
	if err != nil {
		return nil, err
	}
	view.Payload = raw
	return indentJSON(view)
}

// indentJSON writes v indented, leaving <, > and & as they are: flags such as
// memory.available<100Mi must read as the kubelet sees them.
func indentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// revealedPayload is the payload as JSON: itself when it is a JSON body, a string otherwise.
func revealedPayload(p bootstrap.Payload) (json.RawMessage, error) {
	b := p.Reveal()
	if p.ContentType() == bootstrap.ContentTypeJSON && json.Valid(b) {
		return b, nil
	}
	return json.Marshal(string(b))
}
