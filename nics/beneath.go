package nics

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// Every file the agent writes (managed files, their backups, configfs and
// module-parameter attributes, its transaction record) is opened relative
// to a descriptor of the host root with openat2(2) RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS: a symlink anywhere on the path — planted under the
// root to point at /etc/shadow or outside a lab tree — is an error, never
// followed, and ".." can't climb out. Kernels before 5.6 (no openat2) get
// the same rules from a component-by-component O_NOFOLLOW walk.

// ErrSymlink is wrapped by every refusal to go through a symlink.
var ErrSymlink = errors.New("roce does not follow symlinks under the host root")

// maxManagedFileBytes bounds what the agent reads of a managed file: they
// are a few lines of configuration, and the content goes into snapshots,
// the transaction record and responses.
const maxManagedFileBytes = 1 << 20

const resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// relBeneath turns an absolute host path ("/etc/nccl.conf") into a clean
// relative one, refusing anything that is not already clean.
func relBeneath(p string) (string, error) {
	rel := strings.TrimPrefix(p, "/")
	if rel == "" || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") || strings.ContainsRune(rel, 0) {
		return "", fmt.Errorf("path %q is not a clean absolute path under the host root", p)
	}
	return rel, nil
}

// openBeneath opens rel (relative to the root) with flags, never following
// a symlink and never leaving the root.
func (s *System) openBeneath(p string, flags int, mode uint32) (*os.File, error) {
	rel, err := relBeneath(p)
	if err != nil {
		return nil, err
	}
	var rootfd int
	if s.root != nil {
		rootfd = int(s.root.Fd())
	} else {
		rootfd, err = unix.Open(s.Root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open host root %s: %w", s.Root, err)
		}
		defer unix.Close(rootfd)
	}
	fd, err := openat2Beneath(rootfd, rel, flags, mode)
	if errors.Is(err, unix.ENOTDIR) {
		// O_DIRECTORY|O_NOFOLLOW on a symlink says ENOTDIR: say symlink.
		var st unix.Stat_t
		if unix.Fstatat(rootfd, rel, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			err = unix.ELOOP
		}
	}
	if err != nil {
		return nil, s.beneathErr(p, err)
	}
	return os.NewFile(uintptr(fd), s.Path(p)), nil
}

// holdRoot opens the host root once for the calls until release (an
// apply, a read, a recover): every path beneath it is resolved from that
// descriptor instead of looking the root up again per file. Not for
// concurrent use of one System.
func (s *System) holdRoot() (release func()) {
	if s.root != nil {
		return func() {}
	}
	fd, err := unix.Open(s.Root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return func() {} // each open reports the error itself
	}
	s.root = os.NewFile(uintptr(fd), s.Root)
	return func() {
		s.root.Close()
		s.root = nil
	}
}

func (s *System) beneathErr(p string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return fmt.Errorf("%s: %w (it or a directory above it is a symlink: replace it with a regular file or directory)", s.Path(p), ErrSymlink)
	case errors.Is(err, unix.EXDEV):
		return fmt.Errorf("%s: the path leaves the host root: %w", s.Path(p), ErrSymlink)
	case errors.Is(err, unix.ENOENT):
		return &fs.PathError{Op: "open", Path: s.Path(p), Err: fs.ErrNotExist}
	}
	return &fs.PathError{Op: "open", Path: s.Path(p), Err: err}
}

func openat2Beneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	how := &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW), Mode: uint64(mode), Resolve: resolveFlags}
	for {
		fd, err := unix.Openat2(dirfd, rel, how)
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS):
			return walkNoFollow(dirfd, rel, flags, mode)
		}
		return -1, err
	}
}

