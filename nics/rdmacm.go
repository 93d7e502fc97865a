package nics

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	configfsRoot  = "/sys/kernel/config"
	rdmacmConfig  = configfsRoot + "/rdma_cm"
	defPrec2SLSys = "/sys/module/rdma_cm/parameters/def_prec2sl"
	// ModprobeFile carries `options rdma_cm def_prec2sl=N` on legacy OFED
	// kernels so the value survives a module reload.
	ModprobeFile = "/etc/modprobe.d/roce-rdma_cm.conf"
)

// HasDefPrec2SL reports whether the legacy OFED rdma_cm module parameter
// exists (docs/platform-hosts.md #rdma-cm: absent on upstream kernels).
func (s *System) HasDefPrec2SL() bool {
	_, err := os.Stat(s.Path(defPrec2SLSys))
	return err == nil
}

// resolveRDMACMMethod turns "auto"/"" into the method this host supports.
func (s *System) resolveRDMACMMethod(m string) (string, error) {
	switch m {
	case "", RDMACMAuto:
		if s.HasDefPrec2SL() {
			return RDMACMDefPrec2SL, nil
		}
		return RDMACMConfigfs, nil
	case RDMACMConfigfs:
		return m, nil
	case RDMACMDefPrec2SL:
		if !s.HasDefPrec2SL() {
			return "", fmt.Errorf("rdma_cm method def_prec2sl: %s does not exist (upstream kernels have no such parameter; use rdma_cm = \"configfs\")", s.Path(defPrec2SLSys))
		}
		return m, nil
	}
	return "", fmt.Errorf("rdma_cm method %q: want configfs, def_prec2sl or auto", m)
}

func configfsPortDir(dev string, port int) string {
	return path.Join(rdmacmConfig, dev, "ports", strconv.Itoa(port))
}

// ensureConfigfsDevice makes <configfs>/rdma_cm/<dev> exist, mounting
// configfs first on a real host when needed. The kernel populates the
// directory with ports/*; in the lab the emulation does it from the
// seeded sysfs ports. created says whether the directory was made here.
func (s *System) ensureConfigfsDevice(ctx context.Context, dev string) (created bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	devDir := s.Path(path.Join(rdmacmConfig, dev))
	if _, err := os.Stat(devDir); err == nil {
		return false, nil
	}
	if _, err := os.Stat(s.Path(rdmacmConfig)); errors.Is(err, fs.ErrNotExist) && s.Root == "/" {
		if err := mountConfigfs(); err != nil {
			return false, err
		}
	}
	if _, err := os.Stat(s.Path(rdmacmConfig)); err != nil {
		return false, fmt.Errorf("rdma_cm configfs %s: %w (is the rdma_cm module loaded? modprobe rdma_cm)", s.Path(rdmacmConfig), err)
	}
	if err := s.mkdirBeneath(path.Join(rdmacmConfig, dev)); err != nil {
		return false, fmt.Errorf("rdma_cm configfs: create %s: %w", devDir, err)
	}
	if s.Lab {
		if err := s.labPopulateConfigfs(dev); err != nil {
			return true, err
		}
	}
	return true, nil
}

func mountConfigfs() error {
	mounts, err := os.ReadFile("/proc/mounts")
	if err == nil && strings.Contains(string(mounts), " "+configfsRoot+" configfs ") {
		return nil
	}
	if err := unix.Mount("none", configfsRoot, "configfs", 0, ""); err != nil {
		return fmt.Errorf("mount configfs on %s: %w", configfsRoot, err)
	}
	return nil
}

// labPopulateConfigfs plays the kernel's part of mkdir rdma_cm/<dev>: one
// ports/<p> directory per RDMA port with the kernel defaults. LAB ONLY.
func (s *System) labPopulateConfigfs(dev string) error {
	ports, err := os.ReadDir(s.Path(path.Join(ibClass, dev, "ports")))
	if err != nil {
		return fmt.Errorf("lab rdma_cm %s: %w", dev, err)
	}
	for _, p := range ports {
		dir := s.Path(path.Join(rdmacmConfig, dev, "ports", p.Name()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("lab rdma_cm %s: %w", dev, err)
		}
		if err := os.WriteFile(path.Join(dir, "default_roce_tos"), []byte("0\n"), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(path.Join(dir, "default_roce_mode"), []byte(gidTypeV2+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readRDMACM reads the current rdma_cm defaults for want's device/port with
// want's (resolved) method.
func (s *System) readRDMACM(ctx context.Context, want RDMACMState) (RDMACMState, error) {
	cur := RDMACMState{Device: want.Device, Netdev: want.Netdev, Port: want.Port, Method: want.Method, ToS: -1, Prec2SL: -1}
	switch want.Method {
	case RDMACMDefPrec2SL:
		v, err := s.readAttrBeneath(defPrec2SLSys)
		if err != nil {
			return cur, fmt.Errorf("rdma_cm def_prec2sl: %w", err)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return cur, fmt.Errorf("rdma_cm def_prec2sl: %s holds %s, not a number", s.Path(defPrec2SLSys), shortQuote(v))
		}
		cur.Prec2SL = n
	case RDMACMConfigfs:
		if _, err := s.ensureConfigfsDevice(ctx, want.Device); err != nil {
			return cur, err
		}
		dir := configfsPortDir(want.Device, want.Port)
		v, err := s.readAttrBeneath(path.Join(dir, "default_roce_tos"))
		if err != nil {
			return cur, fmt.Errorf("rdma_cm %s port %d: %w", want.Device, want.Port, err)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return cur, fmt.Errorf("rdma_cm %s: default_roce_tos holds %s, not a number", want.Device, shortQuote(v))
		}
		cur.ToS = n
		m, err := s.readAttrBeneath(path.Join(dir, "default_roce_mode"))
		if err != nil {
			return cur, fmt.Errorf("rdma_cm %s port %d: %w", want.Device, want.Port, err)
		}
		if m != gidTypeV2 && m != gidTypeV1 {
			return cur, fmt.Errorf("rdma_cm %s: default_roce_mode holds %s, not %q or %q", want.Device, shortQuote(m), gidTypeV1, gidTypeV2)
		}
		cur.Mode = m
	default:
		return cur, fmt.Errorf("rdma_cm %s: unresolved method %q", want.Device, want.Method)
	}
	return cur, nil
}

// writeSysValue writes one value to a sysfs/configfs attribute. These are
// kernel attributes, not files: no temp+rename.
// They are opened beneath the root without following symlinks.
func (s *System) writeSysValue(p, v string) error {
	return s.writeAttrBeneath(p, v)
}

func (s *System) setRoCEToS(dev string, port, tos int) error {
	return s.writeSysValue(path.Join(configfsPortDir(dev, port), "default_roce_tos"), strconv.Itoa(tos))
}

func (s *System) setRoCEMode(dev string, port int, mode string) error {
	return s.writeSysValue(path.Join(configfsPortDir(dev, port), "default_roce_mode"), mode)
}

func (s *System) setPrec2SL(n int) error {
	return s.writeSysValue(defPrec2SLSys, strconv.Itoa(n))
}
