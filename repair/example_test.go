package repair_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/repair"
)

func ExampleDecide() {
	now := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
	pool := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general"}}
	var nodes []repair.Node
	for i := range 9 {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ok-%d", i)}}
		nodes = append(nodes, repair.Node{Node: n, NodePool: pool})
	}
	bad := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}
	bad.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
		LastTransitionTime: metav1.NewTime(now.Add(-12 * time.Minute))}}
	nodes = append(nodes, repair.Node{Node: bad, NodePool: pool})
	out, _ := repair.Decide(repair.Input{Nodes: nodes, Now: now})
	for _, r := range out.Repairs {
		fmt.Println(r.Node, r.Why)
	}
	// Output: bad Ready=Unknown for 12m0s, longer than the 10m0s toleration
}
