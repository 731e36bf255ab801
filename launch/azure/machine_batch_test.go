package azure_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// headerBatch puts a fixture's launcher in mode aksmachineapiheaderbatch
// with the given batch timing (zero keeps the default).
func headerBatch(idle, maxWait time.Duration) func(*azure.Options) {
	return func(o *azure.Options) {
		machineMode(o)
		o.Mode = imagefamily.ModeMachineAPIHeaderBatch
		o.BatchIdle, o.BatchMax = idle, maxWait
		o.MaxConcurrency = 100
	}
}

// batchPuts are the batched Machine PUTs the simulator received, in order.
func batchPuts(sim *azuresim.Sim) []azuresim.Record {
	var out []azuresim.Record
	for _, r := range sim.Requests() {
		if r.Op == azuresim.OpMachinePut {
			out = append(out, r)
		}
	}
	return out
}

// goroutinesSettle fails unless the goroutine count drops back to base:
// nothing the batches started outlives them.
func goroutinesSettle(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), base, "goroutines left running")
}

// launchAt starts a Create of name after delay, on ctx; its outcome arrives
// on the returned channel.
type outcome struct {
	inst    *launch.Instance
	err     error
	elapsed time.Duration
}

func launchAt(t *testing.T, ctx context.Context, l *azure.Launcher, delay time.Duration, name string, cands ...launch.Candidate) <-chan outcome {
	t.Helper()
	req := machineRequest(t, name, cands...)
	out := make(chan outcome, 1)
	go func() {
		time.Sleep(delay)
		start := time.Now()
		inst, err := l.Create(ctx, req)
		out <- outcome{inst: inst, err: err, elapsed: time.Since(start)}
	}()
	return out
}

// 100 concurrent creates with one template go out as 2 PUTs of 50: full
// batches are sent at once, without waiting for the idle timer.
func TestHeaderBatch100ConcurrentCreates(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t, azuresim.Options{}, headerBatch(time.Minute, time.Minute))
	reqs := make([]*launch.Request, 100)
	for i := range reqs {
		reqs[i] = machineRequest(t, fmt.Sprintf("hb-%03d", i), candidate("Standard_D2s_v5", 2, zonal(0.1)...))
	}
	start := time.Now()
	results := launch.LaunchAll(context.Background(), f.launcher, reqs, len(reqs))
	assert.Less(t, time.Since(start), 30*time.Second, "full batches do not wait for the 1 min idle timer")

	puts := batchPuts(f.sim)
	require.Len(t, puts, 2)
	var named []string
	for _, p := range puts {
		require.Len(t, p.Batch, 50)
		assert.Equal(t, p.Batch[0], p.Name, "the PUT addresses its batch's first machine")
		body := jsonBody(t, p)
		assert.Nil(t, body["zones"], "zones go in the header")
		assert.Nil(t, field(body, "properties.tags"), "tags go in the header")
		assert.Equal(t, "Standard_D2s_v5", field(body, "properties.hardware.vmSize"))
		named = append(named, p.Batch...)
	}
	slices.Sort(named)
	var want []string
	for _, r := range reqs {
		want = append(want, r.NodeClaimName)
	}
	assert.Equal(t, want, named, "every machine in exactly one batch")
	assert.Equal(t, want, f.sim.MachineNames())
	assert.Equal(t, 2, f.sim.WriteCalls(), "two writes for 100 nodes")

	zones := map[string]int{}
	for _, r := range results {
		require.NoError(t, r.Err)
		inst := r.Instance
		assert.Equal(t, r.Request.NodeClaimName, inst.NodeClaimName, "each machine has its own tags")
		assert.Equal(t, azuresim.MachineVMName(testMachinesPool, r.Request.NodeClaimName), inst.Name)
		assert.Equal(t, launch.CapacityTypeSpot, inst.CapacityType)
		assert.Equal(t, launch.StateSucceeded, inst.State)
		zones[inst.Zone]++
	}
	assert.Greater(t, len(zones), 1, "machines of one batch land in their own zones: %v", zones)
	goroutinesSettle(t, base)
}

