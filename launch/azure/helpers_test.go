package azure_test

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

const (
	testRG         = "MC_rg_napkit_westus2"
	testCluster    = "napkit"
	testSubnet     = "/subscriptions/sub/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"
	testCIG        = "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202501.01.0"
	testSIG        = "/subscriptions/sig/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/202501.01.0"
	testCustomData = "I2Jvb3RzdHJhcC10b2tlbjogYWJjZGVmLjAxMjM0NTY3ODlhYmNkZWY=" // "#bootstrap-token: abcdef.0123456789abcdef"
	testSSHKey     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests napkit"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fastRetry keeps azcore's retry policy, with test-sized delays.
func fastRetry() policy.RetryOptions {
	return policy.RetryOptions{
		MaxRetries:    3,
		RetryDelay:    time.Millisecond,
		MaxRetryDelay: 500 * time.Millisecond,
		TryTimeout:    300 * time.Millisecond,
	}
}

type fixture struct {
	sim      *azuresim.Sim
	launcher *azure.Launcher
	clock    *fakeClock
}

// newFixture runs a real Launcher against a fresh simulated Azure.
func newFixture(t testing.TB, simOpts azuresim.Options, mutate ...func(*azure.Options)) *fixture {
	t.Helper()
	clock := newFakeClock()
	if simOpts.Clock == nil {
		simOpts.Clock = clock.Now
	}
	sim := azuresim.New(simOpts)
	clientOpts := sim.ClientOptions()
	clientOpts.Retry = fastRetry()
	opts := azure.Options{
		SubscriptionID: sim.SubscriptionID(),
		ResourceGroup:  testRG,
		Location:       sim.Location(),
		ClusterName:    testCluster,
		Credential:     sim.Credential(),
		ClientOptions:  clientOpts,
		PollFrequency:  time.Millisecond,
		PollRate:       math.Inf(1), // tests that count polls or calls set their own
		RequestRates:   azure.UnlimitedRequestRates(),
		Seed:           42,
		Clock:          clock.Now,
	}
	for _, m := range mutate {
		m(&opts)
	}
	l, err := azure.NewLauncher(opts)
	require.NoError(t, err)
	return &fixture{sim: sim, launcher: l, clock: clock}
}

func offering(zone, capacityType string, price float64) launch.Offering {
	return launch.Offering{Zone: zone, CapacityType: capacityType, Price: price, Available: true}
}

// zonal is the usual offering set: three zones plus regional, on-demand at
// price and spot at a fifth of it.
func zonal(price float64) []launch.Offering {
	var out []launch.Offering
	for _, z := range []string{"westus2-1", "westus2-2", "westus2-3", "0"} {
		out = append(out, offering(z, launch.CapacityTypeOnDemand, price), offering(z, launch.CapacityTypeSpot, price/5))
	}
	return out
}

func candidate(sku string, vcpus int, offerings ...launch.Offering) launch.Candidate {
	return launch.Candidate{
		SKU: sku, Family: "standardDSv5Family", VCPUs: vcpus, AcceleratedNetworking: true, Offerings: offerings,
	}
}

func request(name string, candidates ...launch.Candidate) *launch.Request {
	return &launch.Request{
		NodeClaimName: name,
		NodePool:      "default",
		Candidates:    candidates,
		Image:         launch.ImageRef{CommunityGalleryImageID: testCIG},
		CustomData:    bootstrap.NewSecret(testCustomData),
		OSDiskSizeGB:  128,
		SubnetID:      testSubnet,
		SSHPublicKey:  testSSHKey,
	}
}

// jsonBody decodes a recorded request body.
func jsonBody(t testing.TB, r azuresim.Record) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m))
	return m
}

// field walks a dotted path through decoded JSON; numeric segments index arrays.
func field(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, ch := range p {
				i = i*10 + int(ch-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// lastPut returns the body of the last PUT of op on name.
func lastPut(t testing.TB, sim *azuresim.Sim, op azuresim.Op, name string) map[string]any {
	t.Helper()
	recs := sim.RequestsFor(op, name)
	require.NotEmpty(t, recs, "no %s request for %s", op, name)
	return jsonBody(t, recs[len(recs)-1])
}

// countRequests counts the requests the simulator received that match.
func countRequests(sim *azuresim.Sim, match func(azuresim.Record) bool) int {
	n := 0
	for _, r := range sim.Requests() {
		if match(r) {
			n++
		}
	}
	return n
}

// ofOp matches the requests of op, and throttledOf those refused with 429.
func ofOp(op azuresim.Op) func(azuresim.Record) bool {
	return func(r azuresim.Record) bool { return r.Op == op }
}

func throttledOf(op azuresim.Op) func(azuresim.Record) bool {
	return func(r azuresim.Record) bool { return r.Op == op && r.Status == http.StatusTooManyRequests }
}
