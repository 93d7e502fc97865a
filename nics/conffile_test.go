package nics

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditKV(t *testing.T) {
	cases := []struct {
		name, in, format string
		set              []KV
		want             string
	}{
		{"empty file", "", FormatKV, []KV{{Key: "NCCL_IB_SL", Value: "3"}}, "NCCL_IB_SL=3\n"},
		{"replace in place keeps neighbours", "# nccl\nNCCL_DEBUG=INFO\nNCCL_IB_SL=0\nNCCL_SOCKET_IFNAME=eth0\n", FormatKV,
			[]KV{{Key: "NCCL_IB_SL", Value: "3"}}, "# nccl\nNCCL_DEBUG=INFO\nNCCL_IB_SL=3\nNCCL_SOCKET_IFNAME=eth0\n"},
		{"duplicates of owned key dropped", "A=1\nNCCL_IB_SL=1\nB=2\nNCCL_IB_SL=2\n", FormatKV,
			[]KV{{Key: "NCCL_IB_SL", Value: "3"}}, "A=1\nNCCL_IB_SL=3\nB=2\n"},
		{"already right line kept byte for byte", "MV2_USE_RoCE=1\n", FormatKVSpaced,
			[]KV{{Key: "MV2_USE_RoCE", Value: "1"}}, "MV2_USE_RoCE=1\n"},
		{"spaced format appends", "btl = ^uct,openib,ofi\n", FormatKVSpaced,
			[]KV{{Key: "btl_openib_ib_service_level", Value: "3"}}, "btl = ^uct,openib,ofi\nbtl_openib_ib_service_level = 3\n"},
		{"commented key is not ours", "#NCCL_IB_SL=5\n", FormatKV,
			[]KV{{Key: "NCCL_IB_SL", Value: "3"}}, "#NCCL_IB_SL=5\nNCCL_IB_SL=3\n"},
		{"no final newline", "X=1", FormatKV, []KV{{Key: "Y", Value: "2"}}, "X=1\nY=2\n"},
		{"quoted value equal", `NCCL_IB_TC="106"` + "\n", FormatKV, []KV{{Key: "NCCL_IB_TC", Value: "106"}}, `NCCL_IB_TC="106"` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(EditKV([]byte(tc.in), tc.format, tc.set))
			if got != tc.want {
				t.Errorf("EditKV:\n got %q\nwant %q", got, tc.want)
			}
			// Idempotent: a second edit changes nothing.
			if again := string(EditKV([]byte(got), tc.format, tc.set)); again != got {
				t.Errorf("second EditKV changed the file: %q -> %q", got, again)
			}
		})
	}
}

func TestEditLines(t *testing.T) {
	cases := []struct {
		name, in string
		owned    []string
		want     string
	}{
		{"empty", "", []string{"10.0.0.1"}, "10.0.0.1\n"},
		{"present untouched", "10.0.0.9\n10.0.0.1\n", []string{"10.0.0.1"}, "10.0.0.9\n10.0.0.1\n"},
		{"append keeps foreign", "# rails\n10.0.0.9\n", []string{"10.0.0.1", "10.0.1.1"}, "# rails\n10.0.0.9\n10.0.0.1\n10.0.1.1\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(EditLines([]byte(tc.in), tc.owned)); got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
		})
	}
}

func TestWriteFileAtomicKeepsModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "nccl.conf")
	if err := WriteFileAtomic(p, []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v err %v", st.Mode(), err)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
}

func FuzzMPIConfEdit(f *testing.F) {
	f.Add("# comment\nNCCL_IB_SL=0\nFOREIGN=1\n", "NCCL_IB_SL", "3", false)
	f.Add("btl = ^openib\n\n", "btl_openib_ib_service_level", "3", true)
	f.Add("A=1\nA=2\n=x\n==\n", "A", "", false)
	f.Fuzz(func(t *testing.T, content, key, value string, spaced bool) {
		if key == "" || strings.ContainsAny(key, "=\n#") || strings.TrimSpace(key) != key ||
			strings.ContainsAny(value, "\n\"'") || strings.TrimSpace(value) != value {
			return // not a key/value the policy can produce (no quotes, no line breaks)
		}
		format := FormatKV
		if spaced {
			format = FormatKVSpaced
		}
		out := EditKV([]byte(content), format, []KV{{Key: key, Value: value}})
		// Every foreign line survives, in order.
		in, _ := splitLines([]byte(content))
		var foreign []string
		for _, l := range in {
			if kvKey(l) != key {
				foreign = append(foreign, l)
			}
		}
		got, _ := splitLines(out)
		i := 0
		owned := 0
		for _, l := range got {
			if kvKey(l) == key {
				owned++
				if kvValue(l) != value {
					t.Fatalf("owned line %q does not carry %q", l, value)
				}
				continue
			}
			if i < len(foreign) && l == foreign[i] {
				i++
			}
		}
		if i != len(foreign) {
			t.Fatalf("foreign lines lost: kept %d of %d\nin  %q\nout %q", i, len(foreign), content, out)
		}
		if owned != 1 {
			t.Fatalf("owned key appears %d times in %q", owned, out)
		}
		// ReadKV sees what we wrote.
		kv := ReadKV(out, []string{key})
		if len(kv) != 1 {
			t.Fatalf("ReadKV found %v in %q", kv, out)
		}
	})
}

func TestEditOwnLines(t *testing.T) {
	cases := []struct {
		name, in string
		owned    []string
		want     string
	}{
		{"empty", "", []string{"options rdma_cm def_prec2sl=4"}, "options rdma_cm def_prec2sl=4\n"},
		{"old value replaced, comments kept", "# written by roce\noptions rdma_cm def_prec2sl=3\n", []string{"options rdma_cm def_prec2sl=4"}, "# written by roce\noptions rdma_cm def_prec2sl=4\n"},
		{"both old lines go", "options rdma_cm def_prec2sl=3\n\noptions rdma_cm def_prec2sl=5\n", []string{"options rdma_cm def_prec2sl=4"}, "\noptions rdma_cm def_prec2sl=4\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(EditOwnLines([]byte(tc.in), tc.owned))
			if got != tc.want {
				t.Errorf("got %q want %q", got, tc.want)
			}
			if again := string(EditOwnLines([]byte(got), tc.owned)); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

// The class moved from priority 3 to 4: roce's modprobe file must say 4
// only, not 3 and 4.
func TestApplyReplacesOwnModprobeLine(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, ModprobeFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("options rdma_cm def_prec2sl=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	d := &HostState{Files: []FileState{{Path: ModprobeFile, Format: FormatLines, Exists: true, Lines: []string{"options rdma_cm def_prec2sl=4"}}}}
	if rep, err := s.Apply(context.Background(), d, ApplyOptions{}); err != nil || rep.Status != "applied" {
		t.Fatalf("apply: %+v %v", rep, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "options rdma_cm def_prec2sl=4\n" {
		t.Errorf("modprobe file %q", b)
	}
}
