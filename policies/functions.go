package policies

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

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

// funcEnv is what env() and file() may see during one Load.
type funcEnv struct {
	dir    string                      // the policy directory
	getenv func(string) (string, bool) // the process environment
	// envNames are the variables the policy's credentials blocks name
	// (password_env, key_env); env() may read them besides ROCE_*.
	envNames map[string]bool
	// secretFiles are the resolved paths of credentials files (password_file,
	// key_file): file() of one of them is sensitive.
	secretFiles map[string]bool
	// note records a sensitive string (nil = not recorded).
	note func(string)
	// marks is told when env() or file() makes a marked value (nil: the
	// functions always unmark their arguments).
	marks *markTracker
}

// EnvPrefix is the prefix of the environment variables env() may read
// without a credentials block naming them.
const EnvPrefix = "ROCE_"

// functions returns the function library available in policy expressions
// for a policy in dir, with env() limited to ROCE_* variables.
func functions(dir string, getenv func(string) (string, bool)) map[string]function.Function {
	return functionsFor(funcEnv{dir: dir, getenv: getenv})
}

// functionsFor returns the function library available in policy
// expressions: the go-cty standard library under Terraform's names, CIDR
// helpers, and env()/file() bound to this load's environment lookup and
// policy directory. Every function is wrapped so its errors never quote a
// sensitive argument. It is built per Load so nothing here is shared
// mutable state.
func functionsFor(fe funcEnv) map[string]function.Function {
	return sensitiveFunctions(fe.marks, map[string]function.Function{
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

		"env":  envFunc(fe),
		"file": fileFunc(fe),
	})
}

// envFunc returns env(name) and env(name, default). A missing variable
// without a default is an error, so a policy never silently runs with "".
// Only ROCE_* variables and those a credentials block names can be read, and
// the result is always sensitive: it may feed a credentials block, never a
// description, a name or anything else that is printed or sent to a device.
func envFunc(fe funcEnv) function.Function {
	return function.New(&function.Spec{
		Params:   []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam: &function.Parameter{Name: "default", Type: cty.String},
		Type:     function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, function.NewArgErrorf(2, "env takes a name and at most one default")
			}
			name := args[0].AsString()
			if !strings.HasPrefix(name, EnvPrefix) && !fe.envNames[name] {
				return cty.NilVal, function.NewArgErrorf(0, "env(%q): a policy may read only environment variables whose names start with %s, or those a credentials block names in password_env or key_env; rename the variable (e.g. %s%s) or pass the value with -var", name, EnvPrefix, EnvPrefix, name)
			}
			marks := cty.NewValueMarks(markSensitive, markEnvironment)
			fe.marks.saw()
			if v, ok := fe.getenv(name); ok {
				if fe.note != nil {
					fe.note(v)
				}
				return cty.StringVal(v).WithMarks(marks), nil
			}
			if len(args) == 2 {
				return args[1].WithMarks(marks), nil
			}
			return cty.NilVal, function.NewArgErrorf(0, "environment variable %s is not set; export it or pass a default: env(%q, \"...\")", name, name)
		},
	})
}

// fileFunc returns file(path): the contents of a regular file inside the
// policy directory. Relative paths resolve against the directory; after
// symlinks are resolved the file must still be inside it (no "..", no
// /proc, no absolute path elsewhere). A credentials file, or a file holding
// a private key, is sensitive.
func fileFunc(fe funcEnv) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			given := args[0].AsString()
			p, err := confinedPath(fe.dir, given)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "%v", err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "reading %s: %v", given, err)
			}
			if !fi.Mode().IsRegular() {
				return cty.NilVal, function.NewArgErrorf(0, "%s is not a regular file", given)
			}
			f, err := os.Open(p)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "reading %s: %v", given, err)
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, maxFileFunctionBytes+1))
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "reading %s: %v", given, err)
			}
			if len(b) > maxFileFunctionBytes {
				return cty.NilVal, function.NewArgErrorf(0, "%s is larger than %d bytes; file() is for small snippets", given, maxFileFunctionBytes)
			}
			v := cty.StringVal(string(b))
			if fe.secretFiles[p] || strings.Contains(string(b), "PRIVATE KEY") {
				if fe.note != nil {
					fe.note(string(b))
					fe.note(strings.TrimRight(string(b), "\r\n"))
				}
				fe.marks.saw()
				v = v.Mark(markSensitive)
			}
			return v, nil
		},
	})
}

// confinedPath resolves p (relative to dir, or absolute) with symlinks
// followed and returns it only if it lies inside dir (itself resolved).
func confinedPath(dir, p string) (string, error) {
	rule := "file() reads only files inside the policy directory"
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("resolving the policy directory: %v", err)
	}
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, full)
	}
	// Refuse a path that is outside even before looking at it, so a policy
	// cannot probe which files exist elsewhere either.
	if !within(dir, full) && !within(realDir, full) {
		return "", fmt.Errorf("%s is outside the policy directory; %s", p, rule)
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("reading %s: no such file in the policy directory", p)
		}
		return "", fmt.Errorf("reading %s: %v", p, err)
	}
	if !within(realDir, real) {
		return "", fmt.Errorf("%s is outside the policy directory (after resolving symlinks); %s", p, rule)
	}
	return real, nil
}

// within reports whether path (cleaned) is dir or lies beneath it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
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
