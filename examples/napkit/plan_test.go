package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The seed walkthrough: inflate at 5 replicas of 1 CPU on the general-purpose NodePool.
func TestPlanSeedWalkthrough(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"plan", "-f", "testdata/seed-walkthrough.yaml"}, &stdout, &stderr), stderr.String())

	var plan struct {
		Kind       string `json:"kind"`
		Region     string `json:"region"`
		NodeClaims []struct {
			NodePool     string            `json:"nodePool"`
			InstanceType string            `json:"instanceType"`
			CapacityType string            `json:"capacityType"`
			PricePerHour float64           `json:"pricePerHour"`
			Labels       map[string]string `json:"labels"`
			Pods         []string          `json:"pods"`
		} `json:"nodeClaims"`
		Unschedulable []any `json:"unschedulable"`
		Cost          struct {
			PricePerHour      float64 `json:"pricePerHour"`
			LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
		} `json:"cost"`
		Stats struct {
			Pods int `json:"pods"`
		} `json:"stats"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &plan))
	assert.Equal(t, "Plan", plan.Kind)
	assert.Equal(t, "eastus", plan.Region)
	assert.Empty(t, plan.Unschedulable)
	assert.Equal(t, 5, plan.Stats.Pods)
	placed := 0
	for _, nc := range plan.NodeClaims {
		assert.Equal(t, "general-purpose", nc.NodePool)
		assert.True(t, strings.HasPrefix(nc.InstanceType, "Standard_D"), nc.InstanceType)
		assert.Equal(t, "on-demand", nc.CapacityType)
		placed += len(nc.Pods)
	}
	assert.Equal(t, 5, placed)
	assert.LessOrEqual(t, plan.Cost.LowerBoundPerHour, plan.Cost.PricePerHour)
}

func TestPlanSVG(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"plan", "-f", "testdata/seed-walkthrough.yaml", "-o", "svg"}, &stdout, &stderr), stderr.String())
	svg := stdout.String()
	assert.True(t, strings.HasPrefix(svg, "<svg "))
	assert.Contains(t, svg, "Standard_D")
	assert.Equal(t, 5, strings.Count(svg, "<title>default/inflate-"), "one bar per pod")
}
