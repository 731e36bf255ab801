package provisioner

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// podSelector selects pods by namespace and labels, as a pod affinity term or a topology spread
// constraint does.
type podSelector struct {
	sel   labels.Selector
	allNS bool
	ns    []string // sorted; used when !allNS
	canon string
}

func (s *podSelector) matches(ns string, lbls map[string]string) bool {
	if !s.allNS {
		if _, ok := slices.BinarySearch(s.ns, ns); !ok {
			return false
		}
	}
	return s.sel.Matches(labels.Set(lbls))
}

// selectorSpec is what a term says about the pods it selects.
type selectorSpec struct {
	selector       *metav1.LabelSelector
	namespaces     []string
	nsSelector     *metav1.LabelSelector
	matchKeys      []string // values copied from the owner's labels as In
	mismatchKeys   []string // values copied from the owner's labels as NotIn
	ownerNamespace string
	ownerLabels    map[string]string
}

// compileSelector builds a podSelector; nsLabels are the known namespaces' labels (for
// namespaceSelector).
func compileSelector(spec selectorSpec, nsLabels map[string]map[string]string) (*podSelector, error) {
	sel, err := metav1.LabelSelectorAsSelector(spec.selector)
	if err != nil {
		return nil, fmt.Errorf("labelSelector: %w", err)
	}
	sel, err = addLabelKeys(sel, spec.matchKeys, selection.In, spec.ownerLabels)
	if err != nil {
		return nil, err
	}
	sel, err = addLabelKeys(sel, spec.mismatchKeys, selection.NotIn, spec.ownerLabels)
	if err != nil {
		return nil, err
	}
	ps := &podSelector{sel: sel}
	if err := ps.setNamespaces(spec, nsLabels); err != nil {
		return nil, err
	}
	nsPart := "*"
	if !ps.allNS {
		nsPart = strings.Join(ps.ns, ",")
	}
	ps.canon = sel.String() + "|" + nsPart
	return ps, nil
}

func addLabelKeys(sel labels.Selector, keys []string, op selection.Operator, owner map[string]string) (labels.Selector, error) {
	for _, k := range keys {
		v, ok := owner[k]
		if !ok {
			continue
		}
		r, err := labels.NewRequirement(k, op, []string{v})
		if err != nil {
			return nil, fmt.Errorf("matchLabelKeys %q: %w", k, err)
		}
		sel = sel.Add(*r)
	}
	return sel, nil
}

func (ps *podSelector) setNamespaces(spec selectorSpec, nsLabels map[string]map[string]string) error {
	if spec.nsSelector != nil && len(spec.nsSelector.MatchLabels) == 0 && len(spec.nsSelector.MatchExpressions) == 0 {
		ps.allNS = true
		return nil
	}
	set := map[string]bool{}
	for _, n := range spec.namespaces {
		set[n] = true
	}
	if spec.nsSelector != nil {
		nsSel, err := metav1.LabelSelectorAsSelector(spec.nsSelector)
		if err != nil {
			return fmt.Errorf("namespaceSelector: %w", err)
		}
		for name, l := range nsLabels {
			if nsSel.Matches(labels.Set(l)) {
				set[name] = true
			}
		}
	}
	if len(set) == 0 && spec.nsSelector == nil {
		set[spec.ownerNamespace] = true
	}
	ps.ns = sortedKeys(set)
	return nil
}

// selectorKeys returns the label keys a selector reads; only those labels can tell pods apart.
func selectorKeys(s *metav1.LabelSelector) []string {
	if s == nil {
		return nil
	}
	keys := make([]string, 0, len(s.MatchLabels)+len(s.MatchExpressions))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	for _, e := range s.MatchExpressions {
		keys = append(keys, e.Key)
	}
	return keys
}
