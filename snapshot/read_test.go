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

// TestReadKeepsManifestOrder: pods come out in the order of the objects they come from, a
// workload's pods where the workload is, whether the objects are in the Set's sorted order or in
// another one.
func TestReadKeepsManifestOrder(t *testing.T) {
	const input = `apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [{name: c}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replicas: 2
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: c}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec: {containers: [{name: c}], restartPolicy: Never}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c}]}
`
	set, err := manifest.Decode(strings.NewReader(input), "in.yaml")
	require.NoError(t, err)
	byName := map[string]manifest.Object{}
	for _, obj := range set.Objects {
		byName[obj.Name] = obj
	}
	for _, tc := range []struct {
		name  string
		order []string
	}{
		{"sorted", nil},
		{"pods around workloads", []string{"a", "d", "b", "j"}},
		{"workloads last", []string{"b", "a", "j", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.order != nil {
				set.Objects = set.Objects[:0]
				for _, name := range tc.order {
					set.Objects = append(set.Objects, byName[name])
				}
			}
			var want []string
			for _, obj := range set.Objects {
				switch obj.Name {
				case "d":
					want = append(want, "d-0", "d-1")
				case "j":
					want = append(want, "j-0")
				default:
					want = append(want, obj.Name)
				}
			}
			objs, err := snapshot.Read(set, nil, snapshot.ReadOptions{})
			require.NoError(t, err)
			var got []string
			for _, pod := range objs.Pods {
				got = append(got, pod.Name)
			}
			assert.Equal(t, want, got)
		})
	}
}
