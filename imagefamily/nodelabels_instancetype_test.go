package imagefamily_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// TestInstanceTypeLabelsInBootstrapData: every single-valued label of the chosen instance type
// reaches the node's labels in every mode, the offering's labels win over the instance type's, and
// karpenter.azure.com/sku-storage-ultra-ssd says whether this VM got Ultra SSD, not whether the size
// could.
// upstream: pkg/providers/instance/vminstance.go (getLaunchTemplate: claim labels, then
// GetAllSingleValuedRequirementLabels(instanceType.Requirements), then capacity type, placement scope
// and ultra SSD), pkg/providers/instance/aksmachineinstancehelpers.go (configureLabelsAndMode),
// pkg/providers/labels/labels.go (GetAllSingleValuedRequirementLabels)
func TestInstanceTypeLabelsInBootstrapData(t *testing.T) {
	cat := catalogue(t, nil)
	tests := []struct {
		sku      string
		mode     imagefamily.Mode
		ultraSSD bool
	}{
		{"Standard_D4s_v5", imagefamily.ModeScriptless, false},
		{"Standard_E16ds_v5", imagefamily.ModeBootstrappingClient, false},
		{"Standard_NC24ads_A100_v4", imagefamily.ModeMachineAPI, false},
		{"Standard_D16plds_v5", imagefamily.ModeScriptless, false},
		{"Standard_D8s_v5", imagefamily.ModeScriptless, true},
	}
	for _, tc := range tests {
		t.Run(tc.sku+"/"+string(tc.mode), func(t *testing.T) {
			it, ok := cat.Find(tc.sku)
			require.True(t, ok)
			in := withMode(baseInput(imagefamily.ShapeOf(it)), tc.mode)
			if tc.mode.IsMachineAPI() {
				in.Images.Gallery = imagefamily.SharedImageGallery
			}
			if it.SKU.Arch == api.ArchARM64 {
				in.NodeClass.Spec.ImageFamily = ptr(api.ImageFamilyAzureLinux)
			}
			in.UltraSSD = tc.ultraSSD
			out, err := imagefamily.Generate(in)
			require.NoError(t, err)
			single := it.Requirements.Labels()
			require.Contains(t, single, api.LabelSKUCPU)
			for k, v := range single {
				switch k {
				case api.LabelSKUUltraSSD:
					v = map[bool]string{true: "true", false: "false"}[tc.ultraSSD]
				case api.LabelZone, api.LabelCapacityType, api.LabelPlacementScope:
					continue // the offering's value, checked below
				}
				assert.Equal(t, v, out.NodeLabels[k], k)
				if bootstrap.CanKubeletSetLabel(k) {
					assert.Equal(t, v, out.KubeletNodeLabels[k], "kubelet label %s", k)
				}
			}
			assert.Equal(t, "eastus-1", out.NodeLabels[api.LabelZone])
			assert.Equal(t, api.CapacityTypeOnDemand, out.NodeLabels[api.LabelCapacityType])
		})
	}
}

// TestUltraSSDRequested follows upstream's rule: Ultra SSD only when the claim rules out "false".
// upstream: pkg/providers/instance/vminstance.go (resolveUltraSSDRequested)
func TestUltraSSDRequested(t *testing.T) {
	req := func(op corev1.NodeSelectorOperator, values ...string) []api.NodeSelectorRequirementWithMinValues {
		return []api.NodeSelectorRequirementWithMinValues{{Key: api.LabelSKUUltraSSD, Operator: op, Values: values}}
	}
	tests := []struct {
		name  string
		claim []api.NodeSelectorRequirementWithMinValues
		want  bool
	}{
		{"unset", nil, false},
		{"In true", req(corev1.NodeSelectorOpIn, "true"), true},
		{"In false", req(corev1.NodeSelectorOpIn, "false"), false},
		{"In both", req(corev1.NodeSelectorOpIn, "true", "false"), false},
		{"NotIn false", req(corev1.NodeSelectorOpNotIn, "false"), true},
		{"Exists", req(corev1.NodeSelectorOpExists), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, imagefamily.UltraSSDRequested(tc.claim))
		})
	}
}
