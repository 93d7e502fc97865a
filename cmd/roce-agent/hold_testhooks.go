//go:build rocetesthooks

package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// HoldEnv (test builds only) names the pause point, counted from 1, at
// which the agent stops: it prints "roce-agent: holding at N: <point>" on
// stderr and waits to be killed. The kill tests SIGKILL it there.
const HoldEnv = "ROCE_AGENT_TEST_HOLD"

func testHold() func(string) {
	n, err := strconv.Atoi(os.Getenv(HoldEnv))
	if err != nil || n <= 0 {
		return nil
	}
	seen := 0
	return func(point string) {
		if seen++; seen != n {
			return
		}
		fmt.Fprintf(os.Stderr, "roce-agent: holding at %d: %s\n", n, point)
		for { // until killed
			time.Sleep(time.Hour)
		}
	}
}