// batchClock is a fake clock for the batcher that counts the timers that fired and runs their
// callbacks on their own goroutine, as time.AfterFunc does (the fake runs them inside Step,
// holding the lock that a callback's Stop of its sibling timer waits on).
type batchClock struct {
	*testingclock.FakeClock
	fired atomic.Int32
}

func newBatchClock() *batchClock {
	return &batchClock{FakeClock: testingclock.NewFakeClock(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC))}
}

func (c *batchClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return c.FakeClock.AfterFunc(d, func() {
		c.fired.Add(1)
		go f()
	})
}

// A batch that is not full is sent BatchIdle after its last create; a create
// arriving before then keeps it open. The batcher's timers run on a fake
// clock, so "20 ms apart" and "BatchIdle after the last" are exact whatever
// the machine's load.
func TestHeaderBatchIdleCloses(t *testing.T) {
	const idle, gap = 200 * time.Millisecond, 20 * time.Millisecond
	f := newFixture(t, azuresim.Options{}, headerBatch(idle, time.Minute))
	clk := newBatchClock()
	azure.UseBatchClock(f.launcher, clk)
	cand := candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))
	var outs []<-chan outcome
	var want []string
	for i := range 5 {
		if i > 0 {
			clk.Step(gap)
		}
		want = append(want, fmt.Sprintf("idle-%d", i))
		outs = append(outs, launchAt(t, context.Background(), f.launcher, 0, want[i], cand))
		require.Eventually(t, func() bool { return azure.BatchWaiters(f.launcher) == i+1 },
			10*time.Second, time.Millisecond, "create %d joins the open batch", i)
	}
	clk.Step(idle - time.Nanosecond)
	assert.Zero(t, clk.fired.Load(), "no timer fires before BatchIdle after the last create")
	assert.Empty(t, batchPuts(f.sim))
	clk.Step(time.Nanosecond)
	assert.EqualValues(t, 1, clk.fired.Load(), "the idle timer fires BatchIdle after the last create")
	for _, o := range outs {
		require.NoError(t, (<-o).err)
	}
	puts := batchPuts(f.sim)
	require.Len(t, puts, 1, "creates 20 ms apart share one batch")
	assert.Equal(t, want, puts[0].Batch)
}

// A batch whose creates keep coming is sent BatchMax after it opened; the
// creates after it open the next batch. On a fake clock, creates 30 ms apart
// with BatchMax 150 ms make exactly the batches 0-120, 150-270 and 300-330 ms.
func TestHeaderBatchMaxCloses(t *testing.T) {
	const maxWait, gap = 150 * time.Millisecond, 30 * time.Millisecond
	f := newFixture(t, azuresim.Options{}, headerBatch(time.Minute, maxWait))
	clk := newBatchClock()
	azure.UseBatchClock(f.launcher, clk)
	cand := candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))
	// step moves the clock; a batch its max timer sent has left the open ones before the next create.
	step := func(d time.Duration) {
		fired := clk.fired.Load()
		clk.Step(d)
		if clk.fired.Load() > fired {
			require.Eventually(t, func() bool { return azure.BatchWaiters(f.launcher) == 0 }, 10*time.Second, time.Millisecond)
		}
	}
	var outs []<-chan outcome
	for i := range 12 {
		if i > 0 {
			step(gap)
		}
		waiting := azure.BatchWaiters(f.launcher)
		outs = append(outs, launchAt(t, context.Background(), f.launcher, 0, fmt.Sprintf("max-%02d", i), cand))
		require.Eventually(t, func() bool { return azure.BatchWaiters(f.launcher) == waiting+1 },
			10*time.Second, time.Millisecond, "create %d joins the open batch", i)
	}
	step(maxWait - 30*time.Millisecond) // the third batch opened at 300 ms; now 450 ms
	for _, o := range outs {
		require.NoError(t, (<-o).err)
	}
	var batches [][]string
	for _, p := range batchPuts(f.sim) {
		batches = append(batches, p.Batch)
	}
	// Each PUT goes out on the goroutine of the timer that sent it: they may arrive in any order.
	slices.SortFunc(batches, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	assert.Equal(t, [][]string{
		{"max-00", "max-01", "max-02", "max-03", "max-04"},
		{"max-05", "max-06", "max-07", "max-08", "max-09"},
		{"max-10", "max-11"},
	}, batches, "each batch sent BatchMax after its first create; the idle timer (1 min) never fired")
	assert.EqualValues(t, 3, clk.fired.Load())
	assert.Len(t, f.sim.MachineNames(), 12)
}

