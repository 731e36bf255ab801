package app

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// clusterSettings reads and checks the real-Azure settings: every missing or unreadable one is a
// ConfigError naming its flag, and the values are then checked by bootstrap.Cluster.Validate. All
// problems are reported at once; the token's value never is.
func clusterSettings(f *Flags, getenv func(string) string) (bootstrap.Cluster, string, error) {
	var errs []error
	for _, r := range []struct{ flag, value string }{
		{"--subscription-id", f.SubscriptionID}, {"--resource-group", f.ResourceGroup},
		{"--cluster-name", f.ClusterName}, {"--location", f.Location}, {"--tenant-id", f.TenantID},
		{"--api-server", f.APIServer}, {"--subnet-id", f.SubnetID},
	} {
		if r.value == "" {
			errs = append(errs, &ConfigError{Flag: r.flag, Reason: "is required on real Azure (or pass --simulate for fake nodes)"})
		}
	}
	ca, err := readSetting("--ca-file", f.CAFile)
	errs = append(errs, err)
	key, err := readSetting("--ssh-public-key-file", f.SSHPublicKeyFile)
	errs = append(errs, err)
	token, err := bootstrapToken(f.BootstrapTokenFile, getenv)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return bootstrap.Cluster{}, "", err
	}
	cluster := bootstrap.Cluster{
		ClusterName: f.ClusterName, KubernetesVersion: f.KubernetesVersion, APIServerHost: f.APIServer,
		CACertificate: ca, BootstrapToken: bootstrap.NewSecret(token), TenantID: f.TenantID,
		SubscriptionID: f.SubscriptionID, NodeResourceGroup: f.ResourceGroup, Location: f.Location,
		SubnetID: f.SubnetID, VNETGUID: f.VNETGUID, ClusterID: f.ClusterID,
		KubeletIdentityClientID: f.KubeletIdentityClientID, ClusterDNS: f.ClusterDNS,
		Network: api.DefaultClusterNetwork(),
	}
	if err := cluster.Validate(); err != nil {
		return bootstrap.Cluster{}, "", fmt.Errorf("cluster settings: %w", namingFlags(err, f))
	}
	return cluster, strings.TrimSpace(string(key)), nil
}

// fieldFlags names the flag behind each field bootstrap.Cluster.Validate checks.
var fieldFlags = map[string]string{
	"cluster name": "--cluster-name", "API server host": "--api-server", "cluster CA certificate": "--ca-file",
	"bootstrap token": "--bootstrap-token-file", "Kubernetes version": "--kubernetes-version",
	"tenant ID": "--tenant-id", "subscription ID": "--subscription-id", "node resource group": "--resource-group",
	"location": "--location", "subnet ID": "--subnet-id", "subnet ID subscription": "--subnet-id",
	"VNET GUID": "--vnet-guid", "cluster ID": "--cluster-id", "kubelet identity client ID": "--kubelet-identity-client-id",
	"cluster DNS": "--dns-service-ip",
}

// namingFlags turns Validate's field errors into ConfigErrors naming the flag (for the CA and the
// token: the file, or the environment variable the token came from; never the token).
func namingFlags(err error, f *Flags) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return namingFlag(err, f)
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, namingFlag(e, f))
	}
	return errors.Join(out...)
}

func namingFlag(err error, f *Flags) error {
	var fe *api.FieldError
	if !errors.As(err, &fe) || fieldFlags[fe.Field] == "" {
		return err
	}
	ce := &ConfigError{Flag: fieldFlags[fe.Field], Reason: fe.Reason, Err: err}
	if fe.Value != nil {
		ce.Value = fmt.Sprint(fe.Value)
	}
	switch ce.Flag {
	case "--ca-file":
		ce.Value = f.CAFile
	case "--bootstrap-token-file":
		ce.Value = f.BootstrapTokenFile
		if f.BootstrapTokenFile == "" {
			ce.Flag = "$" + EnvBootstrapToken
		}
	}
	return ce
}

// readSetting reads the file a flag names; missing, unreadable or empty is a ConfigError.
func readSetting(flagName, path string) ([]byte, error) {
	if path == "" {
		return nil, &ConfigError{Flag: flagName, Reason: "is required on real Azure (or pass --simulate for fake nodes)"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ConfigError{Flag: flagName, Value: path, Reason: fmt.Sprintf("cannot be read: %v", errors.Unwrap(err))}
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, &ConfigError{Flag: flagName, Value: path, Reason: "is empty"}
	}
	return data, nil
}

// bootstrapToken reads the token from --bootstrap-token-file, else from $NAPKIT_BOOTSTRAP_TOKEN.
func bootstrapToken(path string, getenv func(string) string) (string, error) {
	if path != "" {
		data, err := readSetting("--bootstrap-token-file", path)
		return strings.TrimSpace(string(data)), err
	}
	if token := strings.TrimSpace(getenv(EnvBootstrapToken)); token != "" {
		return token, nil
	}
	return "", &ConfigError{Flag: "--bootstrap-token-file", Reason: "the bootstrap token is missing: set --bootstrap-token-file or $" + EnvBootstrapToken}
}
