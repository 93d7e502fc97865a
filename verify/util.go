package verify

import (
	"fmt"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

// gbps formats a bandwidth for humans; below 1 Gb/s in Mb/s, so a
// collapse reads "30 Mb/s" rather than "0.03 Gb/s".
func gbps(v float64) string {
	if v > 0 && v < 1 {
		return fmt.Sprintf("%.1f Mb/s", v*1000)
	}
	return fmt.Sprintf("%.2f Gb/s", v)
}