// A create whose context ends while its batch is open leaves the batch at
// once: the PUT never names it, and nothing is made for it. A batch all of
// whose creates left sends nothing.
func TestHeaderBatchCancelledWaiter(t *testing.T) {
	base := runtime.NumGoroutine()
	const idle = 300 * time.Millisecond
	f := newFixture(t, azuresim.Options{}, headerBatch(idle, time.Minute))
	cand := candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))

	ctx, cancel := context.WithCancel(context.Background())
	a := launchAt(t, context.Background(), f.launcher, 0, "cancel-a", cand)
	b := launchAt(t, ctx, f.launcher, 0, "cancel-b", cand)
	c := launchAt(t, context.Background(), f.launcher, 0, "cancel-c", cand)
	time.Sleep(50 * time.Millisecond)
	cancel()
	gotB := <-b
	var le *launch.LaunchError
	require.ErrorAs(t, gotB.err, &le)
	assert.Equal(t, launch.ReasonCloudError, le.Reason)
	assert.ErrorIs(t, gotB.err, context.Canceled)
	assert.Less(t, gotB.elapsed, idle, "the cancelled create returned before its batch was sent")
	require.NoError(t, (<-a).err)
	require.NoError(t, (<-c).err)

	puts := batchPuts(f.sim)
	require.Len(t, puts, 1)
	assert.ElementsMatch(t, []string{"cancel-a", "cancel-c"}, puts[0].Batch)
	assert.Equal(t, []string{"cancel-a", "cancel-c"}, f.sim.MachineNames())
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpMachineDelete, "cancel-b"))

	ctx2, cancel2 := context.WithCancel(context.Background())
	d := launchAt(t, ctx2, f.launcher, 0, "cancel-d", cand)
	e := launchAt(t, ctx2, f.launcher, 0, "cancel-e", cand)
	time.Sleep(50 * time.Millisecond)
	cancel2()
	require.ErrorIs(t, (<-d).err, context.Canceled)
	require.ErrorIs(t, (<-e).err, context.Canceled)
	time.Sleep(idle + 100*time.Millisecond)
	assert.Len(t, batchPuts(f.sim), 1, "an emptied batch sends nothing")
	goroutinesSettle(t, base)
}

// A create whose context ends after its batch was sent returns at once; the
// batch deletes the machine it made for it when the PUT answers.
func TestHeaderBatchCancelledAfterSend(t *testing.T) {
	base := runtime.NumGoroutine()
	f := newFixture(t, azuresim.Options{OpLatency: map[azuresim.Op]time.Duration{azuresim.OpMachinePut: 300 * time.Millisecond}},
		headerBatch(20*time.Millisecond, time.Minute), func(o *azure.Options) {
			o.ClientOptions.Retry.TryTimeout = 10 * time.Second // the slow PUT is not a hung one
		})
	cand := candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))
	ctx, cancel := context.WithCancel(context.Background())
	a := launchAt(t, context.Background(), f.launcher, 0, "late-a", cand)
	b := launchAt(t, ctx, f.launcher, 0, "late-b", cand)
	time.Sleep(120 * time.Millisecond) // the batch is sent at 20 ms; its PUT takes 300 ms
	cancel()
	gotB := <-b
	require.ErrorIs(t, gotB.err, context.Canceled)
	assert.Less(t, gotB.elapsed, 250*time.Millisecond, "returned before the PUT answered")
	require.NoError(t, (<-a).err)

	puts := batchPuts(f.sim)
	require.Len(t, puts, 1)
	assert.ElementsMatch(t, []string{"late-a", "late-b"}, puts[0].Batch)
	assert.Eventually(t, func() bool { return slices.Equal(f.sim.MachineNames(), []string{"late-a"}) }, 5*time.Second, 5*time.Millisecond,
		"the abandoned machine is deleted: %v", f.sim.MachineNames())
	assert.Len(t, f.sim.RequestsFor(azuresim.OpMachineDelete, "late-b"), 1)
	goroutinesSettle(t, base)
}

