package controller

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// metrics are Karpenter's, under Karpenter's names, so existing dashboards keep working.
type metrics struct {
	claimsCreated, claimsTerminated *prometheus.CounterVec
	nodesCreated, nodesTerminated   *prometheus.CounterVec
	schedulingDuration              prometheus.Histogram
	disruptionDecisions             *prometheus.CounterVec
	// plannedReleased is napkit's own: pending pods a plan had put on a NodeClaim or node that a
	// later pass planned again, by why the hold let them go (planned.go's release reasons). It is
	// how an operator sees kube-scheduler place a batch other than its plan (noRoom, spread,
	// antiAffinity soon after a batch's nodes come up), which no Karpenter metric shows.
	plannedReleased *prometheus.CounterVec
	// reconcileTime is controller-runtime's reconcile histogram, by reconciler (NodeClaim, Node).
	reconcileTime *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer, inf *informerSet) (*metrics, error) {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "karpenter", Name: name, Help: help}, labels)
	}
	m := &metrics{
		claimsCreated:    counter("nodeclaims_created_total", "NodeClaims created, by reason and NodePool.", "reason", "nodepool"),
		claimsTerminated: counter("nodeclaims_terminated_total", "NodeClaims terminated, by NodePool.", "nodepool"),
		nodesCreated:     counter("nodes_created_total", "Nodes registered, by NodePool.", "nodepool"),
		nodesTerminated:  counter("nodes_terminated_total", "Nodes terminated, by NodePool.", "nodepool"),
		schedulingDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "karpenter",
			Name: "provisioner_scheduling_duration_seconds", Help: "Duration of one provisioning plan (provisioner.Solve).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16)}),
		disruptionDecisions: counter("voluntary_disruption_decisions_total",
			"Disruption commands executed, by decision (delete, replace), reason and method.", "decision", "reason", "consolidation_type"),
		plannedReleased: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "napkit", Name: "planned_pods_released_total",
			Help: "Pending pods a plan put on a NodeClaim or node that a later pass planned again, by why the hold let them go " +
				"(targetGone, graceOver, antiAffinity, spread, noRoom)."}, []string{"reason"}),
		reconcileTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "controller_runtime",
			Name: "reconcile_time_seconds", Help: "Duration of one reconcile, by reconciler.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16)}, []string{"controller"}),
	}
	var errs []error
	for _, c := range []prometheus.Collector{m.claimsCreated, m.claimsTerminated, m.nodesCreated, m.nodesTerminated,
		m.schedulingDuration, m.disruptionDecisions, m.plannedReleased, m.reconcileTime, &podsState{inf: inf}} {
		errs = append(errs, reg.Register(c))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("register metrics: %w", err)
	}
	return m, nil
}

// podsState is karpenter_pods_state: one series per pod, read from the cache at scrape time, so
// no series outlives its pod.
type podsState struct{ inf *informerSet }

var podsStateDesc = prometheus.NewDesc("karpenter_pods_state", "Pod state: 1 per pod, labelled with its node and phase.",
	[]string{"name", "namespace", "node", "nodepool", "phase"}, nil)

func (p *podsState) Describe(ch chan<- *prometheus.Desc) { ch <- podsStateDesc }

func (p *podsState) Collect(ch chan<- prometheus.Metric) {
	pools := map[string]string{}
	for _, obj := range p.inf.nodes.GetStore().List() {
		if node, ok := obj.(*corev1.Node); ok {
			pools[node.Name] = node.Labels[api.LabelNodePool]
		}
	}
	for _, obj := range p.inf.pods.GetStore().List() {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			continue
		}
		ch <- prometheus.MustNewConstMetric(podsStateDesc, prometheus.GaugeValue, 1,
			pod.Name, pod.Namespace, pod.Spec.NodeName, pools[pod.Spec.NodeName], string(pod.Status.Phase))
	}
}
