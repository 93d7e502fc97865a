package verify

import (
	"fmt"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

// gbps formats a bandwidth for humans.
func gbps(v float64) string { return fmt.Sprintf("%.2f Gb/s", v) }
