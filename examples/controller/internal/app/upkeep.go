package app

import (
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/napkit/napkit/kubeversion"
	"github.com/napkit/napkit/pricing"
)

// livePrices is the price provider --prices asks for: live (the Retail Prices API, which needs no
// credential, refreshed by the controller) for real Azure; nil, the embedded snapshot, with
// --prices embedded and under --simulate, whose simulated Azure sells at the snapshot's prices.
func livePrices(f *Flags) (*pricing.Provider, error) {
	switch f.Prices {
	case "embedded":
		return nil, nil
	case "live":
		if f.Simulate {
			return nil, nil
		}
		client, err := pricing.NewClient(pricing.ClientOptions{})
		if err != nil {
			return nil, err
		}
		return pricing.NewProvider(pricing.ProviderOptions{Client: client, Regions: []string{f.Location}})
	}
	return nil, &ConfigError{Flag: "--prices", Value: f.Prices, Reason: "must be live or embedded"}
}

// nodeKubernetesVersion asks the API server for its version and returns the one nodes boot:
// pinned, if given and not newer than the control plane, else the control plane's.
func nodeKubernetesVersion(kube kubernetes.Interface, pinned string) (string, error) {
	info, err := kube.Discovery().ServerVersion()
	if err != nil {
		return "", fmt.Errorf("API server /version: %w", err)
	}
	server, err := kubeversion.FromServer(info)
	if err != nil {
		return "", err
	}
	version, err := kubeversion.ForNodes(server, pinned)
	if err != nil {
		return "", &ConfigError{Flag: "--kubernetes-version", Value: pinned, Reason: err.Error()}
	}
	return version, nil
}
