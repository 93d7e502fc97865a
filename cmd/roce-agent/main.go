// Command roce-agent is the host side of roce: it reads, applies and
// proves a host's RoCE settings. It reads one versioned JSON request on
// stdin and writes one JSON response on stdout (docs/agent-protocol.md),
// so the controller can run it locally, over SSH, or a fleet runner
// (Kubernetes DaemonSet, Ansible) can run it with a saved request.
//
//	roce-agent [--root DIR] < request.json > response.json
//
// Exit status: 0 when a response was written (check "ok" in it), 2 when
// the command line is wrong, 1 when no response could be written.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rocefabric/roce/internal/buildinfo"
	"github.com/rocefabric/roce/nics/agentproto"
)

const agentUsage = `Usage: roce-agent [-root DIR] < request.json > response.json

The host side of roce: reads one JSON request on stdin (read, apply, probe,
counters; docs/agent-protocol.md#operations) and writes one JSON response on stdout.
roce-plan, roce-apply and roce-verify run it locally or over SSH; a fleet
runner can run it with a saved request (examples/fleet-runners).

Examples:
  echo '{"version":1,"op":"counters"}' | roce-agent
  roce-agent -root /tmp/labhost < request.json > response.json
  roce-agent -version

Exit codes: 0 a response was written (check "ok" in it); 1 no response could
be written; 2 the command line is wrong (docs/exit-codes.md#exit-codes).

Flags:
`

func main() {
	fs := flag.NewFlagSet("roce-agent", flag.ContinueOnError)
	root := fs.String("root", "/", "prefix for every file, sysfs and configfs path (lab hosts and tests use a temporary tree)")
	version := fs.Bool("version", false, "print the version (module version, commit) and the protocol version, and exit")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), agentUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		os.Exit(2)
	}
	if *version {
		fmt.Printf("%s protocol %d\n", buildinfo.Read().String("roce-agent"), agentproto.Version)
		return
	}
	// SIGINT, SIGTERM and SIGHUP (an SSH session that drops) end the
	// operation cleanly: an apply stops before its next step and restores
	// its snapshot instead of dying half-way.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	resp := handle(ctx, *root, os.Stdin, testHold())
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(resp); err != nil {
		fmt.Fprintf(os.Stderr, "roce-agent: write response: %v\n", err)
		os.Exit(1)
	}
}
