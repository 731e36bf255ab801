package app

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCA is a PEM frame, all bootstrap.Cluster.Validate checks of a CA.
var testCA = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("ca-der")}))

const (
	testToken = "abcdef.0123456789abcdef"
	testGUID  = "00000000-0000-0000-0000-000000000001"
)

// realFlags parses a complete real-Azure command line in dir, then applies extra flags.
func realFlags(t *testing.T, dir string, extra ...string) *Flags {
	t.Helper()
	ca := filepath.Join(dir, "ca.crt")
	key := filepath.Join(dir, "id.pub")
	require.NoError(t, os.WriteFile(ca, []byte(testCA), 0o600))
	require.NoError(t, os.WriteFile(key, []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA test\n"), 0o600))
	args := []string{"--kubeconfig", "kc", "--subscription-id", testGUID, "--tenant-id", testGUID,
		"--resource-group", "MC_rg_c_eastus", "--cluster-name", "c", "--api-server", "c-dns.hcp.eastus.azmk8s.io",
		"--ca-file", ca, "--ssh-public-key-file", key,
		"--subnet-id", "/subscriptions/" + testGUID + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s"}
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	var f Flags
	f.Register(fs)
	require.NoError(t, fs.Parse(append(args, extra...)))
	return &f
}

func env(token string) func(string) string {
	return func(name string) string {
		if name == EnvBootstrapToken {
			return token
		}
		return ""
	}
}

func TestClusterSettingsComplete(t *testing.T) {
	f := realFlags(t, t.TempDir())
	cluster, key, err := clusterSettings(f, env(testToken))
	require.NoError(t, err)
	assert.Equal(t, "c-dns.hcp.eastus.azmk8s.io", cluster.APIServerHost)
	assert.Equal(t, testCA, string(cluster.CACertificate))
	assert.Equal(t, testToken, cluster.BootstrapToken.Reveal())
	assert.Equal(t, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA test", key)

	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o600))
	f = realFlags(t, t.TempDir(), "--bootstrap-token-file", tokenFile)
	cluster, _, err = clusterSettings(f, env(""))
	require.NoError(t, err)
	assert.Equal(t, testToken, cluster.BootstrapToken.Reveal(), "the file wins, trimmed")
}

// Every missing or wrong setting stops the start with an error naming the flag (and the value,
// except a secret's).
func TestClusterSettingsErrorsNameTheFlag(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		token string
		want  []string
	}{
		{name: "no subnet", extra: []string{"--subnet-id", ""}, token: testToken, want: []string{"--subnet-id: is required"}},
		{name: "no subscription", extra: []string{"--subscription-id", ""}, token: testToken, want: []string{"--subscription-id: is required"}},
		{name: "no api server", extra: []string{"--api-server", ""}, token: testToken, want: []string{"--api-server: is required"}},
		{name: "unreadable CA", extra: []string{"--ca-file", "/nonexistent/ca.crt"}, token: testToken,
			want: []string{`--ca-file "/nonexistent/ca.crt": cannot be read: no such file or directory`}},
		{name: "no CA", extra: []string{"--ca-file", ""}, token: testToken, want: []string{"--ca-file: is required"}},
		{name: "token missing", want: []string{"--bootstrap-token-file: the bootstrap token is missing: set --bootstrap-token-file or $NAPKIT_BOOTSTRAP_TOKEN"}},
		{name: "token file unreadable", extra: []string{"--bootstrap-token-file", "/nonexistent/token"}, token: testToken,
			want: []string{`--bootstrap-token-file "/nonexistent/token": cannot be read`}},
		{name: "bad token", token: "not-a-token-s3cret", want: []string{"cluster settings:", "$NAPKIT_BOOTSTRAP_TOKEN: must be a bootstrap token"}},
		{name: "bad token file", extra: []string{"--bootstrap-token-file", "TOKENFILE"}, want: []string{`--bootstrap-token-file "`, `token": must be a bootstrap token`}},
		{name: "bad subnet", extra: []string{"--subnet-id", "subnet-1"}, token: testToken, want: []string{"cluster settings:", `--subnet-id "subnet-1": want /subscriptions/`}},
		{name: "bad tenant", extra: []string{"--tenant-id", "tenant"}, token: testToken, want: []string{"cluster settings:", `--tenant-id "tenant": must match`}},
		{name: "bad CA", extra: []string{"--ca-file", "NOTPEM"}, token: testToken, want: []string{`--ca-file "`, `notpem": must be exactly one PEM CERTIFICATE block`}},
		{name: "several at once", extra: []string{"--subnet-id", "", "--cluster-name", ""},
			want: []string{"--subnet-id: is required", "--cluster-name: is required", "bootstrap token is missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, arg := range tt.extra {
				switch arg {
				case "TOKENFILE": // a readable file holding a malformed token
					tt.extra[i] = filepath.Join(dir, "token")
					require.NoError(t, os.WriteFile(tt.extra[i], []byte("not-a-token-s3cret\n"), 0o600))
				case "NOTPEM": // a readable CA file that is no certificate
					tt.extra[i] = filepath.Join(dir, "notpem")
					require.NoError(t, os.WriteFile(tt.extra[i], []byte("hello\n"), 0o600))
				}
			}
			f := realFlags(t, dir, tt.extra...)
			_, _, err := clusterSettings(f, env(tt.token))
			require.Error(t, err)
			assert.True(t, IsConfigError(err), "%v is a ConfigError", err)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
			assert.NotContains(t, err.Error(), "0123456789abcdef", "the token's secret never shows")
			assert.NotContains(t, err.Error(), "s3cret", "the token's secret never shows")
		})
	}
}

