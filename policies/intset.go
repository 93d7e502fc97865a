package policies

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// parseIntSet reads a cos or dscp selection: a number (4), a string with
// lists and ranges ("3,4" or "0-2,5"), or a list mixing both ([3, "5-6"]).
// The result is sorted and de-duplicated; every value must be in 0..max.
func parseIntSet(v cty.Value, max int) ([]int, error) {
	seen := map[int]bool{}
	if err := addIntSet(v, max, seen); err != nil {
		return nil, err
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("the selection is empty")
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out, nil
}

func addIntSet(v cty.Value, max int, seen map[int]bool) error {
	if v.IsNull() {
		return fmt.Errorf("null is not a value")
	}
	t := v.Type()
	switch {
	case t == cty.Number:
		bf := v.AsBigFloat()
		n, acc := bf.Int64()
		if acc != big.Exact || n < 0 || n > int64(max) {
			return fmt.Errorf("%s is not a whole number from 0 to %d", bf.Text('g', -1), max)
		}
		seen[int(n)] = true
	case t == cty.String:
		for _, part := range strings.Split(v.AsString(), ",") {
			lo, hi, err := parseIntRange(strings.TrimSpace(part), max)
			if err != nil {
				return err
			}
			for n := lo; n <= hi; n++ {
				seen[n] = true
			}
		}
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if err := addIntSet(e, max, seen); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s is not a number, a range string or a list", friendlyType(t))
	}
	return nil
}

// parseIntRange parses "5" or "2-4".
func parseIntRange(s string, max int) (int, int, error) {
	loText, hiText, isRange := strings.Cut(s, "-")
	lo, err := strconv.Atoi(strings.TrimSpace(loText))
	if err != nil || lo < 0 || lo > max {
		return 0, 0, fmt.Errorf("%q is not a number from 0 to %d or a range such as \"0-2\"", s, max)
	}
	if !isRange {
		return lo, lo, nil
	}
	hi, err := strconv.Atoi(strings.TrimSpace(hiText))
	if err != nil || hi < 0 || hi > max {
		return 0, 0, fmt.Errorf("%q: range end is not a number from 0 to %d", s, max)
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("%q: range end is below its start; write the lower value first", s)
	}
	return lo, hi, nil
}
