package snapshot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTakePendingList: Take lists the pending pods in input order, and no pending pods as a nil list,
// as before it made room for all pods at once.
func TestTakePendingList(t *testing.T) {
	pod := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{NodeName: node}}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	tests := []struct {
		name string
		pods []*corev1.Pod
		want []string // nil: a nil list
	}{
		{"no pods", nil, nil},
		{"all bound", []*corev1.Pod{pod("a", "n"), pod("b", "n")}, nil},
		{"pending among bound", []*corev1.Pod{pod("c", ""), pod("a", "n"), pod("b", "")}, []string{"c", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Take(Objects{Nodes: []*corev1.Node{node}, Pods: tt.pods}, Options{Now: time.Unix(0, 0)})
			require.NoError(t, err)
			if tt.want == nil {
				assert.Nil(t, s.Pending)
				return
			}
			var got []string
			for _, p := range s.Pending {
				got = append(got, p.Name)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
