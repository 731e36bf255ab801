package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPlanCLI runs `napkit plan --compact` end to end on N Pod documents (requests drawn from
// the provisioner benchmark's sizes) with the seed NodePool without its 100-CPU limit (with it,
// 9,929 of 10,000 pods stay pending and the solve has little to do), and reports the wall time next
// to the solve time the plan itself reports, so the share spent reading YAML and writing JSON shows.
// cpu-ms is the process's user+system CPU over the run: on a shared machine the wall time depends
// on the load, the CPU much less.
func BenchmarkPlanCLI(b *testing.B) {
	for _, n := range []int{10000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "pods.yaml")
			if err := os.WriteFile(path, []byte(podsYAML(b, n)), 0o600); err != nil {
				b.Fatal(err)
			}
			var wall, solve, cpu time.Duration
			for range b.N {
				var out, errOut bytes.Buffer
				start, cpuStart := time.Now(), processCPU(b)
				if code := run([]string{"plan", "--compact", "-f", path}, &out, &errOut); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
				wall += time.Since(start)
				cpu += processCPU(b) - cpuStart
				var plan struct {
					Stats struct {
						SolveMillis int64 `json:"solveMillis"`
					} `json:"stats"`
				}
				if err := json.Unmarshal(out.Bytes(), &plan); err != nil {
					b.Fatal(err)
				}
				solve += time.Duration(plan.Stats.SolveMillis) * time.Millisecond
			}
			b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms")
			b.ReportMetric(float64(solve.Milliseconds())/float64(b.N), "solve-ms")
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms")
			if solve > 0 {
				b.ReportMetric(float64(wall)/float64(solve), "wall/solve")
			}
		})
	}
}

// processCPU is the user+system CPU this process has used.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// podsYAML is the seed's NodePool (without its limits) and AKSNodeClass and n Pod documents.
func podsYAML(tb testing.TB, n int) string {
	var sb strings.Builder
	sb.WriteString(strings.Replace(poolAndClassTB(tb, "testdata/seed-walkthrough.yaml"), "\n  limits:\n    cpu: 100\n", "\n", 1))
	cpus := []string{"100m", "250m", "500m", "1", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	for i := range n {
		fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\n  namespace: default\nspec:\n"+
			"  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: %s\n        memory: %s\n",
			i, cpus[i%len(cpus)], mems[(i*7)%len(mems)])
	}
	return sb.String()
}

func poolAndClassTB(tb testing.TB, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var keep []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		if strings.Contains(doc, "\nkind: NodePool\n") || strings.Contains(doc, "\nkind: AKSNodeClass\n") {
			keep = append(keep, strings.TrimSpace(doc))
		}
	}
	return "---\n" + strings.Join(keep, "\n---\n") + "\n"
}
