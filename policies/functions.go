package policies

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// maxFileFunctionBytes bounds file(): a policy reads small snippets (keys,
// certificates, host lists), never large or endless files like /dev/zero.
const maxFileFunctionBytes = 1 << 20

// maxRangeValues bounds range(): large enough for fleets of tens of
// thousands of hosts, small enough that a typo cannot exhaust memory.
const maxRangeValues = 65536

// functions returns the function library available in policy expressions:
// the go-cty standard library under Terraform's names, CIDR helpers, and
// env()/file() bound to this load's environment lookup and policy directory.
// It is built per Load so nothing here is shared mutable state.
func functions(dir string, getenv func(string) (string, bool)) map[string]function.Function {
	return map[string]function.Function{
		"abs":             stdlib.AbsoluteFunc,
		"ceil":            stdlib.CeilFunc,
		"chomp":           stdlib.ChompFunc,
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        stdlib.CoalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"floor":           stdlib.FloorFunc,
		"format":          stdlib.FormatFunc,
		"formatlist":      stdlib.FormatListFunc,
		"indent":          stdlib.IndentFunc,
		"index":           stdlib.IndexFunc,
		"join":            stdlib.JoinFunc,
		"jsondecode":      stdlib.JSONDecodeFunc,
		"jsonencode":      stdlib.JSONEncodeFunc,
		"keys":            stdlib.KeysFunc,
		"length":          stdlib.LengthFunc,
		"lookup":          stdlib.LookupFunc,
		"lower":           stdlib.LowerFunc,
		"max":             stdlib.MaxFunc,
		"merge":           stdlib.MergeFunc,
		"min":             stdlib.MinFunc,
		"parseint":        stdlib.ParseIntFunc,
		"pow":             stdlib.PowFunc,
		"range":           rangeFunc,
		"regex":           stdlib.RegexFunc,
		"regexall":        stdlib.RegexAllFunc,
		"replace":         stdlib.ReplaceFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"signum":          stdlib.SignumFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"split":           stdlib.SplitFunc,
		"strlen":          stdlib.StrlenFunc,
		"substr":          stdlib.SubstrFunc,
		"title":           stdlib.TitleFunc,
		"tobool":          stdlib.MakeToFunc(cty.Bool),
		"tolist":          stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":           stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":        stdlib.MakeToFunc(cty.Number),
		"toset":           stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tostring":        stdlib.MakeToFunc(cty.String),
		"trim":            stdlib.TrimFunc,
		"trimprefix":      stdlib.TrimPrefixFunc,
		"trimspace":       stdlib.TrimSpaceFunc,
		"trimsuffix":      stdlib.TrimSuffixFunc,
		"upper":           stdlib.UpperFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,

		"cidrhost":    cidrHostFunc,
		"cidrnetmask": cidrNetmaskFunc,
		"cidrsubnet":  cidrSubnetFunc,

		"env":  envFunc(getenv),
		"file": fileFunc(dir),
	}
}

// envFunc returns env(name) and env(name, default). A missing variable
// without a default is an error, so a policy never silently runs with "".
func envFunc(getenv func(string) (string, bool)) function.Function {
	return function.New(&function.Spec{
		Params:   []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam: &function.Parameter{Name: "default", Type: cty.String},
		Type:     function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, function.NewArgErrorf(2, "env takes a name and at most one default")
			}
			name := args[0].AsString()
			if v, ok := getenv(name); ok {
				return cty.StringVal(v), nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return cty.NilVal, function.NewArgErrorf(0, "environment variable %s is not set; export it or pass a default: env(%q, \"...\")", name, name)
		},
	})
}

