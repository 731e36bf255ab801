package simnodes

import (
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// RemoteOptions configure NewRemoteAzure.
type RemoteOptions struct {
	// Endpoint is the base URL (https://host:port) where another process serves its simulated
	// Azure (azuresim's Sim.Handler); that process runs the simulated kubelets too, since they
	// read its VMs.
	Endpoint string
	// Location, ResourceGroup and ClusterName must be the serving process's (NewAzure's options).
	Location, ResourceGroup, ClusterName string
	// Offerings is the unavailable-offerings cache the launcher marks (share it with the controller).
	Offerings *launch.UnavailableOfferings
	// Transport carries the requests; nil is azcore's HTTP client, which trusts the system's roots
	// and SSL_CERT_FILE (how a test hands the controller its server's certificate).
	Transport policy.Transporter
	Logger    *slog.Logger
}

// NewRemoteAzure returns the real Azure launcher and the Upkeep sources (image discovery, vCPU
// usages) of a simulated Azure served by another process: the real armcompute/armnetwork clients
// with the Resource Manager endpoint moved to Endpoint, and the simulator's fixed token as the
// credential. It is for tests that run the controller in its own process (the scale suite's
// NAPKIT_SCALE_CONTROLLER=process, to measure its memory alone); no real Azure accepts the token.
// The endpoint is not a public cloud's, so VMs get no AKS billing extension (one PUT less per VM
// than the in-process simulation makes).
func NewRemoteAzure(o RemoteOptions) (*azure.Launcher, controller.Upkeep, error) {
	u, err := url.Parse(o.Endpoint)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, controller.Upkeep{}, fmt.Errorf("simulated Azure endpoint %q: want https://host:port", o.Endpoint)
	}
	client := remoteClientOptions(o.Endpoint, o.Transport)
	l, err := azure.NewLauncher(azure.Options{
		SubscriptionID: azuresim.DefaultSubscriptionID, ResourceGroup: o.ResourceGroup, Location: o.Location,
		ClusterName: o.ClusterName, Credential: azuresim.Credential{}, ClientOptions: client,
		PollFrequency: 10 * time.Millisecond, PollRate: math.Inf(1),
		RequestRates: azure.UnlimitedRequestRates(), Cache: o.Offerings, Logger: o.Logger,
	})
	if err != nil {
		return nil, controller.Upkeep{}, fmt.Errorf("launcher on the simulated Azure at %s: %w", o.Endpoint, err)
	}
	up, err := upkeepOn(azuresim.DefaultSubscriptionID, o.Location, client, UpkeepOptions{})
	if err != nil {
		return nil, controller.Upkeep{}, err
	}
	return l, up, nil
}

// remoteClientOptions point the ARM clients' Resource Manager at endpoint. The authority host is
// never asked: the credential issues its token without it.
func remoteClientOptions(endpoint string, transport policy.Transporter) *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: policy.ClientOptions{Transport: transport, Cloud: cloud.Configuration{
		ActiveDirectoryAuthorityHost: endpoint,
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: endpoint, Audience: endpoint},
		},
	}}}
}
