package provisioner

import (
	"fmt"
	"math"
	"time"
)

// Solve plans capacity for the input's pending pods: which existing nodes and in-flight claims take
// which pods, which NodeClaims to create, why each remaining pod cannot run, the price and a lower
// bound on the price of any plan placing the same pods.
//
// It returns an error only for invalid input (wrapping ErrInvalidInput, naming the object and the
// field); pods that cannot be placed are reported in Plan.Unschedulable. Solve is pure: it reads
// no clock for decisions (Stats.SolveMillis and the improvement budget aside), keeps no state, and
// the same Input gives the same Plan.
func Solve(in Input) (*Plan, error) {
	start := time.Now()
	opts := in.Options.withDefaults()
	if err := validateOptions(opts); err != nil {
		return nil, err
	}
	if err := validateBuffers(in.CapacityBuffers); err != nil {
		return nil, err
	}
	p, err := compile(&in, opts, false)
	if err != nil {
		return nil, err
	}
	main := p.newEngine(false)
	chs := main.run()
	plan := main.render(chs)
	if !opts.DisableBaseline {
		// The baseline is a second run over the same problem, from its own fresh state.
		base := p.newEngine(true)
		if baseCh := base.run(); better(base.placedCount(), totalPrice(baseCh), main.placedCount(), totalPrice(chs)) {
			plan = base.render(baseCh)
		}
	}
	plan.Stats.SolveMillis = time.Since(start).Milliseconds()
	return plan, nil
}

// run is a run's phases in order, each over the problem and the run's state: fleet choice,
// placement, improvement (main strategy only) and finalization; render then explains and bounds.
func (e *engine) run() []choice {
	e.chooseFleet()
	e.place()
	e.improve()
	return e.finalize()
}

// render is the run's plan with its lower bound.
func (e *engine) render(chs []choice) *Plan {
	plan := e.plan(chs)
	plan.Cost.LowerBoundPerHour = floorPrice(e.lowerBound())
	return plan
}

// better prefers the plan that places more pods, then the cheaper one.
func better(placedA int, priceA float64, placedB int, priceB float64) bool {
	if placedA != placedB {
		return placedA > placedB
	}
	return priceA < priceB-1e-9
}

func floorPrice(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Floor(v*1e9) / 1e9
}

func validateOptions(o Options) error {
	switch o.PreferencePolicy {
	case PreferenceCostAware, PreferenceRespect, PreferenceIgnore:
	default:
		return badValue("Options", "PreferencePolicy", o.PreferencePolicy, "unknown policy (want %s, %s or %s)",
			PreferenceCostAware, PreferenceRespect, PreferenceIgnore)
	}
	switch o.MinValuesPolicy {
	case MinValuesStrict, MinValuesBestEffort:
	default:
		return badValue("Options", "MinValuesPolicy", o.MinValuesPolicy, "unknown policy (want %s or %s)",
			MinValuesStrict, MinValuesBestEffort)
	}
	if o.MaxInstanceTypes < 0 {
		return badValue("Options", "MaxInstanceTypes", o.MaxInstanceTypes, "must not be negative")
	}
	return nil
}

func validateBuffers(bufs []CapacityBuffer) error {
	for i, b := range bufs {
		object := fmt.Sprintf("CapacityBuffer #%d", i)
		if b.Name == "" {
			return inputErr(object, "name", "must be set")
		}
		if b.Replicas < 0 {
			return badValue("CapacityBuffer "+b.Name, "replicas", b.Replicas, "must not be negative")
		}
	}
	return nil
}
