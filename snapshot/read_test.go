package snapshot_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/snapshot"
)

// TestReadOwned: a set handed over gives the same objects as one read with copies, and the pods
// are the set's own values (no copy), while without Owned the set keeps its own.
func TestReadOwned(t *testing.T) {
	const input = `apiVersion: v1
kind: Pod
metadata:
  name: a
spec:
  containers:
  - name: c
---
apiVersion: v1
kind: Pod
metadata:
  name: b
  namespace: shop
spec:
  containers:
  - name: c
---
apiVersion: v1
kind: Node
metadata:
  name: node-1
`
	for _, tc := range []struct {
		name  string
		owned bool
	}{{"copies", false}, {"owned", true}} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := manifest.Decode(strings.NewReader(input), "in.yaml")
			require.NoError(t, err)
			copied, err := snapshot.Read(set, nil, snapshot.ReadOptions{})
			require.NoError(t, err)
			set, err = manifest.Decode(strings.NewReader(input), "in.yaml")
			require.NoError(t, err)
			got, err := snapshot.Read(set, nil, snapshot.ReadOptions{Owned: tc.owned})
			require.NoError(t, err)
			assert.Equal(t, copied, got)
			require.Len(t, got.Pods, 2)
			assert.Equal(t, "default", got.Pods[0].Namespace)
			for i, pod := range got.Pods {
				own := set.Objects[i+1].Typed().(*corev1.Pod) // the Node sorts first
				assert.Equal(t, tc.owned, pod == own, "pod %s is the set's own value", pod.Name)
			}
		})
	}
}
