package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

func TestIsExpired(t *testing.T) {
	poolExpire := func(d api.NillableDuration) *api.NodePool {
		return rulePool("p", func(p *api.NodePool) { p.Spec.Template.Spec.ExpireAfter = d })
	}
	hours := func(h int) api.NillableDuration { return api.NewDuration(time.Duration(h) * time.Hour) }
	tests := []struct {
		name       string
		pool       *api.NodePool
		claimAge   time.Duration // 0: no NodeClaim
		claimAfter api.NillableDuration
		nodeAge    time.Duration
		want       bool
	}{
		{name: "default 720h, younger", pool: rulePool("p"), claimAge: 719 * time.Hour, want: false},
		{name: "default 720h, exactly that old", pool: rulePool("p"), claimAge: 720 * time.Hour, want: true},
		{name: "pool 24h, older", pool: poolExpire(hours(24)), claimAge: 25 * time.Hour, want: true},
		{name: "pool 24h, younger", pool: poolExpire(hours(24)), claimAge: 23 * time.Hour, want: false},
		{name: "pool Never", pool: poolExpire(api.NeverDuration()), claimAge: 10000 * time.Hour, want: false},
		{name: "NodeClaim expireAfter overrides the pool", pool: poolExpire(hours(720)), claimAge: 2 * time.Hour,
			claimAfter: hours(1), want: true},
		{name: "NodeClaim Never overrides the pool", pool: poolExpire(hours(1)), claimAge: 2 * time.Hour,
			claimAfter: api.NeverDuration(), want: false},
		{name: "no NodeClaim: the node's age counts", pool: poolExpire(hours(24)), nodeAge: 30 * time.Hour, want: true},
		{name: "NodeClaim without creation time: the node's", pool: poolExpire(hours(24)), claimAge: -1, nodeAge: 30 * time.Hour, want: true},
		{name: "no creation time anywhere", pool: poolExpire(hours(24)), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ruleNode("n1", "p", "D2", "", "")
			n.Node.CreationTimestamp = metav1.Time{}
			if tt.nodeAge != 0 {
				n.Node.CreationTimestamp = metav1.NewTime(ruleNow.Add(-tt.nodeAge))
			}
			switch {
			case tt.claimAge > 0:
				n.NodeClaim = ruleClaim("nc", ruleNow.Add(-tt.claimAge))
			case tt.claimAge < 0:
				n.NodeClaim = ruleClaim("nc", time.Time{})
			}
			if n.NodeClaim != nil {
				n.NodeClaim.Spec.ExpireAfter = tt.claimAfter
			}
			assert.Equal(t, tt.want, isExpired(n, tt.pool, ruleNow))
		})
	}
}
