package app

import (
	"log/slog"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/api/resource"
)

// memoryLimitShare is the part of the container's memory limit the Go GC aims to stay under, as
// Karpenter's --memory-limit sets its soft limit to 90 %: the rest is for what the runtime does
// not count (the binary's text, C stacks) and a margin before the kernel kills the container.
const memoryLimitShare = 0.9

// applyMemoryLimit sets the GC's soft memory limit to 90 % of limit (a quantity such as 1Gi) and
// returns it in bytes. At 2,322 nodes the controller's live heap is about 360 MB but, collecting
// only at twice that, its RSS reached 894-971 MiB and 1.37 GiB at peak, over the chart's 1Gi limit;
// with a soft limit of 850MiB it held 781 MiB (docs/benchmarks.md, issue 18). An empty limit
// leaves the runtime's own (GOMEMLIMIT, or none).
func applyMemoryLimit(limit string, log *slog.Logger) (int64, error) {
	if limit == "" {
		return 0, nil
	}
	q, err := resource.ParseQuantity(limit)
	if err != nil || q.Sign() <= 0 {
		return 0, &ConfigError{Flag: "--memory-limit", Value: limit, Reason: "must be a positive quantity such as 1Gi"}
	}
	soft := int64(float64(q.Value()) * memoryLimitShare)
	debug.SetMemoryLimit(soft)
	log.Info("GC soft memory limit set", "bytes", soft, "containerLimit", limit)
	return soft, nil
}
