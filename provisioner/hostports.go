package provisioner

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// hostPort is one (IP, port, protocol) a pod binds on its node.
type hostPort struct {
	ip    string
	port  int32
	proto corev1.Protocol
}

func (h hostPort) String() string { return fmt.Sprintf("%s/%d/%s", h.ip, h.port, h.proto) }

// podHostPorts lists the host ports of every container, init containers included. An empty host IP
// means all addresses (0.0.0.0), which clashes with any address.
func podHostPorts(spec *corev1.PodSpec) []hostPort {
	var out []hostPort
	add := func(cs []corev1.Container) {
		for i := range cs {
			for _, p := range cs[i].Ports {
				if p.HostPort <= 0 {
					continue
				}
				hp := hostPort{ip: p.HostIP, port: p.HostPort, proto: p.Protocol}
				if hp.ip == "" {
					hp.ip = "0.0.0.0"
				}
				if hp.proto == "" {
					hp.proto = corev1.ProtocolTCP
				}
				out = append(out, hp)
			}
		}
	}
	add(spec.InitContainers)
	add(spec.Containers)
	return out
}

func (h hostPort) clashes(o hostPort) bool {
	return h.port == o.port && h.proto == o.proto && (h.ip == o.ip || h.ip == "0.0.0.0" || o.ip == "0.0.0.0")
}

// portClash returns the first port of a that clashes with one of b.
func portClash(a, b []hostPort) (hostPort, bool) {
	for _, x := range a {
		for _, y := range b {
			if x.clashes(y) {
				return x, true
			}
		}
	}
	return hostPort{}, false
}
