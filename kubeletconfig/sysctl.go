package kubeletconfig

import (
	"regexp"
	"strings"
)

// sysctlPattern accepts a dotted sysctl name, optionally ending in * to allow a whole prefix (net.*,
// kernel.shm*), the forms the kubelet's --allowed-unsafe-sysctls accepts.
var sysctlPattern = regexp.MustCompile(
	`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?\.)*([a-z0-9]([-_a-z0-9]*[a-z0-9])?\*?|\*)$`)

// maxSysctlLength is the kubelet's limit on a sysctl name.
const maxSysctlLength = 253

// namespacedSysctls are the sysctl groups the kernel namespaces per pod (IPC and network). The kubelet
// refuses to allow any other sysctl as "unsafe", because changing it would change the whole node.
// A prefix ending in "." or a group name like kernel.shm matches by prefix; kernel.sem only exactly.
var namespacedSysctls = []struct {
	name   string
	prefix bool
}{
	{"kernel.shm", true},
	{"kernel.msg", true},
	{"kernel.sem", false},
	{"fs.mqueue.", true},
	{"net.", true},
}

func (c *Config) validateSysctls() []error {
	var errs []error
	for i, s := range c.AllowedUnsafeSysctls {
		field := indexed(kubeletPath+"allowedUnsafeSysctls", i)
		switch {
		case len(s) > maxSysctlLength || !sysctlPattern.MatchString(s):
			errs = append(errs, invalid(field, s, "must be a dotted sysctl name, optionally ending in *"))
		case !isNamespacedSysctl(s):
			errs = append(errs, invalid(field, s,
				"is not namespaced; only kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.* and net.* may be allowed"))
		}
	}
	return errs
}

// isNamespacedSysctl reports whether a name or pattern lies wholly inside a namespaced group. For a
// pattern the part before * must itself be in a group: net.ipv4.* is, kernel.* is not.
func isNamespacedSysctl(s string) bool {
	name, pattern := strings.CutSuffix(s, "*")
	for _, g := range namespacedSysctls {
		if g.prefix && strings.HasPrefix(name, g.name) {
			return true
		}
		if !g.prefix && !pattern && name == g.name {
			return true
		}
	}
	return false
}
