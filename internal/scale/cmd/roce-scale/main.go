// Command roce-scale is the scale benchmark behind `make bench`: it plans
// and applies a simulated fabric (NX-OS simulators, gNMI targets, hosts
// with emulated kernel interfaces) through the real plan engine and
// providers and prints wall time, CPU time, peak RSS and the ratio to the
// ideal for each phase. See docs/performance.md.
//
//	roce-scale [-switches 1000] [-hosts 10000] [-parallelism 64] [-latency 2ms]
//	           [-canary 0] [-calibrate 0] [-cpuprofile FILE] [-memprofile FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/rocefabric/roce/internal/scale"
	"github.com/rocefabric/roce/providers/nxos"
)

func main() {
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("roce-scale", flag.ContinueOnError)
	switches := fs.Int("switches", 1000, "simulated switches (40% Nexus 5000, 20% Nexus 7000, 40% gNMI: Arista, SONiC, SR Linux)")
	hosts := fs.Int("hosts", 10000, "simulated hosts (lab roots with emulated kernel interfaces)")
	par := fs.Int("parallelism", 64, "targets planned/applied at once")
	lat := fs.Duration("latency", 2*time.Millisecond, "latency injected per round trip: per client turn on the NX-OS simulators, per gNMI RPC")
	canary := fs.Int("canary", 0, "canary targets applied one by one before the single batch (the ideal does not count them)")
	cal := fs.Duration("calibrate", 0, "also estimate round trips per target by differential timing at this latency and base the ideal on that instead of the simulators' counts (0 = skip)")
	cpuprof := fs.String("cpuprofile", "", "write a CPU profile of the measured phases to this file")
	memprof := fs.String("memprofile", "", "write the heap profile taken when the Go heap was largest (the peak, not the end) to this file")
	dir := fs.String("dir", "", "work directory, kept afterwards (default: a temporary directory under -tmp, removed afterwards)")
	tmp := fs.String("tmp", defaultTmp(), "where the temporary work directory goes (the hosts' emulated state lives there)")
	verbose := fs.Bool("v", false, "log provider warnings and errors to stderr")
	compare := fs.Bool("compare", false, "run twice, Nexus reads one command per exchange (before) then batched (after), and print both side by side")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.DiscardHandler)
	if *verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	lim, err := scale.RaiseFileLimit()
	if err != nil {
		fmt.Fprintln(os.Stderr, "roce-scale:", err)
		return 1
	}
	fmt.Printf("open-files limit %d\n", lim)
	var rt *scale.Calibration
	if *cal > 0 {
		fmt.Printf("calibrating round trips per target at %s injected latency...\n", *cal)
		rt, err = scale.Calibrate(ctx, *cal, log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "roce-scale:", err)
			return 1
		}
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "roce-scale:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "roce-scale:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if *memprof != "" {
		hp := &scale.PeakHeapProfiler{Every: 250 * time.Millisecond, Grow: 0.02}
		pctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { hp.Run(pctx); close(done) }()
		defer func() {
			cancel()
			<-done
			if err := writeFile(*memprof, hp); err != nil {
				fmt.Fprintln(os.Stderr, "roce-scale:", err)
				return
			}
			peak, at := hp.Peak()
			fmt.Printf("heap profile at the Go heap's peak (%d MiB, %s): %s\n", peak>>20, at.UTC().Format("15:04:05"), *memprof)
		}()
	}
	cfg := scale.Config{
		Switches: *switches, Hosts: *hosts, Parallelism: *par, Latency: *lat, Canary: *canary,
		Dir: *dir, TempRoot: *tmp, Logger: log,
		Progress: func(s string) { fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), s) },
	}
	var before *scale.Report
	if *compare {
		fmt.Println("== before: Nexus reads one command per exchange (nxos.NewSequential)")
		b := cfg
		b.NXOS = nxos.NewSequential
		if before, err = scale.Run(ctx, b); err != nil {
			fmt.Fprintln(os.Stderr, "roce-scale:", err)
			return 1
		}
		before.Print(os.Stdout)
		fmt.Println("== after: Nexus reads batched (nxos.New)")
	}
	rep, err := scale.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "roce-scale:", err)
		return 1
	}
	if rt != nil {
		rep.FillIdeals(rt)
	}
	rep.Print(os.Stdout)
	if before != nil {
		fmt.Println("== before / after")
		scale.PrintComparison(os.Stdout, before, rep)
	}
	return 0
}

// writeFile writes what w writes to a new file at path.
func writeFile(path string, w interface {
	WriteTo(io.Writer) (int64, error)
}) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// defaultTmp is /dev/shm when it is a directory (a tmpfs on Linux), so
// 10,000 simulated hosts sharing one machine do not measure its disk.
func defaultTmp() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return ""
}
