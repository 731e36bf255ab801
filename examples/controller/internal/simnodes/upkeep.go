package simnodes

import (
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"

	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/launch/discovery"
)

// PublishNodeImages publishes version of every Linux node image definition (all families and
// variants) in the simulated galleries, as AKS's weekly node image release does.
func PublishNodeImages(sim *azuresim.Sim, version string, at time.Time) {
	families := []imagefamily.Family{imagefamily.Ubuntu2004, imagefamily.Ubuntu2204, imagefamily.Ubuntu2404,
		imagefamily.AzureLinux2, imagefamily.AzureLinux3}
	variants := []imagefamily.Variant{imagefamily.VariantStandard, imagefamily.VariantTrustedLaunch,
		imagefamily.VariantFIPS, imagefamily.VariantFIPSTrustedLaunch}
	seen := map[string]bool{}
	for _, f := range families {
		for _, v := range variants {
			for _, d := range imagefamily.Definitions(f, v) {
				if !seen[d.Name] {
					seen[d.Name] = true
					sim.PublishImageVersion(d.Name, azuresim.ImageVersion{Version: version, PublishedAt: at})
				}
			}
		}
	}
}

// UpkeepOptions configure Upkeep.
type UpkeepOptions struct {
	// ImageTTL is how long discovered image versions are reused (discovery's 3 days when 0);
	// short in tests, so a newly published version is seen at once.
	ImageTTL, UsageTTL time.Duration
	Clock              func() time.Time
}

// Upkeep returns the controller's Upkeep sources on the simulated Azure: image discovery and vCPU
// usages through the real armcompute clients, the simulator as their transport.
func Upkeep(sim *azuresim.Sim, o UpkeepOptions) (controller.Upkeep, error) {
	return upkeepOn(sim.SubscriptionID(), sim.Location(), sim.ClientOptions(), o)
}

// upkeepOn is Upkeep on the simulated Azure the client options reach (in this process, or served
// by another).
func upkeepOn(sub, location string, client *arm.ClientOptions, o UpkeepOptions) (controller.Upkeep, error) {
	cred := azuresim.Credential{}
	images, err := discovery.NewImages(discovery.ImagesOptions{SubscriptionID: sub,
		SIGSubscriptionID: sub, Location: location, Credential: cred,
		ClientOptions: client, TTL: o.ImageTTL, Clock: o.Clock})
	if err != nil {
		return controller.Upkeep{}, fmt.Errorf("image discovery on the simulated Azure: %w", err)
	}
	usage, err := discovery.NewUsage(discovery.UsageOptions{SubscriptionID: sub, Location: location,
		Credential: cred, ClientOptions: client, TTL: o.UsageTTL, Clock: o.Clock})
	if err != nil {
		return controller.Upkeep{}, fmt.Errorf("usage discovery on the simulated Azure: %w", err)
	}
	return controller.Upkeep{ImageVersions: images, Usage: usage}, nil
}