// An ARM error about the whole batch reaches every waiting create as its
// own typed error, classified as for a single PUT.
func TestHeaderBatchARMErrorFansOut(t *testing.T) {
	tests := []struct {
		name      string
		fault     azuresim.Fault
		wantIs    []error
		reason    launch.Reason
		wantPuts  int
		wantCache bool
	}{
		{name: "shared size refused", fault: azuresim.Fault{Kind: azuresim.FaultVMSizeNotSupported, Count: 1},
			wantIs: []error{launch.ErrSKUNotAvailable, launch.ErrInsufficientCapacity}, reason: launch.ReasonSKUNotAvailable,
			wantPuts: 1, wantCache: true},
		{name: "throttled", fault: azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpMachinePut, RetryAfter: time.Millisecond},
			wantIs: []error{launch.ErrThrottled}, reason: launch.ReasonThrottled, wantPuts: 4}, // azcore's 3 retries
		{name: "server error is not retried", fault: azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpMachinePut},
			wantIs: []error{launch.ErrCloud}, reason: launch.ReasonCloudError, wantPuts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, azuresim.Options{}, headerBatch(50*time.Millisecond, time.Minute))
			f.sim.Inject(tt.fault)
			cand := candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1), offering("westus2-2", launch.CapacityTypeOnDemand, 0.1))
			reqs := make([]*launch.Request, 5)
			for i := range reqs {
				reqs[i] = machineRequest(t, fmt.Sprintf("fan-%d", i), cand)
			}
			results := launch.LaunchAll(context.Background(), f.launcher, reqs, len(reqs))
			for _, r := range results {
				var le *launch.LaunchError
				require.ErrorAs(t, r.Err, &le, r.Request.NodeClaimName)
				assert.Equal(t, tt.reason, le.Reason)
				assert.Equal(t, r.Request.NodeClaimName, le.NodeClaimName, "each create has its own error")
				for _, want := range tt.wantIs {
					assert.ErrorIs(t, r.Err, want)
				}
				var re *azcore.ResponseError
				assert.ErrorAs(t, r.Err, &re, "the ARM answer stays reachable")
			}
			puts := batchPuts(f.sim)
			require.Len(t, puts, tt.wantPuts)
			for _, p := range puts {
				assert.Len(t, p.Batch, 5, "one batch for all five")
			}
			assert.Empty(t, f.sim.MachineNames())
			assert.Equal(t, tt.wantCache, f.launcher.Cache().IsUnavailable(d("Standard_D2s_v5", 2, "westus2-2", launch.CapacityTypeOnDemand)))
		})
	}
}

// Per-machine failures in the batch's answer reach only their machines,
// classified by their own codes; the others launch. A machine AKS fails
// later is seen through its own GETs.
func TestHeaderBatchPerMachineErrors(t *testing.T) {
	od := launch.CapacityTypeOnDemand
	f := newFixture(t, azuresim.Options{}, headerBatch(30*time.Millisecond, time.Minute))
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultSkuNotAvailable, Name: "pm-sku", Count: 1})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultMachineInternalError, Name: "pm-internal", Count: 1})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultAllocationFailed, Name: "pm-alloc", Async: true, Count: 1})
	cand := candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1), offering("0", od, 0.2))
	names := []string{"pm-ok", "pm-sku", "pm-internal", "pm-alloc"}
	reqs := make([]*launch.Request, len(names))
	for i, n := range names {
		reqs[i] = machineRequest(t, n, cand)
	}
	results := launch.LaunchAll(context.Background(), f.launcher, reqs, len(reqs))
	got := map[string]error{}
	zone := map[string]string{}
	for _, r := range results {
		got[r.Request.NodeClaimName] = r.Err
		if r.Instance != nil {
			zone[r.Request.NodeClaimName] = r.Instance.Zone
		}
	}
	require.NoError(t, got["pm-ok"])
	assert.Equal(t, "westus2-1", zone["pm-ok"])
	require.NoError(t, got["pm-sku"], "SkuNotAvailable moved it to the next offering")
	assert.Equal(t, launch.RegionalZone, zone["pm-sku"])
	require.NoError(t, got["pm-alloc"], "the failed machine was deleted and the next offering tried")
	assert.Equal(t, launch.RegionalZone, zone["pm-alloc"])
	var le *launch.LaunchError
	require.ErrorAs(t, got["pm-internal"], &le)
	assert.Equal(t, launch.ReasonCloudError, le.Reason, "an internal error is not the offering's fault")
	assert.ErrorContains(t, got["pm-internal"], "InternalOperationError")
	assert.True(t, f.launcher.Cache().IsUnavailable(d("Standard_D2s_v5", 2, "westus2-1", od)), "marked by pm-sku's and pm-alloc's failures")

	puts := batchPuts(f.sim)
	require.GreaterOrEqual(t, len(puts), 2)
	assert.ElementsMatch(t, names, puts[0].Batch, "one first batch for all four")
	assert.Equal(t, []string{"pm-alloc", "pm-ok", "pm-sku"}, f.sim.MachineNames())
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpMachineDelete, "pm-sku"), "a machine the batch refused was never made")
	assert.Len(t, f.sim.RequestsFor(azuresim.OpMachineDelete, "pm-alloc"), 1)
}

