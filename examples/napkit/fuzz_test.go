package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/napkit/napkit/manifest"
)

// FuzzCLIArgs runs random command lines against a random manifest. Whatever they are, napkit must not
// panic, must exit 0, 1 or 2, must print a refusal once on stderr and nothing on stdout, and must
// accept only what a second, strict pass accepts too: when a command that reads -f succeeds, the
// manifest reads without error on its own, and a JSON answer is well-formed JSON.
func FuzzCLIArgs(f *testing.F) {
	walkthrough, err := os.ReadFile("testdata/seed-walkthrough.yaml")
	if err != nil {
		f.Fatal(err)
	}
	seeds := []struct{ args, manifest string }{
		{"plan -f $F", string(walkthrough)},
		{"plan -f $F -o table --seed 3", string(walkthrough)},
		{"plan -f $F -o yaml", strings.Replace(string(walkthrough), "replicas: 5", "replicas: 2", 1)},
		{"plan -f - -f -", ""},
		{"consolidate -f $F --now 2026-03-02T12:00:00Z", string(walkthrough)},
		{"consolidate -f $F --max-commands -1", ""},
		{"bootstrap -f $F --nodepool general-purpose --instance-type Standard_D2s_v3 --zone eastus-1", string(walkthrough)},
		{"bootstrap -f $F --nodepool general-purpose --instance-type Standard_D2s_v3 --capacity-type reserved", string(walkthrough)},
		{"instance-types --region westus2 -o json", ""},
		{"instance-types --nodeclass $F", "apiVersion: karpenter.azure.com/v1alpha2\nkind: AKSNodeClass\nmetadata: {name: a}\n"},
		{"plan -f $F", "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\n"},
		{"--help", ""},
		{"frobnicate -x", ""},
	}
	for _, s := range seeds {
		f.Add(s.args, s.manifest)
	}
	dir := f.TempDir()
	file := filepath.Join(dir, "in.yaml")
	f.Fuzz(func(t *testing.T, line, manifestText string) {
		if len(manifestText) > 1<<16 || strings.Contains(line, "-f /") || strings.Contains(line, "--catalog") ||
			strings.Contains(line, "--prices") || strings.Contains(line, "--ca-file") {
			return // only the fuzzed file is read: no other paths of the machine
		}
		if err := os.WriteFile(file, []byte(manifestText), 0o600); err != nil {
			t.Fatal(err)
		}
		args := strings.Fields(strings.ReplaceAll(line, "$F", file))
		var stdout, stderr bytes.Buffer
		code := runIO(args, strings.NewReader(manifestText), &stdout, &stderr)
		checkExit(t, args, code, stdout.String(), stderr.String())
		if code == 0 {
			checkAccepted(t, args, file, stdout.Bytes())
		}
	})
}

func checkExit(t *testing.T, args []string, code int, stdout, stderr string) {
	t.Helper()
	switch code {
	case 0:
		return
	case 1, 2:
	default:
		t.Fatalf("%q: exit %d", args, code)
	}
	if stdout != "" {
		t.Fatalf("%q: exit %d with output on stdout:\n%s", args, code, stdout)
	}
	errLines := strings.Count("\n"+stderr, "\nnapkit ") + strings.Count("\n"+stderr, "\nnapkit: ")
	if len(args) > 0 && errLines != 1 {
		t.Fatalf("%q: want the error printed once, got %d times:\n%s", args, errLines, stderr)
	}
}

// checkAccepted is the second pass: every -f the command read decodes on its own, and JSON output
// is valid JSON.
func checkAccepted(t *testing.T, args []string, file string, stdout []byte) {
	t.Helper()
	for i, a := range args {
		if (a == "-f" || a == "--nodeclass") && i+1 < len(args) && args[i+1] == file {
			if _, err := manifest.DecodeFiles(file); err != nil {
				t.Fatalf("%q accepted a manifest a second read refuses: %v", args, err)
			}
		}
	}
	help := bytes.HasPrefix(stdout, []byte("usage: napkit"))
	if len(args) > 0 && args[0] != "instance-types" && !help && !containsAny(args, "-o", "--o") && len(stdout) > 0 && !json.Valid(stdout) {
		t.Fatalf("%q: default output is not valid JSON:\n%s", args, stdout)
	}
}

func containsAny(args []string, words ...string) bool {
	for _, a := range args {
		for _, w := range words {
			if a == w || strings.HasPrefix(a, w+"=") {
				return true
			}
		}
	}
	return false
}
