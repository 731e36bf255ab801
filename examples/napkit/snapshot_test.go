package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// --max-pods bounds workload expansion before any pod is made; the message names the workload, the
// field, the value and the bound.
func TestMaxPods(t *testing.T) {
	deployment := poolAndClass(t, "testdata/consolidate-mixed.yaml") + `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 200
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`
	path := writeTemp(t, "web.yaml", deployment)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"over the bound", []string{"plan", "-f", path, "--max-pods", "100"}, 1,
			"Deployment shop/web: spec.replicas: 200 pods would make 200 in all, more than the 100 allowed"},
		{"consolidate too", []string{"consolidate", "-f", path, "--max-pods", "100"}, 1, "more than the 100 allowed"},
		{"bound below 1", []string{"plan", "-f", path, "--max-pods", "0"}, 2, "--max-pods: must be at least 1, got 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, tc.code, run(tc.args, &stdout, &stderr), stderr.String())
			assert.Contains(t, stderr.String(), tc.want)
		})
	}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"plan", "-f", path, "--max-pods", "200", "-o", "table"}, &stdout, &stderr), stderr.String())
}
