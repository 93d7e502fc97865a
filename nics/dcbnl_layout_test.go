package nics

import (
	"github.com/rocefabric/roce/internal/testenv"

	"bufio"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cLayout compiles testdata/dcbnl_layout.c against the installed kernel
// uapi headers and returns its "kind name value" lines.
func cLayout(t *testing.T) map[string]string {
	t.Helper()
	cc := testenv.Tool(t, "gcc", "apt-get install gcc libc6-dev")
	testenv.File(t, "/usr/include/linux/dcbnl.h", "apt-get install linux-libc-dev")
	bin := filepath.Join(t.TempDir(), "dcbnl_layout")
	if out, err := exec.Command(cc, "-Wall", "-o", bin, "testdata/dcbnl_layout.c").CombinedOutput(); err != nil {
		t.Fatalf("compile dcbnl_layout.c: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("run dcbnl_layout: %v", err)
	}
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<16), 1<<16)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("dcbnl_layout: bad line %q", sc.Text())
		}
		m[f[0]+" "+f[1]] = f[2]
	}
	return m
}

func samplePFC() IEEEPFC {
	p := IEEEPFC{Cap: 8, Enabled: 0x08, MBC: 1, Delay: 0x1234}
	for i := 0; i < 8; i++ {
		p.Requests[i] = 0x0102030405060700 + uint64(i)
		p.Indications[i] = 1000 + uint64(i)
	}
	return p
}

func sampleETS() IEEEETS {
	e := IEEEETS{Willing: 1, ETSCap: 8}
	for i := 0; i < 8; i++ {
		e.TCTxBW[i], e.TCRxBW[i], e.TCTSA[i], e.PrioTC[i] = uint8(10+i), uint8(20+i), 2, uint8(i)
		e.TCRecoBW[i], e.RecoPrioTC[i] = uint8(30+i), uint8(7-i)
	}
	return e
}

