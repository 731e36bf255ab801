package api

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// cronMacros are the shorthand schedules the CRD pattern admits.
var cronMacros = []string{"@annually", "@yearly", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}

// cronField is one of the five positions of a standard cron expression.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i, matched case-insensitively
}

var cronFields = []cronField{
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day of month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: strings.Fields("jan feb mar apr may jun jul aug sep oct nov dec")},
	{name: "day of week", min: 0, max: 6, names: strings.Fields("sun mon tue wed thu fri sat")},
}

// validateCron checks a budget schedule the way Karpenter's standard cron parser reads it: a macro, or
// five fields of comma-separated items, each "*", "?", "a", "a-b" or any of those with "/step".
// Time zones are not supported, as in Karpenter.
func validateCron(expr string) error {
	if strings.HasPrefix(expr, "@") {
		for _, m := range cronMacros {
			if expr == m {
				return nil
			}
		}
		return fmt.Errorf("unknown macro %q; want one of %s", expr, strings.Join(cronMacros, ", "))
	}
	parts := strings.Fields(expr)
	if len(parts) != len(cronFields) {
		return fmt.Errorf("want 5 fields (minute hour day-of-month month day-of-week), got %d", len(parts))
	}
	for i, part := range parts {
		for _, item := range strings.Split(part, ",") {
			if err := cronFields[i].checkItem(item); err != nil {
				return fmt.Errorf("%s: %w", cronFields[i].name, err)
			}
		}
	}
	return nil
}

func (f cronField) checkItem(item string) error {
	rng, step, hasStep := strings.Cut(item, "/")
	if hasStep {
		n, err := strconv.Atoi(step)
		if err != nil || n <= 0 {
			return fmt.Errorf("step %q is not a positive integer", step)
		}
	}
	if rng == "*" || rng == "?" {
		return nil
	}
	lo, hi, isRange := strings.Cut(rng, "-")
	first, err := f.value(lo)
	if err != nil {
		return err
	}
	if !isRange {
		return nil
	}
	last, err := f.value(hi)
	if err != nil {
		return err
	}
	if first > last {
		return fmt.Errorf("range %q runs backwards", rng)
	}
	return nil
}

// value reads a number or name and checks it is in range.
func (f cronField) value(s string) (int, error) {
	for i, name := range f.names {
		if strings.EqualFold(s, name) {
			return f.min + i, nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || strings.ContainsAny(s, "+-") {
		return 0, errors.New("value " + strconv.Quote(s) + " is not a number")
	}
	if n < f.min || n > f.max {
		return 0, fmt.Errorf("value %d is outside %d-%d", n, f.min, f.max)
	}
	return n, nil
}
