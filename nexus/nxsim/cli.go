package nxsim

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus"
)

// RunCLI is `roce-lab nxos`: it serves one simulated switch until ctx is
// done, after printing its address and host key fingerprint.
func RunCLI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseCLI(args, stderr)
	if err != nil {
		return err
	}
	srv, err := Listen(ctx, c.listen, c.opts)
	if err != nil {
		return err
	}
	// Only the built-in default password is printed; one the user chose
	// (flag or $NXSIM_PASSWORD) is never echoed.
	pwNote := "the password you set"
	if c.defaultPassword {
		pwNote = `password "admin" (set --password or $NXSIM_PASSWORD to change it)`
	}
	fmt.Fprintf(stdout, "nxsim %s (%s) listening on %s\nhost key %s %s\nlog in with: ssh -p %s %s@%s  (%s)\n",
		c.opts.Hostname, c.opts.Platform, srv.Addr(), srv.Switch().HostKey().Type(),
		ssh.FingerprintSHA256(srv.Switch().HostKey()), portOf(srv.Addr()), c.user, hostOf(srv.Addr()), pwNote)
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return err
	}
	return nil
}

// cliConfig is what the roce-lab nxos flags ask for.
type cliConfig struct {
	opts   Options
	listen string
	user   string
	// defaultPassword: no password was given, so the built-in "admin" is in
	// use (and may be shown).
	defaultPassword bool
}

