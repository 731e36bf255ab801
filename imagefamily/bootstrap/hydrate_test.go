package bootstrap

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const token = "abc123.0123456789abcdef"

// Reference case 20: the placeholder is replaced inside base64 customData and in the plain CSE.
func TestHydrate(t *testing.T) {
	resp := NodeBootstrapping{
		CustomData: base64.StdEncoding.EncodeToString([]byte("A=" + TokenPlaceholder + "\nB=" + TokenPlaceholder)),
		CSE:        "run --token=" + TokenPlaceholder,
	}
	h, err := Hydrate(resp, NewSecret(token))
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := base64.StdEncoding.DecodeString(string(h.CustomData.Reveal()))
	if err != nil || string(decoded) != "A="+token+"\nB="+token {
		t.Errorf("customData = %q, %v", decoded, err)
	}
	if string(h.CSE.Reveal()) != "run --token="+token {
		t.Errorf("CSE = %q", h.CSE.Reveal())
	}
	if strings.Contains(h.CSE.String(), token) || h.CSE.String() != "run --token=<redacted>" {
		t.Errorf("CSE prints as %q", h.CSE.String())
	}
	redacted, _ := base64.StdEncoding.DecodeString(string(h.CustomData.RedactedBytes()))
	if string(redacted) != "A=<redacted>\nB=<redacted>" {
		t.Errorf("redacted customData = %q", redacted)
	}
	ext, err := h.ExtensionBody("eastus")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Properties struct {
			Publisher, Type, TypeHandlerVersion string
			ProtectedSettings                   map[string]string
		}
	}
	if err := json.Unmarshal(ext.Reveal(), &body); err != nil {
		t.Fatal(err)
	}
	if body.Properties.Type != "CustomScript" || body.Properties.TypeHandlerVersion != "2.0" ||
		body.Properties.ProtectedSettings["commandToExecute"] != "run --token="+token {
		t.Errorf("extension = %+v", body)
	}
	if strings.Contains(ext.String(), token) {
		t.Error("extension body prints the token")
	}
}

func TestHydrateErrors(t *testing.T) {
	if _, err := Hydrate(NodeBootstrapping{CustomData: "!!not base64"}, NewSecret(token)); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid base64 error = %v", err)
	}
	_, err := Hydrate(NodeBootstrapping{}, NewSecret("short.secret"))
	if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "short.secret") {
		t.Errorf("bad token error = %v", err)
	}
}

func TestSecretFormatting(t *testing.T) {
	s := NewSecret(token)
	if s.Reveal() != token || s.IsZero() {
		t.Fatal("Reveal")
	}
	for _, got := range []string{s.String(), s.GoString()} {
		if strings.Contains(got, token) || !strings.Contains(got, Redacted) {
			t.Errorf("secret prints as %q", got)
		}
	}
	if (Secret{}).String() != "" {
		t.Error("empty secret should print empty")
	}
	b, _ := json.Marshal(struct{ T Secret }{s})
	var back struct{ T string }
	if err := json.Unmarshal(b, &back); err != nil || back.T != Redacted {
		t.Errorf("JSON = %s", b)
	}
}
