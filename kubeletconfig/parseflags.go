package kubeletconfig

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ParseFlags reads --name=value flags back into a map keyed by name without the dashes
// ("kube-reserved" → "cpu=100m,memory=2048Mi"). It is the inverse of Flags for tests and for checking
// generated bootstrap data; a flag without "--" or "=", or given twice, is an error.
func ParseFlags(flags []string) (map[string]string, error) {
	out := make(map[string]string, len(flags))
	for i, f := range flags {
		name, value, ok := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		switch {
		case !strings.HasPrefix(f, "--") || !ok || name == "":
			return nil, invalid(indexed("flags", i), f, "want --name=value")
		case hasKey(out, name):
			return nil, invalid(indexed("flags", i), f, "flag --%s is given twice", name)
		}
		out[name] = value
	}
	return out, nil
}

// ParseMapFlag splits a map-valued flag value such as "cpu=100m,memory=2048Mi" or
// "memory.available<100Mi" into its entries. Each entry is split at its first '=' or '<'.
func ParseMapFlag(value string) (map[string]string, error) {
	out := map[string]string{}
	if value == "" {
		return out, nil
	}
	for _, entry := range strings.Split(value, ",") {
		i := strings.IndexAny(entry, "=<")
		switch {
		case i <= 0:
			return nil, invalid("flag value", value, "entry %q is not key=value or key<value", entry)
		case hasKey(out, entry[:i]):
			return nil, invalid("flag value", value, "key %q is given twice", entry[:i])
		}
		out[entry[:i]] = entry[i+1:]
	}
	return out, nil
}

// ReservationFromFlags reads --kube-reserved, --system-reserved and the memory.available entry of
// --eviction-hard (as returned by ParseFlags) back into a Reservation, so a test can compare what a
// node's kubelet will enforce with what Reserve told the scheduler.
func ReservationFromFlags(flags map[string]string) (Reservation, error) {
	kube, err := parseResourceFlag(flags, "kube-reserved")
	if err != nil {
		return Reservation{}, err
	}
	system, err := parseResourceFlag(flags, "system-reserved")
	if err != nil {
		return Reservation{}, err
	}
	eviction, err := ParseMapFlag(flags["eviction-hard"])
	if err != nil {
		return Reservation{}, err
	}
	mem, err := resource.ParseQuantity(eviction[SignalMemoryAvailable])
	if err != nil {
		return Reservation{}, invalid("eviction-hard", flags["eviction-hard"], "needs a memory.available quantity: %v", err)
	}
	return Reservation{KubeReserved: kube, SystemReserved: system,
		EvictionThreshold: corev1.ResourceList{corev1.ResourceMemory: mem}}, nil
}

func parseResourceFlag(flags map[string]string, name string) (corev1.ResourceList, error) {
	entries, err := ParseMapFlag(flags[name])
	if err != nil {
		return nil, err
	}
	list := make(corev1.ResourceList, len(entries))
	for k, v := range entries {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, invalid(keyed(name, k), v, "is not a quantity: %v", err)
		}
		list[corev1.ResourceName(k)] = q
	}
	return list, nil
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}
