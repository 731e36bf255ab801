package manifest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/napkit/napkit/api"
)

// maxExponentDigits and maxMantissaDigits bound a number in a quantity: resource.ParseQuantity takes
// time that grows with the exponent's value (9e-4222222 takes seconds, 1e4222222200 does not return)
// and with the number of digits, and no resource is counted in numbers beyond 1e999 or written with
// more than 64 digits.
const (
	maxExponentDigits = 3
	maxMantissaDigits = 64
)

// hugeNumberValue matches a whole value that is a decimal number (with a quantity suffix or an
// exponent) beyond those bounds.
var hugeNumberValue = regexp.MustCompile(`^[+-]?([0-9.]+[eE][-+]?[0-9]{4,}|[0-9.]{65,}([eE][-+]?[0-9]*|[a-zA-Z]{0,2}))$`)

// checkExponents refuses a document holding a number, or a string that reads as one, with an exponent
// of four digits or more or more than 64 digits, before it reaches a quantity's parser. Where such text cannot be a quantity
// (metadata, environment values, command lines) it is left alone.
func checkExponents(data []byte) *api.FieldError {
	if !mayHoldHugeNumber(data) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil // the decoder reports malformed JSON itself
	}
	return findHugeExponent(doc, nil)
}

// mayHoldHugeNumber is the cheap scan in front of checkExponents: a digit or '.', then e or E, an
// optional sign and at least four digits; or a run of more than maxMantissaDigits digits and dots.
func mayHoldHugeNumber(data []byte) bool {
	run := 0
	for i := range data {
		if c := data[i]; c >= '0' && c <= '9' || c == '.' {
			if run++; run > maxMantissaDigits {
				return true
			}
			continue
		}
		run = 0
	}
	for i := 1; i < len(data); i++ {
		if c := data[i]; c != 'e' && c != 'E' {
			continue
		}
		if p := data[i-1]; (p < '0' || p > '9') && p != '.' {
			continue
		}
		j := i + 1
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		digits := 0
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			digits++
			j++
		}
		if digits > maxExponentDigits {
			return true
		}
	}
	return false
}

func findHugeExponent(v any, path *field.Path) *api.FieldError {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "metadata" || k == "env" || k == "command" || k == "args" {
				continue
			}
			if fe := findHugeExponent(t[k], mapChild(path, k)); fe != nil {
				return fe
			}
		}
	case []any:
		for i, item := range t {
			if fe := findHugeExponent(item, path.Index(i)); fe != nil {
				return fe
			}
		}
	case json.Number:
		return hugeExponentError(string(t), path)
	case string:
		return hugeExponentError(strings.TrimSpace(t), path)
	}
	return nil
}

func hugeExponentError(s string, path *field.Path) *api.FieldError {
	if !hugeNumberValue.MatchString(s) {
		return nil
	}
	return badField(path, truncate(s), "a number with an exponent of "+strconv.Itoa(maxExponentDigits+1)+
		" digits or more, or more than "+strconv.Itoa(maxMantissaDigits)+" digits, is not a quantity napkit reads")
}
