package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// BaselineFormatVersion is the baseline file format this build writes.
// 2 names the time recorded_at, as every roce JSON document names its
// times; version 1 files ("recorded") are still read, so a baseline
// recorded by an older roce-verify keeps working.
const BaselineFormatVersion = 2

// Baseline is what `roce-verify -record-baseline` stores.
type Baseline struct {
	FormatVersion int              `json:"format_version"`
	Recorded      time.Time        `json:"recorded_at"`
	Tool          string           `json:"tool"`
	Results       []BaselineResult `json:"results"`
	// Versions: device address → version key ("os", "fw.mlx5_0") → value.
	Versions map[string]map[string]string `json:"versions"`
}

// BaselineResult is one pair's bandwidth.
type BaselineResult struct {
	Class   string  `json:"class"`
	Server  string  `json:"server"`
	Client  string  `json:"client"`
	AvgGbps float64 `json:"avg_gbps"`
	// Emulated: the result came from the lab's emulated RDMA device, so
	// it is only compared with emulated results (and the other way round).
	Emulated bool `json:"emulated,omitempty"`
}

// NewBaseline records the passing probes and the versions of a report.
// Probes that did not produce a bandwidth are left out.
func NewBaseline(r *Report) *Baseline {
	b := &Baseline{FormatVersion: BaselineFormatVersion, Recorded: r.Finished, Tool: r.Tool, Versions: r.Versions, Results: []BaselineResult{}}
	if b.Versions == nil {
		b.Versions = map[string]map[string]string{}
	}
	for _, p := range r.Probes {
		if p.Status == StatusPass {
			b.Results = append(b.Results, BaselineResult{Class: p.Class, Server: p.Server, Client: p.Client, AvgGbps: p.AvgGbps, Emulated: p.Emulated != nil})
		}
	}
	return b
}

// WriteBaseline stores b as indented JSON.
func WriteBaseline(path string, b *Baseline) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding baseline %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing baseline: %w", err)
	}
	return nil
}

// ReadBaseline loads and checks a baseline file.
func ReadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading baseline: %w", err)
	}
	return DecodeBaseline(path, data)
}

// DecodeBaseline parses baseline JSON; name is used in errors.
func DecodeBaseline(name string, data []byte) (*Baseline, error) {
	// Both versions' fields decode; each version must use only its own.
	var f struct {
		Baseline
		RecordedV1 *time.Time `json:"recorded"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("baseline %s is not a roce-verify baseline (%v); record one with roce-verify -record-baseline", name, err)
	}
	b := f.Baseline
	switch b.FormatVersion {
	case 1:
		if !b.Recorded.IsZero() {
			return nil, fmt.Errorf(`baseline %s: format_version 1 records its time as "recorded", not "recorded_at"; record a new baseline with roce-verify -record-baseline`, name)
		}
		if f.RecordedV1 != nil {
			b.Recorded = *f.RecordedV1
		}
		b.FormatVersion = BaselineFormatVersion // read as the current version from here on
	case BaselineFormatVersion:
		if f.RecordedV1 != nil {
			return nil, fmt.Errorf(`baseline %s: format_version %d records its time as "recorded_at", not "recorded"; record a new baseline with roce-verify -record-baseline`, name, b.FormatVersion)
		}
	default:
		return nil, fmt.Errorf("baseline %s has format_version %d; this roce-verify reads 1 and %d — record a new baseline with roce-verify -record-baseline", name, b.FormatVersion, BaselineFormatVersion)
	}
	for i, r := range b.Results {
		if r.Class == "" || r.Server == "" || r.Client == "" || !(r.AvgGbps >= 0) {
			return nil, fmt.Errorf("baseline %s: result %d is incomplete (class, server, client and a non-negative avg_gbps are required)", name, i+1)
		}
	}
	return &b, nil
}

// Compare checks a report against a baseline: one "baseline" check per
// probe that has a baseline result (fail when more than tolerancePercent
// below it), and one "versions" check that fails on any changed, added or
// removed device version, naming the device and both values.
func Compare(r *Report, b *Baseline, tolerancePercent float64) []Check {
	var out []Check
	type key struct{ class, a, c string }
	base := map[key]BaselineResult{}
	for _, br := range b.Results {
		base[key{br.Class, br.Server, br.Client}] = br
	}
	for _, p := range r.Probes {
		br, ok := base[key{p.Class, p.Server, p.Client}]
		if !ok {
			// The same two hosts with roles swapped measure the same path.
			br, ok = base[key{p.Class, p.Client, p.Server}]
		}
		want := br.AvgGbps
		c := Check{Name: CheckBaseline, Device: p.Server + "," + p.Client, Class: p.Class}
		switch {
		case !ok:
			c.Status, c.Message = StatusSkip, "no baseline result for this pair"
		case br.Emulated != (p.Emulated != nil):
			c.Status, c.Message = StatusSkip, "the baseline and this run differ in kind (one emulated in the lab, one measured): not compared"
		case p.Status != StatusPass && p.AvgGbps == 0:
			c.Status, c.Message = StatusSkip, fmt.Sprintf("probe produced no bandwidth (baseline %s)", gbps(want))
		default:
			floor := want * (1 - tolerancePercent/100)
			pct := 0.0
			if want > 0 {
				pct = (want - p.AvgGbps) / want * 100
			}
			if p.AvgGbps < floor {
				c.Status = StatusFail
				c.Message = fmt.Sprintf("%s is %.1f%% below baseline %s (tolerance %g%%)", gbps(p.AvgGbps), pct, gbps(want), tolerancePercent)
			} else {
				c.Status = StatusPass
				c.Message = fmt.Sprintf("%s vs baseline %s (tolerance %g%%)", gbps(p.AvgGbps), gbps(want), tolerancePercent)
			}
		}
		out = append(out, c)
	}
	out = append(out, compareVersions(b.Versions, r.Versions))
	return out
}

// compareVersions lists every version difference as
// "device key: old -> new", sorted so reports are stable.
func compareVersions(old, cur map[string]map[string]string) Check {
	c := Check{Name: CheckVersions, Status: StatusPass}
	var diffs []string
	devices := map[string]bool{}
	for d := range old {
		devices[d] = true
	}
	for d := range cur {
		devices[d] = true
	}
	for d := range devices {
		o, n := old[d], cur[d]
		if n == nil {
			diffs = append(diffs, d+": in the baseline but not reported now")
			continue
		}
		if o == nil {
			diffs = append(diffs, d+": new device (not in the baseline)")
			continue
		}
		keys := map[string]bool{}
		for k := range o {
			keys[k] = true
		}
		for k := range n {
			keys[k] = true
		}
		for k := range keys {
			ov, ook := o[k]
			nv, nok := n[k]
			switch {
			case ook && nok && ov != nv:
				diffs = append(diffs, fmt.Sprintf("%s %s changed from %s to %s", d, k, ov, nv))
			case ook && !nok:
				diffs = append(diffs, fmt.Sprintf("%s %s %s no longer reported", d, k, ov))
			case !ook && nok:
				diffs = append(diffs, fmt.Sprintf("%s %s %s not in the baseline", d, k, nv))
			}
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		c.Status = StatusFail
		c.Message = "versions differ from the baseline: " + strings.Join(diffs, "; ")
	} else {
		c.Message = fmt.Sprintf("%d device(s) at baseline versions", len(cur))
	}
	return c
}
