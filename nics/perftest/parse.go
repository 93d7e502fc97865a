package perftest

import (
	"fmt"
	"strconv"
	"strings"
)

// Row is one line of the perftest result table, converted to Gb/s.
type Row struct {
	Bytes       int     `json:"bytes"`
	Iterations  uint64  `json:"iterations"`
	PeakGbps    float64 `json:"peak_gbps"` // 0 in duration mode (-D) and with -N: perftest does not measure peak then
	AvgGbps     float64 `json:"avg_gbps"`
	MsgRateMpps float64 `json:"msg_rate_mpps"`
}

// Result is one parsed perftest run.
type Result struct {
	Rows []Row `json:"rows"`
	// AvgGbps / PeakGbps are the highest average / peak over all rows: with
	// several sizes (-a) the largest messages show what the link can carry.
	AvgGbps  float64  `json:"avg_gbps"`
	PeakGbps float64  `json:"peak_gbps"`
	Stdout   string   `json:"stdout,omitempty"`
	Stderr   string   `json:"stderr,omitempty"`
	ExitCode int      `json:"exit_code"`
	Argv     []string `json:"argv,omitempty"`
	// Notes are what the side's agent did around the run in plain words
	// (a leftover server stopped on the rendezvous port).
	Notes []string `json:"notes,omitempty"`
}

// mibPerSecToGbps converts perftest's "MB/sec" (which is MiB/s: 2^20 bytes,
// per its --report_gbits help text) to Gb/s (10^9 bits).
const mibPerSecToGbps = float64(1<<20) * 8 / 1e9

// unitFactor returns the multiplier to Gb/s for the unit named in the
// "BW average[...]" header, or false when the unit is unknown.
func unitFactor(header string) (float64, bool) {
	const key = "BW average["
	i := strings.Index(header, key)
	if i < 0 {
		return 0, false
	}
	rest := header[i+len(key):]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return 0, false
	}
	switch rest[:j] {
	case "Gb/sec":
		return 1, true
	case "MB/sec", "MiB/sec":
		return mibPerSecToGbps, true
	}
	return 0, false
}

// isHeader recognises the table header line (" #bytes  #iterations  BW peak[...]").
func isHeader(line string) bool {
	return strings.Contains(line, "#bytes") && strings.Contains(line, "BW average[")
}

// parseRow reads "size iters peak avg msgrate [more columns]". ok is false
// for lines that are not data rows (separators, warnings, blank lines).
func parseRow(line string, factor float64) (Row, bool, error) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return Row{}, false, nil
	}
	size, err := strconv.Atoi(f[0])
	if err != nil || size < 0 {
		return Row{}, false, nil // not a data row
	}
	iters, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return Row{}, false, fmt.Errorf("iterations %q is not a number", f[1])
	}
	var nums [3]float64
	for k, s := range f[2:5] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || v != v || v > 1e12 {
			return Row{}, false, fmt.Errorf("column %d %q is not a bandwidth/rate", k+3, s)
		}
		nums[k] = v
	}
	return Row{
		Bytes:       size,
		Iterations:  iters,
		PeakGbps:    nums[0] * factor,
		AvgGbps:     nums[1] * factor,
		MsgRateMpps: nums[2],
	}, true, nil
}

// isNoise reports the lines perftest (or the shell around it) prints in
// the middle of the result table when stderr and stdout are read together:
// its warnings ("Conflicting CPU frequency values detected: … CPU Frequency
// is not max.", " WARNING: CPU is not PCIe relaxed ordering compliant.",
// "Warning: Large message requested and CQ moderation enabled"), blank
// lines, and a line of a test that was interrupted. The texts are
// perftest's own (perftest 4.5 sources, strings of ib_write_bw).
func isNoise(line string) bool {
	t := strings.TrimSpace(line)
	switch {
	case t == "":
		return true
	case strings.HasPrefix(strings.ToLower(t), "warning"):
		return true
	case strings.HasPrefix(t, "Conflicting CPU frequency values detected"):
		return true
	case strings.HasPrefix(t, "WARNING1:"), strings.HasPrefix(t, "WARNING2:"):
		return true
	}
	return false
}

// Parse reads the result table(s) from perftest stdout. It accepts the
// [Gb/sec], [MB/sec] and [MiB/sec] headers (converting the latter two to
// Gb/s), several size rows (-a), several tables (bidirectional
// --report-both), the dual-port layout (extra per-port columns after the
// first five), warnings interleaved with the rows (stderr merged into
// stdout), and ignores everything else perftest prints.
func Parse(stdout string) (*Result, error) {
	res := &Result{Stdout: stdout}
	lines := strings.Split(strings.ReplaceAll(stdout, "\r\n", "\n"), "\n")
	headers := 0
	for i := 0; i < len(lines); i++ {
		if !isHeader(lines[i]) {
			continue
		}
		headers++
		factor, ok := unitFactor(lines[i])
		if !ok {
			return nil, fmt.Errorf("perftest output line %d: unknown bandwidth unit in header %q", i+1, strings.TrimSpace(lines[i]))
		}
		for i+1 < len(lines) {
			row, ok, err := parseRow(lines[i+1], factor)
			if err != nil {
				return nil, fmt.Errorf("perftest output line %d: %w", i+2, err)
			}
			if !ok {
				if isNoise(lines[i+1]) {
					i++ // a warning printed into the table (stdout and stderr merged)
					continue
				}
				break
			}
			res.Rows = append(res.Rows, row)
			i++
		}
	}
	if headers == 0 {
		return nil, fmt.Errorf("perftest output has no result table (no \"#bytes ... BW average[...]\" header)")
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("perftest output has a result header but no result rows")
	}
	for _, r := range res.Rows {
		res.AvgGbps = max(res.AvgGbps, r.AvgGbps)
		res.PeakGbps = max(res.PeakGbps, r.PeakGbps)
	}
	return res, nil
}
