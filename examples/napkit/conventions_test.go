package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestHelpGoesToStdout: help that was asked for is output (exit 0), for napkit and every command.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"plan", "-h"}, {"consolidate", "--help"}, {"bootstrap", "-h"}, {"instance-types", "-help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run(args, &stdout, &stderr))
			assert.Contains(t, stdout.String(), "usage: napkit")
			assert.Empty(t, stderr.String())
		})
	}
}

// TestYAMLOutputMatchesJSON: -o yaml prints the same document as -o json, with the same field names.
func TestYAMLOutputMatchesJSON(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "-f", "testdata/seed-walkthrough.yaml"},
		{"consolidate", "-f", "testdata/consolidate-mixed.yaml", "--now", goldenNow},
		{"bootstrap", "-f", seedManifests, "--nodepool", "general-purpose", "--instance-type", "Standard_D2s_v3", "--zone", "eastus-1"},
		{"instance-types", "--region", "westus2"},
	} {
		t.Run(args[0], func(t *testing.T) {
			docs := map[string]map[string]any{}
			for _, format := range []string{"json", "yaml"} {
				var stdout, stderr bytes.Buffer
				require.Equal(t, 0, run(append(args, "-o", format), &stdout, &stderr), stderr.String())
				var doc map[string]any
				require.NoError(t, yaml.Unmarshal(stdout.Bytes(), &doc), format)
				dropTimings(doc)
				docs[format] = doc
			}
			assert.Equal(t, docs["json"], docs["yaml"])
		})
	}
}

// dropTimings removes the measured durations, which differ between two runs.
func dropTimings(doc map[string]any) {
	if stats, ok := doc["stats"].(map[string]any); ok {
		delete(stats, "solveMillis")
		delete(stats, "decideMillis")
	}
}

// TestStdinAndNotes: -f - reads standard input, and the reader's notes go to stderr, not into the
// answer.
func TestStdinAndNotes(t *testing.T) {
	data, err := os.ReadFile("testdata/seed-walkthrough.yaml")
	require.NoError(t, err)
	input := string(data) + "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, runIO([]string{"plan", "-f", "-"}, strings.NewReader(input), &stdout, &stderr), stderr.String())
	var plan map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &plan))
	assert.NotEmpty(t, plan["nodeClaims"])
	assert.Contains(t, stderr.String(), "note: Widget/w: skipped <stdin> document")
}