// Bodies that differ beyond name, zones and tags go in different batches.
func TestHeaderBatchGroupsByTemplate(t *testing.T) {
	od := launch.CapacityTypeOnDemand
	f := newFixture(t, azuresim.Options{}, headerBatch(50*time.Millisecond, time.Minute))
	var wg sync.WaitGroup
	for i := range 6 {
		sku := []string{"Standard_D2s_v5", "Standard_D4s_v5"}[i%2]
		req := machineRequest(t, fmt.Sprintf("tpl-%d", i), candidate(sku, 2, offering(fmt.Sprintf("westus2-%d", i%3+1), od, 0.1)))
		wg.Go(func() {
			_, err := f.launcher.Create(context.Background(), req)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	puts := batchPuts(f.sim)
	require.Len(t, puts, 2)
	sizes := map[string][]string{}
	for _, p := range puts {
		sizes[field(jsonBody(t, p), "properties.hardware.vmSize").(string)] = slices.Sorted(slices.Values(p.Batch))
	}
	assert.Equal(t, map[string][]string{
		"Standard_D2s_v5": {"tpl-0", "tpl-2", "tpl-4"},
		"Standard_D4s_v5": {"tpl-1", "tpl-3", "tpl-5"},
	}, sizes)
}

func TestHeaderBatchOptions(t *testing.T) {
	for _, tt := range []struct {
		mutate func(*azure.Options)
		want   string
	}{
		{func(o *azure.Options) { o.BatchIdle = -time.Second }, "BatchIdle must not be negative"},
		{func(o *azure.Options) { o.BatchMax = -time.Second }, "BatchMax must not be negative"},
		{func(o *azure.Options) { o.BatchMaxSize = 51 }, "BatchMaxSize must be between 1 and 50"},
		{func(o *azure.Options) { o.BatchMaxSize = -1 }, "BatchMaxSize must be between 1 and 50"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			sim := azuresim.New(azuresim.Options{})
			opts := azure.Options{SubscriptionID: "sub", ResourceGroup: "rg", Location: "westus2", ClusterName: "c", Credential: sim.Credential()}
			headerBatch(0, 0)(&opts)
			tt.mutate(&opts)
			_, err := azure.NewLauncher(opts)
			require.ErrorIs(t, err, launch.ErrInvalidOptions)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// A batch of one still goes out with the header: every create in this mode
// does.
func TestHeaderBatchOfOne(t *testing.T) {
	f := newFixture(t, azuresim.Options{}, headerBatch(10*time.Millisecond, time.Minute))
	inst, err := f.launcher.Create(context.Background(), machineRequest(t, "solo", candidate("Standard_D2s_v5", 2, offering("0", launch.CapacityTypeOnDemand, 0.1))))
	require.NoError(t, err)
	assert.Equal(t, launch.RegionalZone, inst.Zone)
	puts := batchPuts(f.sim)
	require.Len(t, puts, 1)
	assert.Equal(t, []string{"solo"}, puts[0].Batch)
	assert.False(t, errors.Is(err, launch.ErrCloud))
}
