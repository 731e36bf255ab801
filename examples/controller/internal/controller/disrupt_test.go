package controller

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cmd  consolidation.Command
		want string
	}{
		{"delete", consolidation.Command{Kind: consolidation.CommandDelete, Reason: consolidation.ReasonEmpty,
			Nodes: []string{"n1"}, SavingsPerHour: 0.096},
			"delete Empty of n1, saving $0.0960/h"},
		{"replace several nodes by one", consolidation.Command{Kind: consolidation.CommandReplace,
			Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n1", "n2"}, SavingsPerHour: 1.23456,
			Replacement: &provisioner.NodeClaim{}, Replacements: []provisioner.NodeClaim{{}}},
			"replace Underutilized of n1,n2 by 1 NodeClaim, saving $1.2346/h"},
		{"replace by several", consolidation.Command{Kind: consolidation.CommandReplace,
			Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n1", "n2", "n3"}, SavingsPerHour: 0.5,
			Replacement: &provisioner.NodeClaim{}, Replacements: []provisioner.NodeClaim{{}, {}}},
			"replace Underutilized of n1,n2,n3 by 2 NodeClaims, saving $0.5000/h"},
		{"with detail, the single replacement alone", consolidation.Command{Kind: consolidation.CommandReplace, Reason: consolidation.ReasonDrifted,
			Detail: "ImageDrifted", Nodes: []string{"n3"}, Replacement: &provisioner.NodeClaim{}},
			"replace Drifted (ImageDrifted) of n3 by 1 NodeClaim, saving $0.0000/h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, describe(tt.cmd))
		})
	}
}

// TestConfirms: validation compares what a command does (kind, reason, nodes, how many
// replacements, which instance types they may launch), not the prices or the simulation details
// it was computed with.
func TestConfirms(t *testing.T) {
	t.Parallel()
	repl := provisioner.NodeClaim{Name: "default-1", NodePool: "default", InstanceType: "Standard_D2s_v3",
		InstanceTypeOptions: []string{"Standard_D2s_v3", "Standard_D2as_v5"}, PricePerHour: 0.1}
	base := consolidation.Command{Kind: consolidation.CommandReplace, Reason: consolidation.ReasonUnderutilized,
		Nodes: []string{"n1", "n2"}, Replacement: &repl, Replacements: []provisioner.NodeClaim{repl},
		SavingsPerHour: 0.5, DisruptionCost: 3, Moves: []consolidation.Move{{Pod: "default/a", To: "default-1"}}}
	withOptions := func(options ...string) func(c *consolidation.Command) {
		return func(c *consolidation.Command) {
			r := repl
			r.InstanceType, r.InstanceTypeOptions = options[0], options
			c.Replacement, c.Replacements = &r, []provisioner.NodeClaim{r}
		}
	}
	tests := []struct {
		name   string
		change func(c *consolidation.Command)
		want   bool
	}{
		{"identical", func(*consolidation.Command) {}, true},
		{"other prices", func(c *consolidation.Command) { c.SavingsPerHour, c.DisruptionCost = 0.4, 7 }, true},
		{"other moves", func(c *consolidation.Command) { c.Moves = nil }, true},
		{"fewer launch options", withOptions("Standard_D2as_v5"), true},
		{"a launch option the decision did not weigh", withOptions("Standard_D2s_v3", "Standard_D4s_v3"), false},
		{"other kind", func(c *consolidation.Command) { c.Kind = consolidation.CommandDelete }, false},
		{"other reason", func(c *consolidation.Command) { c.Reason = consolidation.ReasonDrifted }, false},
		{"fewer nodes", func(c *consolidation.Command) { c.Nodes = []string{"n1"} }, false},
		{"other nodes", func(c *consolidation.Command) { c.Nodes = []string{"n1", "n3"} }, false},
		{"nodes in another order", func(c *consolidation.Command) { c.Nodes = []string{"n2", "n1"} }, false},
		{"no replacement (a delete)", func(c *consolidation.Command) { c.Replacement, c.Replacements = nil, nil }, false},
		{"two replacements", func(c *consolidation.Command) {
			c.Replacements = []provisioner.NodeClaim{repl, repl}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			again := base
			again.Nodes = append([]string(nil), base.Nodes...)
			tt.change(&again)
			assert.Equal(t, tt.want, confirms(again, base))
		})
	}
}

