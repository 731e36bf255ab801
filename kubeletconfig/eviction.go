package kubeletconfig

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// evictionSignals are the signals the kubelet knows; an unknown one fails the kubelet at startup.
var evictionSignals = []string{
	"allocatableMemory.available",
	"containerfs.available",
	"containerfs.inodesFree",
	"imagefs.available",
	"imagefs.inodesFree",
	SignalMemoryAvailable,
	"nodefs.available",
	"nodefs.inodesFree",
	"pid.available",
}

func (c *Config) validateEviction() []error {
	errs := validateThresholds("evictionHard", c.EvictionHard)
	errs = append(errs, validateThresholds("evictionSoft", c.EvictionSoft)...)
	// The kubelet needs a grace period for every soft threshold; a period without a threshold is
	// almost always a misspelt signal, so it is rejected too.
	for _, signal := range slices.Sorted(maps.Keys(c.EvictionSoft)) {
		if _, ok := c.EvictionSoftGracePeriod[signal]; !ok {
			errs = append(errs, invalid(keyed("evictionSoftGracePeriod", signal), "", "must be set for every evictionSoft signal"))
		}
	}
	for _, signal := range slices.Sorted(maps.Keys(c.EvictionSoftGracePeriod)) {
		field := keyed("evictionSoftGracePeriod", signal)
		if d := c.EvictionSoftGracePeriod[signal]; d < 0 {
			errs = append(errs, invalid(field, d, "must not be negative"))
		}
		if _, ok := c.EvictionSoft[signal]; !ok {
			errs = append(errs, invalid(field, c.EvictionSoftGracePeriod[signal], "has no matching evictionSoft threshold"))
		}
	}
	if n := c.EvictionMaxPodGracePeriod; n != nil && *n < 0 {
		errs = append(errs, invalid("evictionMaxPodGracePeriod", *n, "must not be negative"))
	}
	return errs
}

// validateThresholds checks each signal and its threshold: a positive quantity or a percentage
// between 0% and 100%, as the kubelet parses them.
func validateThresholds(name string, thresholds map[string]string) []error {
	var errs []error
	for _, signal := range slices.Sorted(maps.Keys(thresholds)) {
		value, field := thresholds[signal], keyed(name, signal)
		if !slices.Contains(evictionSignals, signal) {
			errs = append(errs, invalid(field, value, "unknown signal %q; want one of %s", signal, strings.Join(evictionSignals, ", ")))
			continue
		}
		if err := checkThreshold(value); err != nil {
			errs = append(errs, invalid(field, value, "%v", err))
		}
	}
	return errs
}

func checkThreshold(value string) error {
	if pct, ok := strings.CutSuffix(value, "%"); ok {
		p, err := strconv.ParseFloat(pct, 64)
		if err != nil || !(p >= 0 && p <= 100) { // written so NaN fails too
			return fmt.Errorf("a percentage must be between 0%% and 100%%")
		}
		return nil
	}
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return fmt.Errorf("must be a quantity such as 100Mi or a percentage such as 10%%")
	}
	if q.Sign() <= 0 {
		return fmt.Errorf("must be greater than zero")
	}
	return nil
}
