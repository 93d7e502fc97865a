//go:build rocetesthooks

package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// HoldEnv (test builds only) names the pause point, counted from 1, at
// which the agent stops: it prints "roce-agent: holding at N: <point>" on
// stderr and waits to be killed. The kill tests SIGKILL it there. With
// HoldUntilSignalEnv set, it waits for SIGTERM, SIGINT or SIGHUP instead
// and then goes on, so a test can see what the agent does with a signal
// in the middle of an apply.
const (
	HoldEnv            = "ROCE_AGENT_TEST_HOLD"
	HoldUntilSignalEnv = "ROCE_AGENT_TEST_HOLD_UNTIL_SIGNAL"
)

func testHold() func(string) {
	n, err := strconv.Atoi(os.Getenv(HoldEnv))
	if err != nil || n <= 0 {
		return nil
	}
	var sig chan os.Signal
	if os.Getenv(HoldUntilSignalEnv) != "" {
		sig = make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	}
	seen := 0
	return func(point string) {
		if seen++; seen != n {
			return
		}
		fmt.Fprintf(os.Stderr, "roce-agent: holding at %d: %s\n", n, point)
		if sig != nil {
			<-sig
			return
		}
		for { // until killed
			time.Sleep(time.Hour)
		}
	}
}
