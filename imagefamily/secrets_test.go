package imagefamily_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// secretForms returns the token and every encoding in which it could leak: itself, its secret half,
// hex in both cases, and base64 at each of the three byte alignments (the middle of the encoding,
// which does not depend on the bytes around it).
func secretForms(token string) []string {
	forms := []string{token, token[strings.IndexByte(token, '.')+1:], hex.EncodeToString([]byte(token)),
		strings.ToUpper(hex.EncodeToString([]byte(token)))}
	for _, prefix := range []string{"", "x", "xy"} {
		enc := base64.StdEncoding.EncodeToString([]byte(prefix + token))
		forms = append(forms, enc[4:len(enc)-4])
	}
	return forms
}

func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, form := range secretForms(testToken) {
		if strings.Contains(text, form) {
			t.Errorf("%s reveals the token (as %q):\n%.300s", what, form, text)
			return
		}
	}
}

// carriers returns one value of every type that holds the bootstrap token or data containing it.
func carriers(t *testing.T) map[string]any {
	t.Helper()
	in := baseInput(shapeD2sV3())
	out, err := imagefamily.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	scriptless, err := bootstrap.RenderScriptless(bootstrap.ScriptlessInput{
		Cluster: in.Cluster, Arch: "amd64", KubeletFlags: []string{"--max-pods=30"}, Labels: map[string]string{"a": "b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	hydrated, err := bootstrap.Hydrate(bootstrap.NodeBootstrapping{
		CustomData: base64.StdEncoding.EncodeToString([]byte("TOKEN=" + bootstrap.TokenPlaceholder)),
		CSE:        "bootstrap --token " + bootstrap.TokenPlaceholder,
	}, in.Cluster.BootstrapToken)
	if err != nil {
		t.Fatal(err)
	}
	extension, err := hydrated.ExtensionBody("eastus")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"Secret": in.Cluster.BootstrapToken, "Cluster": in.Cluster, "Input": in,
		"ScriptlessInput": bootstrap.ScriptlessInput{Cluster: in.Cluster},
		"ProvisionInput":  bootstrap.ProvisionInput{Cluster: in.Cluster},
		"Scriptless":      *scriptless, "Payload": out.Payload, "CustomData": out.CustomData,
		"Output": *out, "Redacted": *out.Redacted(), "Hydrated": *hydrated, "Extension": extension,
	}
}

func TestSecretsNeverFormatted(t *testing.T) {
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T"}
	for name, v := range carriers(t) {
		for _, verb := range verbs {
			assertNoSecret(t, name+" "+verb, fmt.Sprintf(verb, v))
			assertNoSecret(t, "*"+name+" "+verb, fmt.Sprintf(verb, pointerTo(v)))
		}
		if s, ok := v.(fmt.Stringer); ok {
			assertNoSecret(t, name+".String()", s.String())
		}
		if s, ok := v.(fmt.GoStringer); ok {
			assertNoSecret(t, name+".GoString()", s.GoString())
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		assertNoSecret(t, name+" as JSON", string(b))
	}
}

// pointerTo returns a *T holding v's concrete value, so pointer receivers and &{...} printing are
// exercised too.
func pointerTo(v any) any {
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return p.Interface()
}

func TestOutputJSON(t *testing.T) {
	out, err := imagefamily.Generate(baseInput(shapeD2sV3()))
	if err != nil {
		t.Fatal(err)
	}
	redacted, err := out.JSON(false)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "JSON(false)", string(redacted))
	if !strings.Contains(string(redacted), "TLS_BOOTSTRAP_TOKEN='<redacted>'") {
		t.Error("JSON(false) does not show where the token was")
	}
	revealed, err := out.JSON(true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(revealed), testToken) {
		t.Error("JSON(true) does not reveal the token")
	}
	var view map[string]any
	if err := json.Unmarshal(revealed, &view); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"image", "kubeletFlags", "nodeLabels", "taints", "payload", "customData"} {
		if _, ok := view[key]; !ok {
			t.Errorf("JSON lacks %q", key)
		}
	}
	// The scanner itself must find the token where it is: in the revealed customData (base64).
	found := false
	for _, form := range secretForms(testToken) {
		found = found || strings.Contains(string(out.CustomData.Reveal()), form)
	}
	if !found {
		t.Error("secretForms cannot find the token inside base64 customData")
	}
	// The redacted copy keeps no secret even for Reveal.
	assertNoSecret(t, "Redacted().Payload.Reveal()", string(out.Redacted().Payload.Reveal()))
	assertNoSecret(t, "Redacted().CustomData.Reveal()", string(out.Redacted().CustomData.Reveal()))
}

func TestMalformedTokenNotInError(t *testing.T) {
	in := baseInput(shapeD2sV3())
	bad := "abcdef.0123456789ABCDEF"
	in.Cluster.BootstrapToken = bootstrap.NewSecret(bad)
	_, err := imagefamily.Generate(in)
	if err == nil || strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "0123456789ABCDEF") {
		t.Errorf("error = %v", err)
	}
}