// fileFunc returns file(path): the contents of a regular file, relative
// paths resolved against the policy directory.
func fileFunc(dir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			fi, err := os.Stat(p)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "reading %s: %v", p, err)
			}
			if !fi.Mode().IsRegular() {
				return cty.NilVal, function.NewArgErrorf(0, "%s is not a regular file", p)
			}
			f, err := os.Open(p)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "reading %s: %v", p, err)
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, maxFileFunctionBytes+1))
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "reading %s: %v", p, err)
			}
			if len(b) > maxFileFunctionBytes {
				return cty.NilVal, function.NewArgErrorf(0, "%s is larger than %d bytes; file() is for small snippets", p, maxFileFunctionBytes)
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

// rangeFunc is Terraform's range(end), range(start, end), range(start,
// end, step) over integers, with a higher limit than go-cty's (1024) so a
// fleet policy can enumerate thousands of hosts.
var rangeFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "params", Type: cty.Number},
	Type:     function.StaticReturnType(cty.List(cty.Number)),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		nums := make([]float64, len(args))
		for i, a := range args {
			f, _ := a.AsBigFloat().Float64()
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return cty.NilVal, function.NewArgErrorf(i, "must be a finite number")
			}
			nums[i] = f
		}
		var start, end, step float64
		switch len(nums) {
		case 1:
			start, end, step = 0, nums[0], 1
		case 2:
			start, end, step = nums[0], nums[1], 1
		case 3:
			start, end, step = nums[0], nums[1], nums[2]
		default:
			return cty.NilVal, fmt.Errorf("range takes one, two or three arguments")
		}
		if len(nums) < 3 && end < start {
			step = -1
		}
		if step == 0 {
			return cty.NilVal, function.NewArgErrorf(2, "step must not be zero")
		}
		if (step > 0 && end < start) || (step < 0 && end > start) {
			return cty.NilVal, function.NewArgErrorf(1, "end is on the wrong side of start for step %v", step)
		}
		if n := math.Ceil((end - start) / step); n > maxRangeValues {
			return cty.NilVal, fmt.Errorf("range would generate %v values, more than the limit of %d", n, maxRangeValues)
		}
		var vals []cty.Value
		for v := start; (step > 0 && v < end) || (step < 0 && v > end); v += step {
			vals = append(vals, cty.NumberFloatVal(v))
		}
		if len(vals) == 0 {
			return cty.ListValEmpty(cty.Number), nil
		}
		return cty.ListVal(vals), nil
	},
})

var cidrHostFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "prefix", Type: cty.String},
		{Name: "hostnum", Type: cty.Number},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := netip.ParsePrefix(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "invalid CIDR prefix: %v", err)
		}
		n, acc := args[1].AsBigFloat().Int(nil)
		if acc != big.Exact {
			return cty.NilVal, function.NewArgErrorf(1, "host number must be a whole number")
		}
		addr, err := cidrAddr(p.Masked(), n, p.Addr().BitLen()-p.Bits())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(1, "%v", err)
		}
		return cty.StringVal(addr.String()), nil
	},
})

var cidrSubnetFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "prefix", Type: cty.String},
		{Name: "newbits", Type: cty.Number},
		{Name: "netnum", Type: cty.Number},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := netip.ParsePrefix(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "invalid CIDR prefix: %v", err)
		}
		nb, acc := args[1].AsBigFloat().Int64()
		if acc != big.Exact || nb < 0 || int(nb)+p.Bits() > p.Addr().BitLen() {
			return cty.NilVal, function.NewArgErrorf(1, "newbits must be a whole number from 0 to %d", p.Addr().BitLen()-p.Bits())
		}
		n, acc := args[2].AsBigFloat().Int(nil)
		if acc != big.Exact || n.Sign() < 0 || n.BitLen() > int(nb) {
			return cty.NilVal, function.NewArgErrorf(2, "netnum must be a whole number from 0 to 2^%d-1", nb)
		}
		newBits := p.Bits() + int(nb)
		offset := new(big.Int).Lsh(n, uint(p.Addr().BitLen()-newBits))
		addr, err := cidrAddr(p.Masked(), offset, p.Addr().BitLen()-p.Bits())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(2, "%v", err)
		}
		return cty.StringVal(netip.PrefixFrom(addr, newBits).String()), nil
	},
})

var cidrNetmaskFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := netip.ParsePrefix(args[0].AsString())
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(0, "invalid CIDR prefix: %v", err)
		}
		if !p.Addr().Is4() {
			return cty.NilVal, function.NewArgErrorf(0, "cidrnetmask only applies to IPv4 prefixes")
		}
		m := uint32(0xffffffff) << (32 - p.Bits())
		if p.Bits() == 0 {
			m = 0
		}
		return cty.StringVal(netip.AddrFrom4([4]byte{byte(m >> 24), byte(m >> 16), byte(m >> 8), byte(m)}).String()), nil
	},
})

// cidrAddr adds num (which may be negative: counted from the end, as in
// Terraform) to the network address base, whose host part has hostBits bits.
func cidrAddr(base netip.Prefix, num *big.Int, hostBits int) (netip.Addr, error) {
	size := new(big.Int).Lsh(big.NewInt(1), uint(hostBits))
	n := new(big.Int).Set(num)
	if n.Sign() < 0 {
		n.Add(n, size)
	}
	if n.Sign() < 0 || n.Cmp(size) >= 0 {
		return netip.Addr{}, fmt.Errorf("number %s does not fit in %d host bits of %s", num, hostBits, base)
	}
	b := base.Addr().AsSlice()
	v := new(big.Int).SetBytes(b)
	v.Add(v, n)
	out := v.FillBytes(make([]byte, len(b)))
	a, _ := netip.AddrFromSlice(out)
	return a, nil
}
