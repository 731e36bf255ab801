package pricing

import (
	"bytes"
	"strings"
)

// DefaultRegionSnapshot is DefaultSnapshot with the VM prices of region alone, and of
// FallbackRegion, which Snapshot.Region falls back to; the managed-disk prices are all there.
// Region(region) answers exactly as DefaultSnapshot's does (TestDefaultRegionSnapshot checks every
// embedded region), for a sixth of the CPU: the embedded table has 65,000 rows for 57 regions, and
// a command that prices one region parses only that region's ~1,600.
//
// For the regions with an embedded catalogue it reads their generated compact tables (see
// compact.go), a thirtieth of the data, which TestCompactPrices holds equal to the full tables.
func DefaultRegionSnapshot(region string) (*Snapshot, error) {
	name := strings.ToLower(region)
	if snap, ok, err := compactRegionSnapshot(name); ok {
		return snap, err
	}
	return readDefaultRegion(name)
}

// readDefaultRegion is DefaultRegionSnapshot(name) from the full embedded tables.
func readDefaultRegion(name string) (*Snapshot, error) {
	return readDefault(func(line []byte) bool {
		first, _, _ := bytes.Cut(line, []byte{','})
		r := strings.ToLower(strings.TrimSpace(string(first)))
		return r == name || r == FallbackRegion
	})
}

// filterRows keeps the header line of a CSV table and the rows keep accepts; nil keeps all. It
// works on lines, which is right for the embedded tables: none has a quoted field
// (TestDefaultRegionSnapshot checks), so a line is a row.
func filterRows(table []byte, keep func(line []byte) bool) []byte {
	if keep == nil {
		return table
	}
	header := lineLen(table)
	out := make([]byte, 0, header+len(table)/32)
	out = append(out, table[:header]...)
	for off := header; off < len(table); {
		end := off + lineLen(table[off:])
		if line := table[off:end]; keep(line) {
			out = append(out, line...)
		}
		off = end
	}
	return out
}

// lineLen is the length of the first line of data, its newline included.
func lineLen(data []byte) int {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1
	}
	return len(data)
}
