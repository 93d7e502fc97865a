package nexus

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readShow(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "show", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkParse parses text, wants want, and wants format's printing of the
// result to parse back to the same value.
func checkParse[T any](t testing.TB, text string, want T, parse func(string) (T, error), format func(T) string) {
	t.Helper()
	got, err := parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	checkFormatRoundTrip(t, got, parse, format)
}

// checkFormatRoundTrip wants format's printing of got to parse back to got.
func checkFormatRoundTrip[T any](t testing.TB, got T, parse func(string) (T, error), format func(T) string) {
	t.Helper()
	again, err := parse(format(got))
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("format round trip:\n got %+v\nwant %+v (%v)", again, got, err)
	}
}

// lineEndings returns the text with LF, CRLF and CR endings.
func lineEndings(s string) map[string]string {
	return map[string]string{
		"lf":   s,
		"crlf": strings.ReplaceAll(s, "\n", "\r\n"),
		"cr":   strings.ReplaceAll(s, "\n", "\r"),
	}
}

func TestParseShowVersion(t *testing.T) {
	tests := []struct {
		file string
		want Version
		kind string
	}{
		{"version-n5548.txt", Version{Platform: "Nexus5548", Chassis: `Chassis ("O2 32X10GE/Modular Universal Platform Supervisor")`, OS: "5.2(1)N1(4)", Kickstart: "5.2(1)N1(4)", Image: "bootflash:///n5000-uk9.5.2.1.N1.4.bin"}, "nexus5000"},
		{"version-n5596.txt", Version{Platform: "Nexus5596", Chassis: `Chassis ("O2 48X10GE/Modular Supervisor")`, OS: "7.1(4)N1(1)", Kickstart: "7.1(4)N1(1)", Image: "bootflash:///n6000-uk9.7.1.4.N1.1.bin"}, "nexus5000"},
		{"version-n7k.txt", Version{Platform: "Nexus7000", Chassis: `C7010 (10 Slot) Chassis ("Supervisor module-1X")`, OS: "5.2(9)", Kickstart: "5.2(9)", Image: "bootflash:///n7000-s1-dk9.5.2.9.bin"}, "nexus7000"},
	}
	for _, tt := range tests {
		for ending, text := range lineEndings(readShow(t, tt.file)) {
			t.Run(tt.file+"/"+ending, func(t *testing.T) {
				got, err := ParseShowVersion(text)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Fatalf("got %+v\nwant %+v", got, tt.want)
				}
				kind, err := KindFromVersion(got)
				if err != nil || kind != tt.kind {
					t.Fatalf("kind %q, %v; want %q", kind, err, tt.kind)
				}
				again, err := ParseShowVersion(FormatShowVersion(got))
				if err != nil || again != got {
					t.Fatalf("format round trip: %+v %v", again, err)
				}
			})
		}
	}
	for _, bad := range []string{"", "hello", "  system:    version 5.2(9)\n", "cisco Nexus7000 C7010\n"} {
		if _, err := ParseShowVersion(bad); err == nil {
			t.Errorf("ParseShowVersion(%q) accepted bad input", bad)
		}
	}
	if _, err := KindFromVersion(Version{Platform: "Nexus9000"}); err == nil {
		t.Error("KindFromVersion accepted a Nexus 9000")
	}
}

func TestParseShowModule(t *testing.T) {
	tests := []struct {
		file string
		want []Module
	}{
		{"module-n7k.txt", []Module{
			{Slot: 1, Ports: 0, Type: "NX-OSv Supervisor Module", Model: "N7K-SUP1", Status: "active *", Series: "sup"},
			{Slot: 2, Ports: 48, Type: "NX-OSv Ethernet Module", Model: "N7K-F248XP-25", Status: "ok", Series: "F"},
		}},
		{"module1-n7k.txt", []Module{
			{Slot: 1, Ports: 48, Type: "1000 Mbps Optical Ethernet Modul", Model: "N7K-M148GS-11", Status: "ok", Series: "M"},
			{Slot: 2, Ports: 32, Type: "10 Gbps Ethernet Module", Model: "N7K-F132XP-15", Status: "ok", Series: "F"},
			{Slot: 3, Ports: 0, Type: "Supervisor Module-2", Model: "", Status: "powered-up", Series: "sup"},
			{Slot: 5, Ports: 0, Type: "Supervisor Module-2", Model: "N7K-SUP2", Status: "active *", Series: "sup"},
		}},
	}
	for _, tt := range tests {
		for ending, text := range lineEndings(readShow(t, tt.file)) {
			t.Run(tt.file+"/"+ending, func(t *testing.T) {
				checkParse(t, text, tt.want, ParseShowModule, FormatShowModule)
			})
		}
	}
	for _, bad := range []string{"", "Mod  Ports  Module-Type Model Status\n", "Mod  Ports  Module-Type Model Status\n---  -----  ---- ----- ------\nx    48     a    b     ok\n", "Mod  Ports  Module-Type Model Status\n---  -----  ---- ----- ------\n"} {
		if _, err := ParseShowModule(bad); err == nil {
			t.Errorf("ParseShowModule(%q) accepted bad input", bad)
		}
	}
}

