package requirements

import (
	"strconv"
	"strings"
)

// maxListedValues caps how many values String prints. Error messages about an instance-type list of
// hundreds of names stay readable, and the count says what was left out.
const maxListedValues = 5

// String renders the requirement as "key Op [values]", for example "kubernetes.io/arch In [amd64]",
// "karpenter.azure.com/sku-cpu Gte 4 Lte 15" or "zone NotIn [1] minValues 2". A bounded complement
// lists each part: "NotIn [8] Gte 4".
func (r *Requirement) String() string {
	var b strings.Builder
	b.WriteString(r.Key)
	switch {
	case !r.complement && len(r.values) == 0:
		b.WriteString(" DoesNotExist")
	case !r.complement:
		b.WriteString(" In ")
		writeValues(&b, r.values)
	default:
		writeComplement(&b, r)
	}
	if r.MinValues != nil {
		b.WriteString(" minValues ")
		b.WriteString(strconv.Itoa(*r.MinValues))
	}
	return b.String()
}

func writeComplement(b *strings.Builder, r *Requirement) {
	if len(r.values) > 0 {
		b.WriteString(" NotIn ")
		writeValues(b, r.values)
	}
	if r.gte != nil {
		b.WriteString(" Gte ")
		b.WriteString(strconv.FormatInt(*r.gte, 10))
	}
	if r.lte != nil {
		b.WriteString(" Lte ")
		b.WriteString(strconv.FormatInt(*r.lte, 10))
	}
	if len(r.values) == 0 && r.gte == nil && r.lte == nil {
		b.WriteString(" Exists")
	}
}

// writeValues writes "[a b c]", or "[a b c d e and 7 others]" past maxListedValues.
func writeValues(b *strings.Builder, values []string) {
	b.WriteByte('[')
	for i, v := range values {
		if i == maxListedValues {
			b.WriteString(" and ")
			b.WriteString(strconv.Itoa(len(values) - i))
			b.WriteString(" others")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if v == "" {
			v = `""` // an empty label value is legal; show it rather than nothing
		}
		b.WriteString(v)
	}
	b.WriteByte(']')
}

// String renders every requirement, sorted by key and separated by ", ".
func (rs Requirements) String() string {
	parts := make([]string, 0, len(rs))
	for _, key := range rs.Keys() {
		parts = append(parts, rs[key].String())
	}
	return strings.Join(parts, ", ")
}
