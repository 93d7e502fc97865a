package perftest

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{
			name: "verbs server fully pinned",
			o: Options{Device: "mlx5_0", IBPort: 1, GIDIndex: 3, SL: 3, TClass: 106,
				Duration: 10 * time.Second, Size: 65536, QPs: 4, TCPPort: 18515},
			want: "-d mlx5_0 -i 1 -x 3 --sl=3 --tclass=106 -D 10 -s 65536 -q 4 -p 18515 --report_gbits -F",
		},
		{
			name: "verbs client adds the server address last",
			o:    Options{Device: "mlx5_0", IBPort: 1, GIDIndex: 3, SL: 3, TCPPort: 18600, Server: "10.0.0.1"},
			want: "-d mlx5_0 -i 1 -x 3 --sl=3 -p 18600 --report_gbits -F 10.0.0.1",
		},
		{
			name: "rdma_cm uses -R -T and never -x/--sl",
			o:    Options{Device: "mlx5_0", GIDIndex: 3, SL: 3, TClass: 106, RDMACM: true, ToS: 106, Duration: 10 * time.Second},
			want: "-d mlx5_0 -R -T 106 -D 10 --report_gbits -F",
		},
		{
			name: "rdma_cm without ToS leaves the configfs default",
			o:    Options{RDMACM: true, GIDIndex: -1, Server: "h1"},
			want: "-R --report_gbits -F h1",
		},
		{
			name: "gid -1 lets perftest choose",
			o:    Options{GIDIndex: -1, SL: 0},
			want: "--sl=0 --report_gbits -F",
		},
		{
			name: "sub-second duration rounds up",
			o:    Options{GIDIndex: -1, Duration: 1500 * time.Millisecond, Bidirectional: true, ExtraArgs: []string{"--cpu_util"}},
			want: "--sl=0 -D 2 -b --report_gbits -F --cpu_util",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.o.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if got := strings.Join(Args(tc.o), " "); got != tc.want {
				t.Errorf("Args:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestArgv(t *testing.T) {
	tests := []struct {
		o    Options
		want []string
	}{
		{Options{GIDIndex: -1}, []string{"ib_write_bw", "--sl=0", "--report_gbits", "-F"}},
		{Options{Tool: ToolSendBW, GIDIndex: -1}, []string{"ib_send_bw", "--sl=0", "--report_gbits", "-F"}},
		{Options{Tool: ToolSendBW, Command: []string{"/opt/pt/ib_write_bw", "--odp"}, GIDIndex: -1},
			[]string{"/opt/pt/ib_write_bw", "--odp", "--sl=0", "--report_gbits", "-F"}},
	}
	for _, tc := range tests {
		if got := Argv(tc.o); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Argv(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		o    Options
		want string
	}{
		{Options{Tool: "ib_write_lat"}, "unknown tool"},
		{Options{Command: []string{""}}, "empty executable"},
		{Options{GIDIndex: -2}, "gid index"},
		{Options{SL: 8}, "service level"},
		{Options{TClass: 256}, "traffic class"},
		{Options{ToS: 106}, "needs rdma_cm"},
		{Options{RDMACM: true, ToS: 300}, "ToS 300"},
		{Options{Duration: -time.Second}, "negative duration"},
		{Options{TCPPort: 70000}, "TCP port"},
		{Options{QPs: -1}, "QP count"},
		{Options{Size: -1}, "message size"},
		{Options{IBPort: -1}, "ib port"},
		{Options{Timeout: -1}, "timeout"},
	}
	for _, tc := range tests {
		err := tc.o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want error containing %q", tc.o, err, tc.want)
		}
	}
}

func TestDefaultTimeoutCoversTheRun(t *testing.T) {
	for _, d := range []time.Duration{0, time.Second, 10 * time.Second, 5 * time.Minute} {
		o := Options{Duration: d}
		if got := DefaultTimeout(o); got <= d {
			t.Errorf("DefaultTimeout(duration %s) = %s, must exceed the run", d, got)
		}
	}
}

func TestToolAllowList(t *testing.T) {
	for _, tc := range []struct {
		exe string
		ok  bool
	}{
		{"ib_write_bw", true}, {"ib_read_bw", true}, {"ib_send_bw", true},
		{"ib_write_lat", true}, {"ib_read_lat", true}, {"ib_send_lat", true},
		{"/usr/bin/ib_write_bw", true},
		{"sh", false}, {"/bin/sh", false}, {"bash -c id", false}, {"./ib_write_bw", false},
		{"bin/ib_write_bw", false}, {"ib_write_bw;id", false}, {"IB_WRITE_BW", false}, {"", false},
		{"ib_write_bw ", false}, {"/tmp/x/ib_write_bw/../sh", false},
	} {
		err := CheckExecutable(tc.exe)
		if (err == nil) != tc.ok {
			t.Errorf("CheckExecutable(%q) = %v, want ok=%v", tc.exe, err, tc.ok)
		}
	}
	if IsBandwidthTool(ToolWriteLat) || !IsBandwidthTool(ToolSendBW) {
		t.Error("IsBandwidthTool is wrong about the latency/bandwidth split")
	}
	if len(KnownTools()) != 6 || len(BandwidthTools()) != 3 {
		t.Errorf("KnownTools %v, BandwidthTools %v", KnownTools(), BandwidthTools())
	}
}