func TestParseShowPFC(t *testing.T) {
	want := []PFCStatus{
		{Interface: "Ethernet1/47", Mode: "Auto", RxPPP: 7316, TxPPP: 762946},
		{Interface: "Ethernet1/48", Mode: "Auto", RxPPP: 7428, TxPPP: 761362},
		{Interface: "Ethernet4/15", Mode: "Auto"},
		{Interface: "Ethernet1/2", Mode: "Auto", Oper: true, VLBitmap: 0x08, RxPPP: 4088353, TxPPP: 1890},
		{Interface: "Ethernet1/5", Mode: "On", Oper: true, VLBitmap: 0, TxPPP: 12},
	}
	for ending, text := range lineEndings(readShow(t, "pfc-n5k.txt")) {
		t.Run(ending, func(t *testing.T) {
			checkParse(t, text, want, ParseShowPFC, FormatShowPFC)
		})
	}
	hdr := "Port               Mode Oper(VL bmap)  RxPPP      TxPPP\n"
	for _, bad := range []string{"", hdr + "Ethernet1/1 Auto Maybe 1 2\n", hdr + "Ethernet1/1 Auto On (zz) 1 2\n", hdr + "Ethernet1/1 Auto On (8) x 2\n", hdr + "Ethernet1/1 Auto On (8) 1\n", hdr + "Bogus Auto On 1 2\n"} {
		if _, err := ParseShowPFC(bad); err == nil {
			t.Errorf("ParseShowPFC(%q) accepted bad input", bad)
		}
	}
}

func TestParseShowQueuing(t *testing.T) {
	want := []QueuingInterface{
		{Interface: "Ethernet1/47", Groups: []QueuingGroup{
			{QoSGroup: 0, Direction: "TX", Bandwidth: 50},
			{QoSGroup: 1, Direction: "TX", Bandwidth: 50},
			{QoSGroup: 0, Direction: "RX", DropType: "drop", MTU: 1500, QSize: 243200, RxPause: "Inactive", TxPause: "Inactive"},
			{QoSGroup: 1, Direction: "RX", DropType: "no-drop", MTU: 2158, QSize: 79360, Discards: 160104, RxPause: "Inactive", TxPause: "Active"},
		}},
		{Interface: "Ethernet1/48", Groups: []QueuingGroup{
			{QoSGroup: 0, Direction: "TX", Bandwidth: 50},
			{QoSGroup: 3, Direction: "TX", Bandwidth: 50},
			{QoSGroup: 3, Direction: "RX", DropType: "no-drop", MTU: 9216, QSize: 90240, Discards: 7, RxPause: "Active", TxPause: "Inactive"},
		}},
	}
	for ending, text := range lineEndings(readShow(t, "queuing-n5k.txt")) {
		t.Run(ending, func(t *testing.T) {
			checkParse(t, text, want, ParseShowQueuing, FormatShowQueuing)
		})
	}
	for _, bad := range []string{"", "nothing here\n", "Bogus queuing information:\n", "Ethernet1/1 queuing information:\n  RX Queuing\n    qos-group 99\n"} {
		if _, err := ParseShowQueuing(bad); err == nil {
			t.Errorf("ParseShowQueuing(%q) accepted bad input", bad)
		}
	}
	// Output in a layout the parser does not read names the first line
	// that is not the echoed command, so a user can tell another
	// platform's output from an empty answer.
	for _, tt := range []struct{ text, want string }{
		{"", "no output"},
		{"\n  \n", "no output"},
		{"switch# show queuing interface ethernet 3/1\nsome other layout\n", `line 2 reads "some other layout"`},
		{"% Invalid command at '^' marker.\n", `line 1 reads "% Invalid command at '^' marker."`},
	} {
		_, err := ParseShowQueuing(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseShowQueuing(%q): %v, want an error with %q", tt.text, err, tt.want)
		}
	}
}

// The formatters print the columns where the reference samples have them.
func TestFormatColumns(t *testing.T) {
	got := FormatShowPFC([]PFCStatus{{Interface: "Ethernet1/47", Mode: "Auto", RxPPP: 7316, TxPPP: 762946}, {Interface: "Ethernet1/2", Mode: "Auto", Oper: true, VLBitmap: 8, RxPPP: 4088353, TxPPP: 1890}})
	for _, want := range []string{
		"Ethernet1/47       Auto Off           7316       762946\n",
		"Ethernet1/2        Auto On   (8)      4088353    1890\n",
		"Port               Mode Oper(VL bmap)  RxPPP      TxPPP\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("FormatShowPFC lacks %q:\n%s", want, got)
		}
	}
	mods := FormatShowModule([]Module{{Slot: 2, Ports: 48, Type: "NX-OSv Ethernet Module", Model: "N7K-F248XP-25", Status: "ok"}})
	if !strings.Contains(mods, "2    48     NX-OSv Ethernet Module              N7K-F248XP-25      ok\n") {
		t.Errorf("FormatShowModule:\n%s", mods)
	}
}