// TestConfirmedCommands: of a pass's commands, those the validation's decision confirms, in the
// pass's order; a command validation dropped or changed is left out.
func TestConfirmedCommands(t *testing.T) {
	t.Parallel()
	del := func(nodes ...string) consolidation.Command {
		return consolidation.Command{Kind: consolidation.CommandDelete, Reason: consolidation.ReasonEmpty, Nodes: nodes}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name        string
		plan, again []consolidation.Command
		want        [][]string
	}{
		{"all confirmed", []consolidation.Command{del("a"), del("b")}, []consolidation.Command{del("b"), del("a")}, [][]string{{"a"}, {"b"}}},
		{"one dropped", []consolidation.Command{del("a"), del("b")}, []consolidation.Command{del("b")}, [][]string{{"b"}}},
		{"nodes changed", []consolidation.Command{del("a", "b")}, []consolidation.Command{del("a", "c")}, nil},
		{"nothing proposed again", []consolidation.Command{del("a")}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := confirmedCommands(&consolidation.Plan{Commands: tt.plan}, &consolidation.Plan{Commands: tt.again}, log)
			var nodes [][]string
			for _, c := range got {
				nodes = append(nodes, c.Nodes)
			}
			assert.Equal(t, tt.want, nodes)
		})
	}
}

func TestSleep(t *testing.T) {
	t.Parallel()
	assert.True(t, sleep(context.Background(), time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	assert.False(t, sleep(ctx, time.Minute))
	assert.Less(t, time.Since(start), time.Second)
}

// TestConsolidatable: consolidateAfter counts from the latest of initialization, the claim's
// recorded last pod event and the one remembered in memory.
func TestConsolidatable(t *testing.T) {
	t.Parallel()
	pool := func(after api.NillableDuration) *api.NodePool {
		p := &api.NodePool{}
		p.Spec.Disruption.ConsolidateAfter = after
		return p
	}
	initAt := testNow.Add(-10 * time.Minute)
	claim := func(lastPodEvent time.Time) *api.NodeClaim {
		nc := testClaim("c", "default", "", launched(), registered(),
			withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", initAt))
		nc.Status.LastPodEventTime = metav1.NewTime(lastPodEvent)
		return nc
	}
	tests := []struct {
		name      string
		after     api.NillableDuration
		recorded  time.Time // status.lastPodEventTime
		lastEvent time.Time // in memory
		want      metav1.ConditionStatus
	}{
		{name: "Never", after: api.NeverDuration(), want: metav1.ConditionFalse},
		{name: "zero: at once", after: api.NewDuration(0), want: metav1.ConditionTrue},
		{name: "passed since initialization", after: api.NewDuration(5 * time.Minute), want: metav1.ConditionTrue},
		{name: "not yet passed since initialization", after: api.NewDuration(15 * time.Minute), want: metav1.ConditionFalse},
		{name: "a recorded pod event restarts the wait", after: api.NewDuration(5 * time.Minute),
			recorded: testNow.Add(-time.Minute), want: metav1.ConditionFalse},
		{name: "an in-memory pod event restarts the wait", after: api.NewDuration(5 * time.Minute),
			lastEvent: testNow.Add(-time.Minute), want: metav1.ConditionFalse},
		{name: "events older than initialization do not count", after: api.NewDuration(5 * time.Minute),
			recorded: initAt.Add(-time.Hour), lastEvent: initAt.Add(-time.Hour), want: metav1.ConditionTrue},
		{name: "exactly consolidateAfter ago", after: api.NewDuration(5 * time.Minute),
			lastEvent: testNow.Add(-5 * time.Minute), want: metav1.ConditionTrue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, msg := consolidatable(pool(tt.after), claim(tt.recorded), tt.lastEvent, testNow)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want == metav1.ConditionTrue, msg == "", "a message says why not: %q", msg)
		})
	}
}

// TestUpdateConsolidatableStopsWithItsContext: with the context ended, the pass writes no
// Consolidatable condition, where it would otherwise write one per initialized claim.
func TestUpdateConsolidatableStopsWithItsContext(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		cancelled  bool
		wantWrites bool
	}{{"running", false, true}, {"stopping", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addClass(t, "default")
			e.addPool(t, poolOf("default", "default"))
			for _, name := range []string{"a", "b", "c"} {
				e.addClaim(t, testClaim(name, "default", "azure:///"+name, launched(), registered(), initialized()))
			}
			e.dyn.ClearActions()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelled {
				cancel()
			}
			e.c.updateConsolidatable(ctx, e.c.takeSnapshot())
			writes := 0
			for _, a := range e.dyn.Actions() {
				if a.GetVerb() != "get" && a.GetVerb() != "list" {
					writes++
				}
			}
			assert.Equal(t, tc.wantWrites, writes > 0, "writes: %d", writes)
		})
	}
}
