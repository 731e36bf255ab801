package bootstrap

import (
	"maps"
	"slices"
	"strings"

	"github.com/napkit/napkit/imagefamily/internal/kubever"
)

// tlsCipherSuites are the only suites the kubelet's server offers: ECDHE/RSA with AES-GCM or
// ChaCha20, nothing with CBC or SHA-1.
const tlsCipherSuites = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256," +
	"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384," +
	"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384," +
	"TLS_RSA_WITH_AES_256_GCM_SHA384,TLS_RSA_WITH_AES_128_GCM_SHA256"

// baseKubeletFlags are the flags an AKS node's kubelet always runs with (reference section 6.2),
// keyed by name. They hold paths, security settings and defaults only: the pod limit, reservations,
// eviction thresholds and cluster DNS come from kubeletconfig and are never set here.
func baseKubeletFlags(v kubever.Version) map[string]string {
	flags := map[string]string{
		"address":                           "0.0.0.0",
		"anonymous-auth":                    "false",
		"authentication-token-webhook":      "true",
		"authorization-mode":                "Webhook",
		"cgroups-per-qos":                   "true",
		"client-ca-file":                    "/etc/kubernetes/certs/ca.crt",
		"cloud-provider":                    "external",
		"enforce-node-allocatable":          "pods",
		"event-qps":                         "0",
		"image-gc-high-threshold":           "85",
		"image-gc-low-threshold":            "80",
		"kubeconfig":                        "/var/lib/kubelet/kubeconfig",
		"node-status-update-frequency":      "10s",
		"pod-manifest-path":                 "/etc/kubernetes/manifests",
		"pod-max-pids":                      "-1",
		"protect-kernel-defaults":           "true",
		"read-only-port":                    "0",
		"resolv-conf":                       "/run/systemd/resolve/resolv.conf",
		"rotate-certificates":               "true",
		"streaming-connection-idle-timeout": "4h",
		"tls-cert-file":                     "/etc/kubernetes/certs/kubeletserver.crt",
		"tls-cipher-suites":                 tlsCipherSuites,
		"tls-private-key-file":              "/etc/kubernetes/certs/kubeletserver.key",
	}
	maps.Copy(flags, versionedKubeletFlags(v))
	return flags
}

// versionedKubeletFlags follow the kubelet's removals: the in-tree ACR credential provider (gone in
// 1.30), --keep-terminated-pod-volumes (1.31), the azure.json cloud config (1.34) and the pause image
// flag (1.35).
func versionedKubeletFlags(v kubever.Version) map[string]string {
	flags := map[string]string{}
	if v.AtLeast(1, credentialProviderFromMinor) {
		flags["image-credential-provider-config"] = "/var/lib/kubelet/credential-provider-config.yaml"
		flags["image-credential-provider-bin-dir"] = "/var/lib/kubelet/credential-provider"
	} else {
		flags[featureGatesFlag] = "DisableKubeletCloudCredentialProviders=false"
		flags["azure-container-registry-config"] = "/etc/kubernetes/azure.json"
	}
	if !v.AtLeast(1, 31) {
		flags["keep-terminated-pod-volumes"] = "false"
	}
	if !v.AtLeast(1, 34) {
		flags["cloud-config"] = "/etc/kubernetes/azure.json"
	}
	if !v.AtLeast(1, 35) {
		flags["pod-infra-container-image"] = pauseImage
	}
	return flags
}

// mergeKubeletFlags lays the configured flags (kubeletconfig's, plus taints) over the base set and
// returns the result sorted. A configured flag replaces the base flag of the same name, so the
// kubelet runs with exactly the values kubeletconfig computed; feature gates are the exception: both
// sets' gates are kept in one --feature-gates flag, the configured value winning for the same gate.
func mergeKubeletFlags(v kubever.Version, configured []string) []string {
	merged := baseKubeletFlags(v)
	for _, f := range configured {
		name, value, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if name == featureGatesFlag {
			value = mergeFeatureGates(merged[name], value)
		}
		merged[name] = value
	}
	out := make([]string, 0, len(merged))
	for name, value := range merged {
		out = append(out, "--"+name+"="+value)
	}
	// Sorted as whole strings, like kubeletconfig's Flags, so both lists read the same way.
	slices.Sort(out)
	return out
}

const featureGatesFlag = "feature-gates"

// mergeFeatureGates merges two Gate=bool,... lists, sorted by gate; over's value wins.
func mergeFeatureGates(base, over string) string {
	gates := map[string]string{}
	for _, list := range []string{base, over} {
		for _, g := range strings.Split(list, ",") {
			if name, value, ok := strings.Cut(g, "="); ok {
				gates[name] = value
			}
		}
	}
	out := make([]string, 0, len(gates))
	for _, name := range slices.Sorted(maps.Keys(gates)) {
		out = append(out, name+"="+gates[name])
	}
	return strings.Join(out, ",")
}
