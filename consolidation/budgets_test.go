package consolidation

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

func TestBudgetNodes(t *testing.T) {
	tests := []struct {
		value   string
		nodes   int
		want    int
		wantErr bool
	}{
		{value: "5%", nodes: 10, want: 1},
		{value: "10%", nodes: 10, want: 1},
		{value: "30%", nodes: 10, want: 3},
		{value: "10%", nodes: 11, want: 2},
		{value: "10%", nodes: 0, want: 0},
		{value: "100%", nodes: 7, want: 7},
		{value: "0%", nodes: 7, want: 0},
		{value: "", nodes: 25, want: 3},
		{value: "0", nodes: 10, want: 0},
		{value: "3", nodes: 0, want: 3},
		{value: "99999999999999999999", nodes: 1, want: unbounded},
		{value: "101%", wantErr: true},
		{value: "-1", wantErr: true},
		{value: "ten", wantErr: true},
		{value: "5 %", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s of %d", tt.value, tt.nodes), func(t *testing.T) {
			got, err := budgetNodes(tt.value, tt.nodes)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrBudget)
				assert.Contains(t, err.Error(), tt.value)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestBudgetActive(t *testing.T) {
	at := func(day, hour, minute int) time.Time { return time.Date(2026, 6, day, hour, minute, 0, 0, time.UTC) }
	require.Equal(t, time.Wednesday, at(10, 12, 0).Weekday())
	workdays := ruleBudget("0", "0 9 * * mon-fri", 8*time.Hour)
	tests := []struct {
		name    string
		budget  api.Budget
		now     time.Time
		want    bool
		wantErr string
	}{
		{name: "no schedule is always active", budget: ruleBudget("0", "", 0), now: at(10, 3, 0), want: true},
		{name: "inside a workday window", budget: workdays, now: at(10, 12, 0), want: true},
		{name: "at the window's first minute", budget: workdays, now: at(10, 9, 0), want: true},
		{name: "in the window's last minute", budget: workdays, now: at(10, 16, 59), want: true},
		{name: "when the window closes", budget: workdays, now: at(10, 17, 0), want: false},
		{name: "before the window", budget: workdays, now: at(10, 8, 59), want: false},
		{name: "on a Saturday", budget: workdays, now: at(13, 12, 0), want: false},
		{name: "non-UTC clock is read in UTC", budget: workdays,
			now: at(10, 9, 30).In(time.FixedZone("UTC-10", -10*3600)), want: true},
		{name: "@daily, first hour", budget: ruleBudget("0", "@daily", time.Hour), now: at(10, 0, 30), want: true},
		{name: "@daily, later", budget: ruleBudget("0", "@daily", time.Hour), now: at(10, 1, 30), want: false},
		{name: "a schedule that never fires", budget: ruleBudget("0", "0 0 30 2 *", time.Hour), now: at(10, 0, 0), want: false},
		{name: "invalid cron", budget: ruleBudget("0", "every day", time.Hour), now: at(10, 0, 0),
			wantErr: `schedule: invalid cron schedule: expected exactly 5 fields, found 2: [every day], got "every day"`},
		{name: "time zone", budget: ruleBudget("0", "TZ=Europe/Paris 0 9 * * *", time.Hour), now: at(10, 0, 0),
			wantErr: "time zones are not supported"},
		{name: "schedule without duration", budget: ruleBudget("0", "@daily", 0), now: at(10, 0, 0),
			wantErr: "duration: must be set with schedule"},
		{name: "duration without schedule", budget: ruleBudget("0", "", time.Hour), now: at(10, 0, 0),
			wantErr: "schedule: must be set with duration"},
		{name: "negative duration", budget: ruleBudget("0", "@daily", -time.Hour), now: at(10, 0, 0),
			wantErr: "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := budgetActive(&tt.budget, tt.now)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrBudget)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// poolNodes returns n initialized Ready nodes of pool "p".
func poolNodes(n int) []*Node {
	out := make([]*Node, n)
	for i := range out {
		out[i] = ruleNode(fmt.Sprintf("n%02d", i), "p", "D2", "eastus-1", api.CapacityTypeOnDemand)
	}
	return out
}

func TestNewBudgets(t *testing.T) {
	deleting := func(n *Node) { n.Deleting = true }
	departing := func(n *Node) { n.Deleting, n.Departing = true, true }
	notReady := func(n *Node) { n.Node.Status.Conditions[0].Status = corev1.ConditionFalse }
	noConditions := func(n *Node) { n.Node.Status.Conditions = nil }
	uninitialized := func(n *Node) { n.Initialized = false }
	drifted := []api.DisruptionReason{api.DisruptionReasonDrifted}
	type want struct{ empty, under, drift int }
	tests := []struct {
		name     string
		budgets  []api.Budget
		nodes    int
		changes  map[int]func(*Node)
		want     want
		problems []string
	}{
		{name: "default budget is 10% rounded up", budgets: nil, nodes: 10, want: want{1, 1, 1}},
		{name: "explicitly empty list limits nothing", budgets: []api.Budget{}, nodes: 10,
			want: want{unbounded, unbounded, unbounded}},
		{name: "zero", budgets: []api.Budget{ruleBudget("0", "", 0)}, nodes: 10, want: want{0, 0, 0}},
		{name: "30% of 10", budgets: []api.Budget{ruleBudget("30%", "", 0)}, nodes: 10, want: want{3, 3, 3}},
		{name: "percent of no nodes", budgets: []api.Budget{ruleBudget("50%", "", 0)}, nodes: 0, want: want{0, 0, 0}},
		{name: "reasons scope a budget", nodes: 10,
			budgets: []api.Budget{ruleBudget("0", "", 0, drifted...), ruleBudget("5", "", 0)}, want: want{5, 5, 0}},
		{name: "the smallest active budget wins", nodes: 10,
			budgets: []api.Budget{ruleBudget("4", "", 0), ruleBudget("50%", "", 0)}, want: want{4, 4, 4}},
		{name: "inactive schedule does not constrain", nodes: 10,
			budgets: []api.Budget{ruleBudget("0", "0 22 * * *", 2*time.Hour), ruleBudget("3", "", 0)}, want: want{3, 3, 3}},
		{name: "active schedule constrains", nodes: 10,
			budgets: []api.Budget{ruleBudget("0", "0 9 * * mon-fri", 8*time.Hour), ruleBudget("3", "", 0)}, want: want{0, 0, 0}},
		{name: "only inactive budgets leave the reason unbounded", nodes: 10,
			budgets: []api.Budget{ruleBudget("0", "0 22 * * *", 2*time.Hour)}, want: want{unbounded, unbounded, unbounded}},
		{name: "misconfigured nodes fail closed", nodes: 10,
			budgets:  []api.Budget{ruleBudget("lots", "", 0, drifted...), ruleBudget("5", "", 0)},
			want:     want{5, 5, 0},
			problems: []string{`consolidation: misconfigured disruption budget: NodePool p: spec.disruption.budgets[0].nodes: want a node count such as 5 or a percentage such as 10% (budget allows 0 disruptions), got "lots"`}},
		{name: "misconfigured schedule fails closed even outside any window", nodes: 10,
			budgets:  []api.Budget{ruleBudget("5", "61 * * * *", time.Hour)},
			want:     want{0, 0, 0},
			problems: []string{`consolidation: misconfigured disruption budget: NodePool p: spec.disruption.budgets[0].schedule: invalid cron schedule: end of range (61) above maximum (59): 61 (budget allows 0 disruptions), got "61 * * * *"`}},
		{name: "unknown reason fails closed for every reason", nodes: 10,
			budgets:  []api.Budget{ruleBudget("5", "", 0, "Expired")},
			want:     want{0, 0, 0},
			problems: []string{`consolidation: misconfigured disruption budget: NodePool p: spec.disruption.budgets[0].reasons: want one of Empty, Underutilized, Drifted (budget allows 0 disruptions), got "Expired"`}},
		{name: "already disrupting nodes are subtracted", nodes: 10,
			budgets: []api.Budget{ruleBudget("5", "", 0)},
			changes: map[int]func(*Node){0: deleting, 1: deleting, 2: notReady}, want: want{2, 2, 2}},
		{name: "percent of the nodes not being deleted", nodes: 10,
			budgets: []api.Budget{ruleBudget("50%", "", 0)},
			changes: map[int]func(*Node){0: deleting, 1: deleting}, want: want{2, 2, 2}},
		{name: "departing nodes hold no budget and are not counted", nodes: 10,
			budgets: []api.Budget{ruleBudget("50%", "", 0)},
			changes: map[int]func(*Node){0: departing, 1: departing, 2: deleting}, want: want{3, 3, 3}},
		{name: "a departing node that is NotReady holds no budget either", nodes: 10,
			budgets: []api.Budget{ruleBudget("1", "", 0)},
			changes: map[int]func(*Node){0: func(n *Node) { departing(n); notReady(n) }}, want: want{1, 1, 1}},
		{name: "never below zero", nodes: 10,
			budgets: []api.Budget{ruleBudget("1", "", 0)},
			changes: map[int]func(*Node){0: deleting, 1: notReady, 2: notReady}, want: want{0, 0, 0}},
		{name: "a node without conditions is not NotReady", nodes: 4,
			budgets: []api.Budget{ruleBudget("1", "", 0)},
			changes: map[int]func(*Node){0: noConditions}, want: want{1, 1, 1}},
		{name: "uninitialized nodes count for nothing", nodes: 4,
			budgets: []api.Budget{ruleBudget("50%", "", 0)},
			changes: map[int]func(*Node){0: uninitialized, 1: func(n *Node) { uninitialized(n); deleting(n) }}, want: want{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := poolNodes(tt.nodes)
			for i, change := range tt.changes {
				change(nodes[i])
			}
			other := ruleNode("other", "q", "D2", "eastus-1", api.CapacityTypeOnDemand)
			other.Deleting = true
			in := ruleInput([]*api.NodePool{rulePool("p", withBudgets(tt.budgets...)), rulePool("q")}, nil, append(nodes, other)...)
			b, err := newBudgets(in, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, want{b.allowed("p", ReasonEmpty), b.allowed("p", ReasonUnderutilized), b.allowed("p", ReasonDrifted)})
			assert.Equal(t, unbounded, b.allowed("p", ReasonExpired))
			var problems []string
			for _, err := range b.problems("p") {
				assert.ErrorIs(t, err, ErrBudget)
				problems = append(problems, err.Error())
			}
			assert.Equal(t, tt.problems, problems)
		})
	}
}

func TestBudgetsTake(t *testing.T) {
	in := ruleInput([]*api.NodePool{rulePool("p", withBudgets(
		ruleBudget("2", "", 0, api.DisruptionReasonDrifted), ruleBudget("4", "", 0)))}, nil, poolNodes(10)...)
	b, err := newBudgets(in, nil)
	require.NoError(t, err)

	assert.False(t, b.take("p", ReasonDrifted, 3), "more than allowed")
	assert.Equal(t, 2, b.allowed("p", ReasonDrifted), "a refused take consumes nothing")
	assert.False(t, b.take("p", ReasonEmpty, -1), "negative")
	assert.True(t, b.take("p", ReasonEmpty, 0))

	require.True(t, b.take("p", ReasonEmpty, 1))
	assert.Equal(t, 3, b.allowed("p", ReasonEmpty))
	assert.Equal(t, 1, b.allowed("p", ReasonDrifted), "every budget counts every disrupting node")

	require.True(t, b.take("p", ReasonExpired, 5), "expiration is never refused")
	assert.Equal(t, 0, b.allowed("p", ReasonUnderutilized), "but its nodes still count")
	assert.False(t, b.take("p", ReasonUnderutilized, 1))

	assert.Equal(t, 0, b.allowed("nope", ReasonEmpty), "unknown pool")
	assert.False(t, b.take("nope", ReasonEmpty, 1))
	assert.True(t, b.take("nope", ReasonExpired, 1))
	assert.Nil(t, b.problems("nope"))
}

func TestNewBudgetsNeedsNow(t *testing.T) {
	_, err := newBudgets(&Input{}, nil)
	require.ErrorIs(t, err, ErrInvalidInput)
	assert.Contains(t, err.Error(), "Now")
	_, err = newBudgets(nil, nil)
	require.ErrorIs(t, err, ErrInvalidInput)

	var fe *api.FieldError
	_, err = budgetNodes("x", 1)
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "nodes", fe.Field)
	assert.Equal(t, "x", fe.Value)
	assert.ErrorIs(t, err, api.ErrInvalid, "a misconfigured budget is bad input")
}
