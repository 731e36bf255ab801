package provisioner

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
)

var update = flag.Bool("update", false, "rewrite the golden plans in testdata/")

// TestGolden compares a few complete plans with testdata/*.golden.json (go test -run TestGolden
// -update rewrites them). Stats.SolveMillis is zeroed, the only field allowed to differ.
func TestGolden(t *testing.T) {
	cases := map[string]func(testing.TB) Input{
		"seed-walkthrough": func(tb testing.TB) Input {
			return Input{Pods: inflatePods(5), NodePools: []NodePoolInput{{NodePool: seedNodePool(), InstanceTypes: eastusTypes(tb)}}}
		},
		"zonal-spread": func(testing.TB) Input {
			return Input{Pods: spreadPods(7, "web", "500m", api.LabelZone, 1), NodePools: []NodePoolInput{testPool("default")}}
		},
		"mixed": func(testing.TB) Input {
			limited := testPool("limited")
			limited.NodePool.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}
			ps := append(pods(4, "api", "1", "1Gi", withLabels("app", "api"), withAntiAffinity(api.LabelHostname, selector("app", "api"))),
				pod("huge", "64", ""), pod("arm", "1", "", withNodeSelector(api.LabelArch, api.ArchARM64)))
			return Input{Pods: ps, Nodes: []ExistingNode{node("existing-1", "test-zone-1", "2", "4Gi")}, NodePools: []NodePoolInput{limited},
				Options: Options{Seed: 7}}
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			plan := solveOrFail(t, build(t))
			plan.Stats.SolveMillis = 0
			got, err := json.MarshalIndent(plan, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("plan differs from %s (run with -update if the change is intended):\n%s", path, got)
			}
		})
	}
}
