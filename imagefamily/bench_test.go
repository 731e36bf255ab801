package imagefamily_test

import (
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// BenchmarkGenerateScriptless measures the whole pipeline for one scriptless node, customData
// included; it reports the customData size.
func BenchmarkGenerateScriptless(b *testing.B) {
	in := baseInput(shapeNC24ads())
	b.ReportAllocs()
	var size int
	for b.Loop() {
		out, err := imagefamily.Generate(in)
		if err != nil {
			b.Fatal(err)
		}
		size = out.CustomData.Len()
	}
	b.ReportMetric(float64(size), "customData-bytes")
}

// BenchmarkRenderScriptless measures rendering the customData alone, from resolved inputs.
func BenchmarkRenderScriptless(b *testing.B) {
	out, err := imagefamily.Generate(baseInput(shapeD2sV3()))
	if err != nil {
		b.Fatal(err)
	}
	in := bootstrap.ScriptlessInput{Cluster: testCluster("1.33.2"), Arch: api.ArchAMD64,
		KubeletFlags: out.Kubelet.Flags(), Labels: out.NodeLabels, Taints: out.Taints}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bootstrap.RenderScriptless(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateMachineAPI measures one AKS Machine body.
func BenchmarkGenerateMachineAPI(b *testing.B) {
	in := withMode(baseInput(shapeD2sV3()), imagefamily.ModeMachineAPI)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := imagefamily.Generate(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateCatalogue renders customData for every eastus instance type, the work of
// describing the whole catalogue; it reports the time per instance type.
func BenchmarkGenerateCatalogue(b *testing.B) {
	cat := catalogue(b, nil)
	inputs := make([]imagefamily.Input, len(cat.InstanceTypes))
	for i, it := range cat.InstanceTypes {
		inputs[i] = baseInput(imagefamily.ShapeOf(it))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range inputs {
			if _, err := imagefamily.Generate(in); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(inputs)), "ns/instancetype")
}
