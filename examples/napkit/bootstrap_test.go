package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const seedManifests = "../../manifest/testdata/seed-manifests.yaml"

func bootstrapArgs(extra ...string) []string {
	return append([]string{"bootstrap", "-f", seedManifests, "--nodepool", "general-purpose",
		"--instance-type", "Standard_D2s_v3", "--zone", "eastus-1"}, extra...)
}

func TestBootstrapOutput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(bootstrapArgs(), &stdout, &stderr), stderr.String())

	var out struct {
		Image        map[string]any    `json:"image"`
		KubeletFlags []string          `json:"kubeletFlags"`
		NodeLabels   map[string]string `json:"nodeLabels"`
		Taints       []map[string]any  `json:"taints"`
		Payload      any               `json:"payload"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
	assert.NotEmpty(t, out.Image)
	assert.Contains(t, out.KubeletFlags, "--kube-reserved=cpu=100m,memory=2048Mi", "seed memory policy, as the catalogue plans")
	assert.Contains(t, out.KubeletFlags, "--eviction-hard=memory.available<100Mi")
	assert.Contains(t, out.KubeletFlags, "--max-pods=250")
	assert.Equal(t, "cilium", out.NodeLabels["kubernetes.azure.com/ebpf-dataplane"])
	assert.NotNil(t, out.Payload)
	assert.NotContains(t, stdout.String(), "0123456789abcdef", "token is redacted by default")
	assert.Contains(t, stdout.String(), "<redacted>")

	var again bytes.Buffer
	require.Equal(t, 0, run(bootstrapArgs(), &again, &stderr))
	assert.Equal(t, stdout.String(), again.String(), "deterministic")
}

func TestBootstrapShowSecrets(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(bootstrapArgs("--show-secrets"), &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "abcdef.0123456789abcdef")
}