// Against a cluster, no simulation happens by accident: without --simulate a missing Azure setting
// stops Run before anything connects; --simulate with real-Azure flags is a contradiction; and
// without a cluster the Azure flags are an error, not silently ignored.
func TestRunRefusesAccidentalSimulation(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "cluster without Azure settings", args: []string{"--kubeconfig", kubeconfig},
			want: "--subscription-id: is required on real Azure (or pass --simulate for fake nodes)"},
		{name: "simulate with Azure flags", args: []string{"--kubeconfig", kubeconfig, "--simulate", "--subscription-id", testGUID},
			want: "--simulate: contradicts the real-Azure flags --subscription-id"},
		{name: "Azure flags without a cluster", args: []string{"--cluster-name", "c"},
			want: "--kubeconfig: is required with --cluster-name"},
		{name: "simulate without a cluster", args: []string{"--simulate"}, want: "--kubeconfig: is required with --simulate"},
		{name: "provision mode without a cluster", args: []string{"--provision-mode", "aksmachineapi", "--aks-machines-pool-name", "napkit"},
			want: "--kubeconfig: is required with --provision-mode, --aks-machines-pool-name"},
		{name: "bootstrapping client mode", args: []string{"--kubeconfig", kubeconfig, "--simulate", "--provision-mode", "bootstrappingclient"},
			want: `--provision-mode "bootstrappingclient": is not supported by this controller`},
		{name: "machine API on a simulated Azure endpoint", args: []string{"--kubeconfig", kubeconfig, "--simulate",
			"--provision-mode", "aksmachineapiheaderbatch", "--aks-machines-pool-name", "napkit", "--sim-azure-endpoint", "https://127.0.0.1:1"},
			want: `--sim-azure-endpoint "https://127.0.0.1:1": serves the VM mode only, not --provision-mode=aksmachineapiheaderbatch`},
		{name: "simulated Azure endpoint without --simulate", args: []string{"--kubeconfig", kubeconfig, "--sim-azure-endpoint", "https://127.0.0.1:1"},
			want: `--sim-azure-endpoint "https://127.0.0.1:1": needs --simulate`},
		{name: "simulated Azure endpoint over plain http", args: []string{"--kubeconfig", kubeconfig, "--simulate", "--sim-azure-endpoint", "http://127.0.0.1:1"},
			want: `--sim-azure-endpoint "http://127.0.0.1:1": must be an https://host:port URL`},
		{name: "pprof address that cannot listen", args: []string{"--kubeconfig", kubeconfig, "--simulate", "--pprof-addr", "256.0.0.1:0"},
			want: `--pprof-addr "256.0.0.1:0": cannot listen`},
		{name: "bad log level", args: []string{"--log-level", "loud"}, want: `--log-level "loud": must be debug, info, warn or error`},
		{name: "bad log format", args: []string{"--log-format", "xml"}, want: `--log-format "xml": must be text or json`},
	}
	writeKubeconfig(t, kubeconfig)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("controller", flag.ContinueOnError)
			var f Flags
			f.Register(fs)
			require.NoError(t, fs.Parse(tt.args))
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), &f, &stdout, &stderr)
			require.Error(t, err)
			var cfgErr *ConfigError
			assert.True(t, errors.As(err, &cfgErr), "%v is a ConfigError", err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, stdout.String(), "nothing ran")
		})
	}
}

// writeKubeconfig points at a closed port: Run must fail on its settings before it talks to it.
func writeKubeconfig(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600))
}
