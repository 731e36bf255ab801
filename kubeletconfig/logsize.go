package kubeletconfig

import (
	"regexp"

	"k8s.io/apimachinery/pkg/api/resource"
)

// logSizePattern is the AKSNodeClass CRD pattern for containerLogMaxSize: a whole number with a unit,
// because the kubelet reads the value as a size and a bare number would be bytes.
var logSizePattern = regexp.MustCompile(`^\d+(E|P|T|G|M|K|Ei|Pi|Ti|Gi|Mi|Ki)$`)

func validateLogSize(s string) error {
	const field = kubeletPath + "containerLogMaxSize"
	if !logSizePattern.MatchString(s) {
		return invalid(field, s, "must match %s, for example 50Mi", logSizePattern)
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return invalid(field, s, "is not a quantity: %v", err)
	}
	// A zero size would make the kubelet rotate the log on every write.
	if q.Sign() <= 0 {
		return invalid(field, s, "must be greater than zero")
	}
	return nil
}
