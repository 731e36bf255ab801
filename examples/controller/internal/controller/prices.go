package controller

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/napkit/napkit/pricing"
)

// priceLoop refreshes Upkeep.Prices from the Retail Prices API at once and every
// Upkeep.PriceRefresh (12 h, upstream's pricingUpdatePeriod). A failed refresh keeps the last good
// table (pricing.Provider never makes prices worse) and is retried at the next tick.
func (c *Controller) priceLoop(ctx context.Context) {
	if c.cfg.Upkeep.Prices == nil {
		return
	}
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := c.cfg.Upkeep.Prices.Refresh(ctx); err != nil && ctx.Err() == nil {
			c.log.Error("refreshing prices failed; keeping the last good price table", "error", err)
			return
		}
		c.log.Info("prices refreshed", "at", c.cfg.Upkeep.Prices.LastUpdated())
	}, c.cfg.Upkeep.PriceRefresh)
}

// priceAge is napkit_prices_age_seconds: how old the price table in use is. With live prices it
// is the time since the last successful refresh (source="live"); before the first one, and
// without live prices, the embedded snapshot is in use and the age counts from the controller's
// start (source="embedded").
type priceAge struct {
	prices  *pricing.Provider
	started time.Time
	clock   func() time.Time
}

var priceAgeDesc = prometheus.NewDesc("napkit_prices_age_seconds",
	"Age of the price table in use: since the last successful Retail Prices API refresh, or since start for the embedded snapshot.",
	[]string{"source"}, nil)

func (p *priceAge) Describe(ch chan<- *prometheus.Desc) { ch <- priceAgeDesc }

func (p *priceAge) Collect(ch chan<- prometheus.Metric) {
	now := p.clock()
	if p.prices != nil {
		if at := p.prices.LastUpdated(); !at.IsZero() {
			ch <- prometheus.MustNewConstMetric(priceAgeDesc, prometheus.GaugeValue, now.Sub(at).Seconds(), "live")
			return
		}
	}
	ch <- prometheus.MustNewConstMetric(priceAgeDesc, prometheus.GaugeValue, now.Sub(p.started).Seconds(), "embedded")
}

// registerPriceAge adds the price-age metric to the registry.
func (c *Controller) registerPriceAge() error {
	err := c.cfg.Metrics.Register(&priceAge{prices: c.cfg.Upkeep.Prices, started: c.now(), clock: c.cfg.Clock})
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		return nil
	}
	return err
}