// parseCLI reads the roce-lab nxos flags into switch options.
func parseCLI(args []string, stderr io.Writer) (*cliConfig, error) {
	fs := flag.NewFlagSet("roce-lab nxos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		platform = fs.String("platform", "nexus5000", "switch platform: nexus5000 or nexus7000")
		listen   = fs.String("listen", "127.0.0.1:2222", "address to serve SSH on")
		config   = fs.String("config", "", "running-config file the switch starts from")
		hostname = fs.String("hostname", "switch", "switch name (the prompt)")
		version  = fs.String("os-version", "", "simulated NX-OS release, e.g. 7.3(0)N1(1) (default: the platform's)")
		user     = fs.String("user", "admin", "login user")
		password = fs.String("password", "", "login password (default: $NXSIM_PASSWORD, else \"admin\")")
		keyFile  = fs.String("host-key-file", "", "PEM host key; created (ed25519) when the file does not exist")
		modules  = fs.String("modules", "", `modules as "slot:ports:model,..." e.g. "1:48:N7K-F248XP-25,2:48:N7K-M148GT-11"`)
		vdc      = fs.String("vdc", "", "nexus7000: VDC the sessions land in (default VDC when empty)")
		latency  = fs.Duration("latency", 0, "fault: delay before every answer")
		dropN    = fs.Int("drop-after-config-lines", 0, "fault: drop the connection after N configuration lines")
		dropAny  = fs.Int("drop-after-lines", 0, "fault: drop the connection after N commands of any kind (exec and configuration)")
		reject   = fs.String("reject", "", "fault: configuration line answered with an invalid-command error")
		stall    = fs.String("stall", "", "fault: command (exec or configuration) that is never answered; the session hangs until its connection closes")
		verbose  = fs.Bool("v", false, "log connections")
	)
	var authKeys []ssh.PublicKey
	fs.Func("authorized-key", "public key `FILE` (authorized_keys format) that may log in as any user besides the password, so a script can run e.g. ssh ... show ssh key; repeatable", func(path string) error {
		keys, err := readAuthorizedKeys(path)
		authKeys = append(authKeys, keys...)
		return err
	})
	var peers map[string][]int
	fs.Func("peer-no-drop-cos", `DCBX peer of a port: "Ethernet1/1=3,4" (the CoS its NIC has PFC on; "Ethernet1/1=" for none); a port in mode auto is oper on only when it equals the switch's no-drop CoS; repeatable`, func(v string) error {
		port, list, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(port) == "" {
			return fmt.Errorf("%q: want PORT=COS,COS (e.g. Ethernet1/1=3,4)", v)
		}
		cos := []int{}
		for _, f := range strings.Split(list, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 || n > 7 {
				return fmt.Errorf("%q: CoS %q is not 0-7", v, f)
			}
			cos = append(cos, n)
		}
		if peers == nil {
			peers = map[string][]int{}
		}
		peers[strings.TrimSpace(port)] = cos
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("roce-lab nxos: unexpected argument %q", fs.Arg(0))
	}
	opts := Options{
		Hostname: *hostname, Platform: *platform, Version: *version, VDC: *vdc,
		Faults: Faults{Latency: *latency, DropAfterConfigLines: *dropN, DropAfterLines: *dropAny,
			RejectCommand: *reject, StallCommand: strings.TrimSpace(*stall), PeerNoDropCoS: peers},
	}
	if *config != "" {
		b, err := os.ReadFile(*config)
		if err != nil {
			return nil, fmt.Errorf("roce-lab nxos: read --config: %w", err)
		}
		opts.StartupConfig = string(b)
	}
	pw, defaultPW := *password, false
	if pw == "" {
		pw = "admin"
		if v, ok := os.LookupEnv("NXSIM_PASSWORD"); ok {
			pw = v
		} else {
			defaultPW = true
		}
	}
	opts.Users = map[string]string{*user: pw}
	opts.AuthorizedKeys = authKeys
	if *modules != "" {
		m, err := parseModulesFlag(*modules)
		if err != nil {
			return nil, fmt.Errorf("roce-lab nxos: --modules: %w", err)
		}
		opts.Modules = m
	}
	if *keyFile != "" {
		k, err := LoadOrCreateHostKey(*keyFile)
		if err != nil {
			return nil, fmt.Errorf("roce-lab nxos: %w", err)
		}
		opts.HostKey = k
	}
	if *verbose {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return &cliConfig{opts: opts, listen: *listen, user: *user, defaultPassword: defaultPW}, nil
}

// readAuthorizedKeys reads the public keys of an authorized_keys file.
func readAuthorizedKeys(path string) ([]ssh.PublicKey, error) {
	rest, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys []ssh.PublicKey
	for n := 1; len(bytes.TrimSpace(rest)) > 0; n++ {
		key, _, _, next, err := ssh.ParseAuthorizedKey(rest)
		if err != nil {
			return nil, fmt.Errorf("%s: key #%d: %w (want lines like those of a .pub file from ssh-keygen)", path, n, err)
		}
		keys, rest = append(keys, key), next
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no public key in the file (want a .pub file from ssh-keygen)", path)
	}
	return keys, nil
}

// parseModulesFlag reads "slot:ports:model[:type],...".
func parseModulesFlag(s string) ([]nexus.Module, error) {
	var mods []nexus.Module
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(strings.TrimSpace(part), ":")
		if len(f) < 3 {
			return nil, fmt.Errorf("%q: want slot:ports:model", part)
		}
		slot, err1 := strconv.Atoi(f[0])
		ports, err2 := strconv.Atoi(f[1])
		if err := errors.Join(err1, err2); err != nil || slot < 1 || ports < 0 {
			return nil, fmt.Errorf("%q: slot and ports must be numbers (slot from 1)", part)
		}
		m := nexus.Module{Slot: slot, Ports: ports, Model: f[2], Status: "ok", Series: seriesOf(f[2])}
		m.Type = "Ethernet Module"
		if ports == 0 {
			m.Type, m.Status = "Supervisor Module", "active *"
		}
		if len(f) > 3 {
			m.Type = f[3]
		}
		mods = append(mods, m)
	}
	return mods, nil
}

func hostOf(addr string) string {
	i := strings.LastIndexByte(addr, ':')
	return addr[:i]
}

func portOf(addr string) string {
	i := strings.LastIndexByte(addr, ':')
	return addr[i+1:]
}
