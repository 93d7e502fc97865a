package policies

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestParseIntSet(t *testing.T) {
	tests := []struct {
		name    string
		v       cty.Value
		want    []int
		wantErr string
	}{
		{"number", cty.NumberIntVal(4), []int{4}, ""},
		{"range string", cty.StringVal("0-2,5"), []int{0, 1, 2, 5}, ""},
		{"mixed list", cty.TupleVal([]cty.Value{cty.NumberIntVal(6), cty.StringVal("3-4"), cty.NumberIntVal(3)}), []int{3, 4, 6}, ""},
		{"above max", cty.NumberIntVal(8), nil, "not a whole number from 0 to 7"},
		{"fraction", cty.NumberFloatVal(2.5), nil, "not a whole number"},
		{"reversed range", cty.StringVal("5-2"), nil, "below its start"},
		{"garbage", cty.StringVal("four"), nil, `"four" is not a number`},
		{"empty list", cty.ListValEmpty(cty.Number), nil, "empty"},
		{"bool", cty.True, nil, "is not a number, a range string or a list"},
		{"null element", cty.TupleVal([]cty.Value{cty.NullVal(cty.Number)}), nil, "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseIntSet(tc.v, maxPriority)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
