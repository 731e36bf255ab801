package bootstrap

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
)

// TokenPlaceholder is what the node bootstrapping service writes where the bootstrap token belongs;
// the service never sees the token.
const TokenPlaceholder = "{{.TokenID}}.{{.TokenSecret}}"

// NodeBootstrapping is the service's answer: customData (base64) and the custom script extension's
// command, both still holding TokenPlaceholder.
type NodeBootstrapping struct {
	CustomData string
	CSE        string
}

// Hydrated is the service's answer with the token filled in. Both payloads print redacted.
type Hydrated struct {
	// CustomData is base64, as the VM's osProfile.customData wants it.
	CustomData Payload
	// CSE is the extension's commandToExecute.
	CSE Payload
}

// Hydrate replaces every TokenPlaceholder in the decoded customData and in the CSE command with the
// bootstrap token. Malformed base64 or a malformed token is an ErrInvalid *api.FieldError; neither the
// token nor the payload appears in it.
func Hydrate(resp NodeBootstrapping, token Secret) (*Hydrated, error) {
	if err := validateToken("bootstrap token", token); err != nil {
		return nil, err
	}
	decoded, err := base64.StdEncoding.DecodeString(resp.CustomData)
	if err != nil {
		return nil, invalid("customData", nil, "is not valid base64: %v", err)
	}
	secret, masked := []byte(token.Reveal()), []byte(Redacted)
	placeholder := []byte(TokenPlaceholder)
	customRaw := bytes.ReplaceAll(decoded, placeholder, secret)
	customRedacted := bytes.ReplaceAll(decoded, placeholder, masked)
	cse := []byte(resp.CSE)
	return &Hydrated{
		CustomData: newPayload(ContentTypeBase64, encode(customRaw), encode(customRedacted)),
		CSE: newPayload(ContentTypeShell, bytes.ReplaceAll(cse, placeholder, secret),
			bytes.ReplaceAll(cse, placeholder, masked)),
	}, nil
}

// CSE extension identity for bootstrappingclient VMs.
const (
	CSEExtensionName      = "cse-agent-karpenter"
	cseExtensionPublisher = "Microsoft.Azure.Extensions"
	cseExtensionType      = "CustomScript"
	cseExtensionVersion   = "2.0"
)

// ExtensionBody returns the ARM body of the custom script extension that runs the hydrated CSE. The
// command goes in protectedSettings, which ARM encrypts and never returns.
func (h *Hydrated) ExtensionBody(location string) (Payload, error) {
	build := func(command []byte) ([]byte, error) {
		return json.Marshal(map[string]any{
			"location": location,
			"properties": map[string]any{
				"publisher":               cseExtensionPublisher,
				"type":                    cseExtensionType,
				"typeHandlerVersion":      cseExtensionVersion,
				"autoUpgradeMinorVersion": true,
				"protectedSettings":       map[string]string{"commandToExecute": string(command)},
			},
		})
	}
	raw, err := build(h.CSE.raw)
	if err != nil {
		return Payload{}, err
	}
	redacted, err := build(h.CSE.redacted)
	if err != nil {
		return Payload{}, err
	}
	return newPayload(ContentTypeJSON, raw, redacted), nil
}