func TestDCBLayoutMatchesKernelHeader(t *testing.T) {
	c := cLayout(t)
	num := func(k string) int {
		v, ok := c[k]
		if !ok {
			t.Fatalf("C helper did not print %q", k)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return n
	}
	consts := []struct {
		name string
		got  int
	}{
		{"size ieee_pfc", ieeePFCSize}, {"size ieee_ets", ieeeETSSize}, {"size dcb_app", dcbAppSize}, {"size dcbmsg", dcbMsgSize},
		{"off ieee_pfc.pfc_en", 1}, {"off ieee_pfc.mbc", 2}, {"off ieee_pfc.delay", 4},
		{"off ieee_pfc.requests", 8}, {"off ieee_pfc.indications", 72},
		{"off ieee_ets.prio_tc", 3 + 3*8}, {"off ieee_ets.reco_prio_tc", 3 + 6*8}, {"off dcb_app.protocol", 2},
		{"const RTM_GETDCB", rtmGetDCB}, {"const RTM_SETDCB", rtmSetDCB},
		{"const DCB_CMD_IEEE_SET", dcbCmdIEEESet}, {"const DCB_CMD_IEEE_GET", dcbCmdIEEEGet}, {"const DCB_CMD_IEEE_DEL", dcbCmdIEEEDel},
		{"const DCB_CMD_GDCBX", dcbCmdGDCBX}, {"const DCB_CMD_SDCBX", dcbCmdSDCBX},
		{"const DCB_ATTR_IFNAME", dcbAttrIfname}, {"const DCB_ATTR_IEEE", dcbAttrIEEE}, {"const DCB_ATTR_DCBX", dcbAttrDCBX},
		{"const DCB_ATTR_IEEE_PFC", dcbAttrIEEEPFC}, {"const DCB_ATTR_IEEE_ETS", dcbAttrIEEEETS},
		{"const DCB_ATTR_IEEE_APP_TABLE", dcbAttrIEEEAppTable}, {"const DCB_ATTR_IEEE_APP", dcbAttrIEEEApp},
		{"const IEEE_8021QAZ_APP_SEL_DSCP", AppSelDSCP}, {"const DCB_CAP_DCBX_HOST", DCBXHost},
		{"const DCB_CAP_DCBX_LLD_MANAGED", DCBXLLDManaged}, {"const DCB_CAP_DCBX_VER_IEEE", DCBXVerIEEE},
	}
	for _, k := range consts {
		if want := num(k.name); k.got != want {
			t.Errorf("%s: Go has %d, kernel header %d", k.name, k.got, want)
		}
	}
	bytesEq := func(name string, got []byte) {
		t.Helper()
		if want := c[name]; hex.EncodeToString(got) != want {
			t.Errorf("%s:\n go %x\n  c %s", name, got, want)
		}
	}
	bytesEq("bytes ieee_pfc", samplePFC().Marshal())
	bytesEq("bytes ieee_ets", sampleETS().Marshal())
	bytesEq("bytes dcb_app", DCBApp{Selector: AppSelDSCP, Priority: 3, Protocol: 26}.Marshal())
	// Whole message bodies, after the 16-byte nlmsghdr (whose seq/pid vary).
	bytesEq("msg setpfc", BuildSetPFC("eth0", samplePFC()).Serialize()[16:])
	bytesEq("msg setapp", BuildApps("eth0", []DCBApp{{AppSelDSCP, 3, 26}, {AppSelDSCP, 5, 46}}, false).Serialize()[16:])
}

func TestDCBDecodeRoundTrip(t *testing.T) {
	c := cLayout(t)
	for _, name := range []string{"msg setpfc", "msg setapp"} {
		b, err := hex.DecodeString(c[name])
		if err != nil {
			t.Fatal(err)
		}
		r, err := DecodeIEEEGet(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch name {
		case "msg setpfc":
			if r.PFC == nil || *r.PFC != samplePFC() {
				t.Errorf("decoded PFC %+v, want %+v", r.PFC, samplePFC())
			}
		case "msg setapp":
			want := []DCBApp{{AppSelDSCP, 3, 26}, {AppSelDSCP, 5, 46}}
			if len(r.Apps) != 2 || r.Apps[0] != want[0] || r.Apps[1] != want[1] {
				t.Errorf("decoded apps %+v, want %+v", r.Apps, want)
			}
		}
	}
	e, err := UnmarshalIEEEETS(sampleETS().Marshal())
	if err != nil || e != sampleETS() {
		t.Errorf("ETS round trip: %+v %v", e, err)
	}
}

func TestDCBDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		msg  []byte
	}{
		{"short dcbmsg", []byte{0, 21}},
		{"truncated attr header", []byte{0, 21, 0, 0, 8}},
		{"attr length past end", []byte{0, 21, 0, 0, 40, 0, 13, 0}},
		{"attr length below header", []byte{0, 21, 0, 0, 2, 0, 13, 0}},
		{"short pfc", append([]byte{0, 21, 0, 0, 12, 0, 13, 0}, 8, 0, 2, 0, 1, 2, 3, 4)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeIEEEGet(tc.msg); err == nil {
				t.Errorf("DecodeIEEEGet(%x) = nil error, want one", tc.msg)
			}
		})
	}
}

func FuzzDCBDecode(f *testing.F) {
	f.Add(BuildSetPFC("eth0", samplePFC()).Serialize()[16:])
	f.Add(BuildApps("eth0", []DCBApp{{AppSelDSCP, 3, 26}}, false).Serialize()[16:])
	f.Add([]byte{0, 21, 0, 0, 5, 0, 13, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeIEEEGet(b)
		if err != nil {
			return
		}
		// Whatever decodes must re-encode to the same struct.
		if r.PFC != nil {
			p, err := UnmarshalIEEEPFC(r.PFC.Marshal())
			if err != nil || p != *r.PFC {
				t.Fatalf("PFC re-encode: %+v vs %+v (%v)", p, *r.PFC, err)
			}
		}
		for _, a := range r.Apps {
			x, err := UnmarshalDCBApp(a.Marshal())
			if err != nil || x != a {
				t.Fatalf("APP re-encode: %+v vs %+v", x, a)
			}
		}
		_, _ = DecodeStatus(b, dcbAttrIEEE)
	})
}
