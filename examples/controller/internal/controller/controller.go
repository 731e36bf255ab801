package controller

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// Controller is napkit's node autoprovisioning controller. Build it with New and start it with
// Run.
type Controller struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	inf     *informerSet
	batcher *Batcher
	// claimQ and nodeQ hold NodeClaim and Node names to reconcile; a name is never reconciled by two
	// workers at once.
	claimQ, nodeQ workqueue.TypedRateLimitingInterface[string]
	state         *state
	planned       *plannedPods
	reserved      *reservedClaims
	mates         *batchMates
	nominations   *podNominations
	catalogues    *catalogueCache
	versions      versionCache
	repairNotes   repairNotes
	quota         quotaState
	launchSlots   chan struct{}
	ready         atomic.Bool
	// evictMu makes reading a pod's PDBs and evicting it one step across the node workers, so two
	// drains never both spend the same allowance (pdbgate.go).
	evictMu sync.Mutex
	// nominateMu makes counting the budget of unbound nominations and spending it one step
	// (nominatePods), so two registrations never both spend the same room.
	nominateMu sync.Mutex
	// commands are the disruption commands under way (start); the disruption loop waits for them
	// before it returns.
	commands sync.WaitGroup
	// consolidated lets disruption passes skip the Underutilized method while nothing changed
	// (consolidated.go).
	consolidated consolidatedMemo
}

// New checks cfg, fills its defaults and builds the controller; nothing runs until Run.
func New(cfg Config) (*Controller, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	inf, err := newInformers(cfg)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(cfg.Metrics, inf)
	if err != nil {
		return nil, err
	}
	c := &Controller{
		cfg: cfg, log: cfg.Logger, metrics: m, inf: inf,
		batcher:     NewBatcher(cfg.BatchIdle, cfg.BatchMax),
		claimQ:      newQueue("nodeclaims"),
		nodeQ:       newQueue("nodes"),
		state:       newState(),
		planned:     newPlannedPods(),
		reserved:    newReservedClaims(),
		mates:       newBatchMates(),
		nominations: newPodNominations(),
		catalogues:  newCatalogueCache(cfg.Catalogue, cfg.Offerings),
		launchSlots: make(chan struct{}, cfg.MaxConcurrentLaunches),
	}
	c.catalogues.quota = c.quota.current
	if p := cfg.Upkeep.Prices; p != nil {
		c.catalogues.pricesAt = p.LastUpdated
	}
	if err := c.registerPriceAge(); err != nil {
		return nil, err
	}
	if err := c.addHandlers(); err != nil {
		return nil, err
	}
	return c, nil
}

// newQueue retries failed items from 100 ms up to 10 s apart, Karpenter's eviction backoff.
func newQueue(name string) workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 10*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
}

// Run starts the informers and, once they are synced (and the Lease is held, when leader
// election is configured), the provisioning, disruption and garbage-collection loops and the
// reconcilers. It returns when ctx ends; the error is nil then.
func (c *Controller) Run(ctx context.Context) error {
	stopHTTP, err := c.serveHTTP(ctx)
	if err != nil {
		return err
	}
	defer stopHTTP()
	// The informers stop, and Run waits for them, when Run returns: also when it returns before
	// ctx ends (a lost Lease).
	infCtx, stopInformers := context.WithCancel(ctx)
	defer func() { stopInformers(); c.inf.shutdown() }()
	if err := c.inf.start(infCtx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	c.ready.Store(true)
	c.log.Info("caches synced; controller ready")
	if c.cfg.LeaderElectionName != "" {
		return c.runAsLeader(ctx, c.runLoops)
	}
	c.runLoops(ctx)
	return nil
}

// runLoops runs every loop until ctx ends.
func (c *Controller) runLoops(ctx context.Context) {
	var wg sync.WaitGroup
	if c.cfg.Upkeep.ImageVersions != nil {
		c.updateNodeClasses(ctx) // nodes boot what the status says: write it before the first launch
	}
	loops := []func(context.Context){c.provisionLoop, c.disruptionLoop, c.gcLoop, c.nodeClassLoop, c.repairLoop, c.quotaLoop, c.priceLoop}
	for range c.cfg.Workers {
		loops = append(loops, c.nodeWorker)
	}
	for range c.cfg.ClaimWorkers {
		loops = append(loops, c.claimWorker)
	}
	for _, loop := range loops {
		wg.Go(func() { loop(ctx) })
	}
	<-ctx.Done()
	c.claimQ.ShutDown()
	c.nodeQ.ShutDown()
	wg.Wait()
}

func (c *Controller) claimWorker(ctx context.Context) {
	c.work(ctx, "NodeClaim", c.claimQ, c.reconcileClaim)
}
func (c *Controller) nodeWorker(ctx context.Context) { c.work(ctx, "Node", c.nodeQ, c.reconcileNode) }

// work takes names off q until it shuts down. A reconcile returns how long to wait before looking
// again (0: only on the next change) or an error, retried with backoff.
func (c *Controller) work(ctx context.Context, kind string, q workqueue.TypedRateLimitingInterface[string],
	reconcile func(context.Context, string) (time.Duration, error)) {
	for {
		name, shutdown := q.Get()
		if shutdown {
			return
		}
		began := time.Now()
		after, err := reconcile(ctx, name)
		c.metrics.reconcileTime.WithLabelValues(kind).Observe(time.Since(began).Seconds())
		switch {
		case err != nil && ctx.Err() == nil:
			level := slog.LevelError
			if errors.Is(err, errEvictionBlocked) {
				level = slog.LevelInfo // a PDB doing its job
			}
			c.log.Log(ctx, level, "reconcile failed; retrying", "kind", kind, "name", name, "error", err)
			q.AddRateLimited(name)
		case after > 0:
			q.Forget(name)
			q.AddAfter(name, after)
		default:
			q.Forget(name)
		}
		q.Done(name)
	}
}

func (c *Controller) now() time.Time { return c.cfg.Clock() }
