package api

import (
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxBudgets is the CRD limit on disruption budgets.
const MaxBudgets = 50

// budgetNodesPattern is "N" or "P%" with P at most 100.
var budgetNodesPattern = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)

var (
	consolidationPolicies = []string{
		string(ConsolidationPolicyWhenEmpty), string(ConsolidationPolicyWhenEmptyOrUnderutilized),
		string(ConsolidationPolicyBalanced),
	}
	disruptionReasons = []string{
		string(DisruptionReasonUnderutilized), string(DisruptionReasonEmpty), string(DisruptionReasonDrifted),
	}
)

func validateDisruption(p *field.Path, d *Disruption) []*FieldError {
	errs := validateNillableDuration(p.Child("consolidateAfter"), d.ConsolidateAfter)
	errs = append(errs, oneOf(p.Child("consolidationPolicy"), string(d.ConsolidationPolicy), consolidationPolicies...)...)
	if len(d.Budgets) > MaxBudgets {
		errs = append(errs, tooMany(p.Child("budgets"), len(d.Budgets), MaxBudgets))
	}
	for i := range d.Budgets {
		errs = append(errs, validateBudget(p.Child("budgets").Index(i), &d.Budgets[i])...)
	}
	return errs
}

// validateBudget checks one budget. An empty nodes value is what Default turns into "10%".
func validateBudget(p *field.Path, b *Budget) []*FieldError {
	var errs []*FieldError
	if b.Nodes != "" && !budgetNodesPattern.MatchString(b.Nodes) {
		errs = append(errs, invalid(p.Child("nodes"), b.Nodes, "must be a node count such as 5 or a percentage from 0%% to 100%%"))
	}
	for i, r := range b.Reasons {
		errs = append(errs, oneOf(p.Child("reasons").Index(i), string(r), disruptionReasons...)...)
		if r == "" {
			errs = append(errs, required(p.Child("reasons").Index(i), "one of %s", strings.Join(disruptionReasons, ", ")))
		}
	}
	return append(errs, validateBudgetWindow(p, b)...)
}

// validateBudgetWindow checks schedule and duration: both or neither, a valid cron expression, and a
// duration of whole minutes because cron has no seconds.
func validateBudgetWindow(p *field.Path, b *Budget) []*FieldError {
	switch {
	case b.Schedule == nil && b.Duration == nil:
		return nil
	case b.Schedule == nil:
		return []*FieldError{required(p.Child("schedule"), "schedule must be set with duration")}
	case b.Duration == nil:
		return []*FieldError{required(p.Child("duration"), "duration must be set with schedule")}
	}
	var errs []*FieldError
	if err := validateCron(*b.Schedule); err != nil {
		errs = append(errs, invalid(p.Child("schedule"), *b.Schedule, "invalid cron schedule: %v", err))
	}
	if d := b.Duration.Duration; d <= 0 || d%time.Minute != 0 {
		errs = append(errs, invalid(p.Child("duration"), d.String(), "must be a positive whole number of minutes (h and m units only)"))
	}
	return errs
}
