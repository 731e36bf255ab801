package bootstrap

import "strings"

// Fixed images and paths the node uses.
const (
	pauseImage     = "mcr.microsoft.com/oss/kubernetes/pause:3.6"
	mcrRepository  = "mcr.microsoft.com"
	runcBinary     = "/usr/bin/runc"
	nvidiaRuntime  = "nvidia-container-runtime"
	nvidiaBinary   = "/usr/bin/nvidia-container-runtime"
	containerdCRI  = `plugins."io.containerd.grpc.v1.cri"`
	metricsAddress = "0.0.0.0:10257"
)

// containerdConfig renders containerd's config.toml. GPU nodes whose driver the image installs run
// containers through the NVIDIA runtime so that the devices are visible; everything else uses runc.
func containerdConfig(gpu bool) string {
	runtimeName, binary := "runc", runcBinary
	if gpu {
		runtimeName, binary = nvidiaRuntime, nvidiaBinary
	}
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	line("version = 2")
	line("oom_score = 0")
	line("[" + containerdCRI + "]")
	line(`  sandbox_image = "` + pauseImage + `"`)
	line("  [" + containerdCRI + ".containerd]")
	line(`    default_runtime_name = "` + runtimeName + `"`)
	runtime(line, runtimeName, binary, true)
	runtime(line, "untrusted", runcBinary, false)
	line("  [" + containerdCRI + ".registry]")
	line(`    config_path = "/etc/containerd/certs.d"`)
	line("  [" + containerdCRI + ".registry.headers]")
	line(`    X-Meta-Source-Client = ["azure/aks"]`)
	line("[metrics]")
	line(`  address = "` + metricsAddress + `"`)
	return b.String()
}

// runtime writes one containerd runtime section.
func runtime(line func(string), name, binary string, systemdCgroup bool) {
	section := containerdCRI + `.containerd.runtimes."` + name + `"`
	line("    [" + section + "]")
	line(`      runtime_type = "io.containerd.runc.v2"`)
	line("    [" + section + ".options]")
	line(`      BinaryName = "` + binary + `"`)
	if systemdCgroup {
		line("      SystemdCgroup = true")
	}
}

// sysctlConfig is the node's sysctl.conf: longer listen backlogs and neighbour tables for dense pod
// networking, and a shorter TCP retry budget so dead peers are noticed in minutes, not a quarter hour.
func sysctlConfig() string {
	return strings.Join([]string{
		"net.ipv4.tcp_retries2=8",
		"net.core.message_burst=80",
		"net.core.message_cost=40",
		"net.core.somaxconn=16384",
		"net.ipv4.tcp_max_syn_backlog=16384",
		"net.ipv4.neigh.default.gc_thresh1=4096",
		"net.ipv4.neigh.default.gc_thresh2=8192",
		"net.ipv4.neigh.default.gc_thresh3=16384",
	}, "\n") + "\n"
}
