package provisioner

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/napkit/napkit/api"
)

// negativeRequest refuses a pod with a negative request, limit or overhead, naming the container,
// the field and the value (see api.NegativePodResource).
func negativeRequest(object string, pod *corev1.Pod) error {
	fe := api.NegativePodResource(&pod.Spec, field.NewPath("spec"))
	if fe == nil {
		return nil
	}
	fe.Kind, fe.Object = ErrInvalidInput, object
	return fe
}
