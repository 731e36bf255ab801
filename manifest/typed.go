package manifest

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/napkit/napkit/api"
	sigsjson "sigs.k8s.io/json"
)

// decodeStrict reads JSON into v, rejecting unknown and duplicate fields: a misspelt field in a
// NodePool would otherwise be dropped silently and the pool would behave differently than written.
//
// A value that does not decode is reported with its path and value (see locateBadValue): the JSON
// package alone names neither for an error raised by a type's own UnmarshalJSON, such as a quantity.
func decodeStrict(data []byte, v any) error {
	if fe := checkExponents(data); fe != nil {
		return fe
	}
	strict, err := sigsjson.UnmarshalStrict(data, v)
	if err != nil {
		if fe := locateBadValue(data, reflect.TypeOf(v).Elem(), nil); fe != nil {
			return fe
		}
		return typeError(err)
	}
	if len(strict) == 0 {
		return nil
	}
	msgs := make([]string, len(strict))
	for i, e := range strict {
		msgs[i] = e.Error()
	}
	// One line per document, so that every line of a joined error starts with its position.
	return decodeErr("%s", strings.Join(msgs, "; "))
}

func decodeNodePool(doc *Document, set *Set) error {
	np := &api.NodePool{}
	if err := decodeStrict(doc.JSON, np); err != nil {
		return err
	}
	set.Notes = append(set.Notes, np.Default()...)
	if err := np.Validate(); err != nil {
		return err
	}
	set.NodePools = append(set.NodePools, np)
	return nil
}

func decodeNodeClass(doc *Document, set *Set) error {
	nc := &api.AKSNodeClass{}
	if err := decodeStrict(doc.JSON, nc); err != nil {
		return err
	}
	nc.Default()
	if err := nc.Validate(); err != nil {
		return err
	}
	set.NodeClasses = append(set.NodeClasses, nc)
	return nil
}

func decodeNodeClaim(doc *Document, set *Set) error {
	c := &api.NodeClaim{}
	if err := decodeStrict(doc.JSON, c); err != nil {
		return err
	}
	c.Default()
	if err := c.Validate(); err != nil {
		return err
	}
	set.NodeClaims = append(set.NodeClaims, c)
	return nil
}

// objectRef is "Kind/name", the form api.Note uses.
func objectRef(kind, name string) string { return fmt.Sprintf("%s/%s", kind, name) }
