package kubeletconfig

import "strconv"

// indexed returns "field[i]" for an element of a list field.
func indexed(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// keyed returns "field[key]" for an entry of a map field.
func keyed(field, key string) string { return field + "[" + key + "]" }