// walkNoFollow is openat2's rules without openat2: every directory is
// opened with O_NOFOLLOW|O_DIRECTORY from its parent, then the last
// component with O_NOFOLLOW.
func walkNoFollow(dirfd int, rel string, flags int, mode uint32) (int, error) {
	parts := strings.Split(rel, "/")
	cur, err := unix.Openat(dirfd, ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, c := range parts[:len(parts)-1] {
		if c == ".." || c == "." || c == "" {
			unix.Close(cur)
			return -1, unix.EXDEV
		}
		next, err := unix.Openat(cur, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOTDIR) {
				// A symlink opened with O_NOFOLLOW|O_DIRECTORY gives ENOTDIR.
				var st unix.Stat_t
				if unix.Fstatat(cur, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
					err = unix.ELOOP
				}
			}
			unix.Close(cur)
			return -1, err
		}
		unix.Close(cur)
		cur = next
	}
	last := parts[len(parts)-1]
	if last == ".." || last == "." {
		unix.Close(cur)
		return -1, unix.EXDEV
	}
	fd, err := unix.Openat(cur, last, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	unix.Close(cur)
	return fd, err
}

// readBeneath reads a managed file; a missing file is fs.ErrNotExist.
func (s *System) readBeneath(p string) ([]byte, fs.FileMode, error) {
	f, err := s.openBeneath(p, unix.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("read %s: not a regular file (%s); roce manages plain files only", f.Name(), st.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxManagedFileBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if len(b) > maxManagedFileBytes {
		return nil, 0, fmt.Errorf("read %s: larger than %d bytes; roce manages small configuration files only", f.Name(), maxManagedFileBytes)
	}
	return b, st.Mode().Perm(), nil
}

// readAttrBeneath reads a small kernel attribute (configfs, module
// parameter) beneath the root without following symlinks, trimmed. These
// trees have no symlinks on a real host; one planted in a lab tree is an
// error, never a way to read another file into a response.
func (s *System) readAttrBeneath(p string) (string, error) {
	f, err := s.openBeneath(p, unix.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return strings.TrimSpace(string(b)), nil
}

// shortQuote quotes at most the first 32 bytes of v, for error messages
// about unexpected attribute content.
func shortQuote(v string) string {
	if len(v) > 32 {
		return fmt.Sprintf("%q...", v[:32])
	}
	return fmt.Sprintf("%q", v)
}

// existsBeneath reports whether p exists (without following a symlink:
// a symlink is an error, not "exists").
func (s *System) existsBeneath(p string) (bool, error) {
	f, err := s.openBeneath(p, unix.O_PATH, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	f.Close()
	return true, nil
}

// openDirBeneath opens directory p (relative to the root; "/" is the root).
func (s *System) openDirBeneath(p string) (*os.File, error) {
	if p == "/" || p == "" {
		return os.OpenFile(s.Root, os.O_RDONLY|unix.O_DIRECTORY, 0)
	}
	return s.openBeneath(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
}

// mkdirAllBeneath creates directory p and its missing parents (0755),
// returning the ones it created, shallowest first.
func (s *System) mkdirAllBeneath(p string) ([]string, error) {
	return s.mkdirAllBeneathMode(p, 0o755)
}

// mkdirAllBeneathMode is mkdirAllBeneath creating the last directory with
// perm (the parents get 0755).
func (s *System) mkdirAllBeneathMode(p string, perm uint32) ([]string, error) {
	if p == "/" {
		return nil, nil
	}
	if _, err := relBeneath(p); err != nil {
		return nil, err
	}
	var created []string
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	for i, c := range parts {
		next := path.Join(cur, c)
		d, err := s.openDirBeneath(cur)
		if err != nil {
			return created, err
		}
		mode := uint32(0o755)
		if i == len(parts)-1 {
			mode = perm
		}
		err = unix.Mkdirat(int(d.Fd()), c, mode)
		d.Close()
		switch {
		case err == nil:
			created = append(created, next)
		case errors.Is(err, unix.EEXIST):
			// Exists: check it is a directory and not a symlink.
			f, err := s.openDirBeneath(next)
			if err != nil {
				return created, err
			}
			f.Close()
		default:
			return created, fmt.Errorf("create directory %s: %w", s.Path(next), err)
		}
		cur = next
	}
	return created, nil
}

// mkdirBeneath creates one directory (its parent must exist).
func (s *System) mkdirBeneath(p string) error {
	d, err := s.openDirBeneath(path.Dir(p))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Mkdirat(int(d.Fd()), path.Base(p), 0o755); err != nil {
		return &fs.PathError{Op: "mkdir", Path: s.Path(p), Err: err}
	}
	return nil
}

// writeAtomicBeneath writes data to p through a temporary file in the same
// directory, fsync and rename, then fsyncs the directory: after a crash p
// is the old or the new content, never a torn or empty one. Missing
// directories are created.
func (s *System) writeAtomicBeneath(p string, data []byte, perm fs.FileMode) error {
	d, err := s.openDirBeneath(path.Dir(p))
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := s.mkdirAllBeneath(path.Dir(p)); err != nil {
			return fmt.Errorf("write %s: %w", s.Path(p), err)
		}
		d, err = s.openDirBeneath(path.Dir(p))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", s.Path(p), err)
	}
	defer d.Close()
	return s.writeAtomicIn(d, p, data, perm)
}

// writeAtomicIn is writeAtomicBeneath in d, p's directory, already opened
// beneath the root (a caller writing one file many times opens it once).
func (s *System) writeAtomicIn(d *os.File, p string, data []byte, perm fs.FileMode) error {
	dfd := int(d.Fd())
	base := path.Base(p)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + base + tempMarker + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return fmt.Errorf("write %s: create temporary file: %w", s.Path(p), err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	fail := func(err error) error {
		f.Close()
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", s.Path(p), err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm.Perm()); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", s.Path(p), err)
	}
	if err := unix.Renameat(dfd, tmp, dfd, base); err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", s.Path(p), err)
	}
	if err := d.Sync(); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", s.Path(p), err)
	}
	return nil
}

// removeBeneath removes file p (or, with dir, the empty directory p); a
// missing p is not an error. The directory is fsynced.
func (s *System) removeBeneath(p string, dir bool) error {
	if _, err := relBeneath(p); err != nil {
		return err
	}
	d, err := s.openDirBeneath(path.Dir(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", s.Path(p), err)
	}
	defer d.Close()
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(int(d.Fd()), path.Base(p), flags); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("remove %s: %w", s.Path(p), err)
	}
	if err := d.Sync(); err != nil {
		return fmt.Errorf("remove %s: sync directory: %w", s.Path(p), err)
	}
	return nil
}

// readDirBeneath lists directory p; a missing directory is empty.
func (s *System) readDirBeneath(p string) ([]string, error) {
	d, err := s.openDirBeneath(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// tempMarker is in the name of every temporary file writeAtomicBeneath and
// WriteFileAtomic create, so recovery can find those a kill left behind.
const tempMarker = ".roce-tmp-"

// writeAttrBeneath writes one value to an existing kernel attribute
// (sysfs/configfs): no temporary file, no creation.
func (s *System) writeAttrBeneath(p, v string) error {
	f, err := s.openBeneath(p, unix.O_WRONLY|unix.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("write %q to %s: %w", v, s.Path(p), err)
	}
	if _, err := f.Write([]byte(v + "\n")); err != nil {
		f.Close()
		return fmt.Errorf("write %q to %s: %w", v, s.Path(p), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %q to %s: %w", v, s.Path(p), err)
	}
	return nil
}
