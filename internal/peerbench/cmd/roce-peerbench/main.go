// roce-peerbench is `make bench-peers`: the same change on N simulated
// switches by roce and by Ansible's nxos_config, at equal fan-out.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rocefabric/roce/internal/peerbench"
)

func main() {
	n := flag.Int("switches", 8, "simulated Nexus 5000 switches (and the fan-out of both tools)")
	bin := flag.String("bin", "bin", "directory with roce-plan and roce-apply")
	playbook := flag.String("ansible-playbook", "ansible-playbook", "the ansible-playbook to run (Debian's ansible package bundles cisco.nxos)")
	python := flag.String("python", "/usr/bin/python3", "the Python Ansible runs its modules with")
	flag.Parse()
	dir, err := os.MkdirTemp("", "roce-peerbench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "roce-peerbench:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	abs := func(p string) string {
		if a, err := os.Getwd(); err == nil && len(p) > 0 && p[0] != '/' {
			return a + "/" + p
		}
		return p
	}
	rows, err := peerbench.Run(peerbench.Config{Switches: *n, Bin: abs(*bin), Playbook: *playbook, Python: *python, Dir: dir, Out: os.Stdout})
	peerbench.Table(os.Stdout, rows)
	if err != nil {
		fmt.Fprintln(os.Stderr, "roce-peerbench:", err)
		os.Exit(1)
	}
}
