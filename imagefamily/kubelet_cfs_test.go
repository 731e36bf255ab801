package imagefamily_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
)

// TestCPUCFSQuotaPeriodReachesEveryMode: a period other than 100ms goes on the scriptless kubelet
// command line together with the CustomCPUCFSQuotaPeriod gate (merged with the base gates of kubelets
// before 1.30), and in the AKS modes as the customKubeletConfig's cpuCfsQuotaPeriod, which AKS renders
// with its gate itself.
// upstream: pkg/providers/imagefamily/customscriptsbootstrap/provisionclientbootstrap.go and
// pkg/providers/instance/aksmachineinstancehelpers.go (cpuCfsQuotaPeriod = Duration.String()); the
// kubelet refuses a non-default period without the gate (kubernetes
// pkg/kubelet/apis/config/validation/validation.go).
func TestCPUCFSQuotaPeriodReachesEveryMode(t *testing.T) {
	tests := []struct {
		name, version string
		period        time.Duration
		mode          imagefamily.Mode
		want          []string // scriptless: flags; other modes: JSON fragments
		absent        string
	}{
		{"scriptless 200ms", "1.33.2", 200 * time.Millisecond, imagefamily.ModeScriptless,
			[]string{"--cpu-cfs-quota-period=200ms", "--feature-gates=CustomCPUCFSQuotaPeriod=true"}, ""},
		{"scriptless 1.29 merges gates", "1.29.9", 50 * time.Millisecond, imagefamily.ModeScriptless,
			[]string{"--cpu-cfs-quota-period=50ms", "--feature-gates=CustomCPUCFSQuotaPeriod=true,DisableKubeletCloudCredentialProviders=false"}, ""},
		{"scriptless default period needs no gate", "1.33.2", 100 * time.Millisecond, imagefamily.ModeScriptless,
			[]string{"--cpu-cfs-quota-period=100ms"}, "--feature-gates"},
		{"bootstrappingclient", "1.33.2", 200 * time.Millisecond, imagefamily.ModeBootstrappingClient,
			[]string{`"cpuCfsQuotaPeriod":"200ms"`}, ""},
		{"machine API", "1.33.2", 200 * time.Millisecond, imagefamily.ModeMachineAPI,
			[]string{`"cpuCfsQuotaPeriod":"200ms"`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := withMode(baseInput(shapeD2sV3()), tc.mode)
			in.Cluster = testCluster(tc.version)
			in.NodeClass.Spec.Kubelet = &api.KubeletConfiguration{CPUCFSQuotaPeriod: &metav1.Duration{Duration: tc.period}}
			if tc.mode.IsMachineAPI() {
				in.Images.Gallery = imagefamily.SharedImageGallery
			}
			out, err := imagefamily.Generate(in)
			require.NoError(t, err)
			got := strings.Join(out.KubeletFlags, " ")
			if tc.mode != imagefamily.ModeScriptless {
				body, err := json.Marshal(json.RawMessage(out.Payload.RedactedBytes()))
				require.NoError(t, err)
				got = string(body)
			}
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			if tc.absent != "" {
				assert.NotContains(t, got, tc.absent)
			}
		})
	}
}
