package kubeletconfig

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// d2sv3 is Standard_D2s_v3 in an overlay cluster: the worked example every napkit package shares.
var d2sv3 = ReservationInput{VCPUs: 2, MemoryMiB: 8 * 1024, MaxPods: 250}

// d2sv3CapacityBytes is the catalogue's capacity memory for Standard_D2s_v3:
// 8 GiB − ceil(8 GiB × 0.075).
const d2sv3CapacityBytes int64 = 7_945_689_497

func ptr[T any](v T) *T { return &v }

// mustReserve is Reserve for inputs a test knows are valid.
func mustReserve(t testing.TB, in ReservationInput) Reservation {
	t.Helper()
	r, err := Reserve(in)
	require.NoError(t, err)
	return r
}

// nodeClassWithKubelet wraps a kubelet block in an AKSNodeClass.
func nodeClassWithKubelet(k *api.KubeletConfiguration) *api.AKSNodeClass {
	return &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{Kubelet: k}}
}

// case14Kubelet is the kubelet block of upstream's "Nodepool with KubeletConfig" acceptance test.
func case14Kubelet() *api.KubeletConfiguration {
	return &api.KubeletConfiguration{
		CPUManagerPolicy:            ptr("static"),
		CPUCFSQuota:                 ptr(true),
		ImageGCHighThresholdPercent: ptr[int32](30),
		ImageGCLowThresholdPercent:  ptr[int32](20),
		TopologyManagerPolicy:       ptr("best-effort"),
		ContainerLogMaxSize:         ptr("42Mi"),
		ContainerLogMaxFiles:        ptr[int32](13),
		PodPidsLimit:                ptr[int64](99),
	}
}

// fullKubelet sets every field of the kubelet block to a valid non-default value.
func fullKubelet() *api.KubeletConfiguration {
	k := case14Kubelet()
	k.CPUCFSQuotaPeriod = &metav1.Duration{Duration: 50 * time.Millisecond}
	k.AllowedUnsafeSysctls = []string{"net.core.somaxconn", "kernel.shm*"}
	k.FailSwapOn = ptr(false)
	return k
}

// memMiB returns a list's memory in MiB, failing the test if it is not whole.
func memMiB(t testing.TB, list corev1.ResourceList) int64 {
	t.Helper()
	b, ok := list.Memory().AsInt64()
	require.True(t, ok)
	require.Zero(t, b%mib, "memory %d is not a whole MiB", b)
	return b / mib
}

// fieldErrors returns every *api.FieldError in err's tree (errors.Join included), and fails the test if
// any leaf is not one.
func fieldErrors(t testing.TB, err error) []*api.FieldError {
	t.Helper()
	var out []*api.FieldError
	var walk func(error)
	walk = func(e error) {
		var fe *api.FieldError
		if joined, ok := e.(interface{ Unwrap() []error }); ok {
			for _, inner := range joined.Unwrap() {
				walk(inner)
			}
			return
		}
		require.True(t, errors.As(e, &fe), "error %v is not an *api.FieldError", e)
		out = append(out, fe)
	}
	walk(err)
	return out
}

// requireFieldError asserts err wraps ErrInvalid and rejects field, naming it and value in the message.
func requireFieldError(t testing.TB, err error, field, value string) {
	t.Helper()
	require.ErrorIs(t, err, ErrInvalid)
	for _, fe := range fieldErrors(t, err) {
		if fe.Field == field {
			got := ""
			if fe.Value != nil {
				got = fmt.Sprint(fe.Value)
			}
			require.Equal(t, value, got)
			require.Contains(t, err.Error(), field)
			require.Contains(t, err.Error(), value)
			return
		}
	}
	require.Failf(t, "field not rejected", "want an error for %s, got %v", field, err)
}
