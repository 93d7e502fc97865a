package gnmisim

import (
	"context"
	"strings"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// startPlain runs a plaintext target on loopback and returns a client whose
// RPCs carry the right credentials.
func startPlain(t *testing.T, opts Options) (*Target, gpb.GNMIClient, context.Context) {
	t.Helper()
	opts.Users = map[string]string{"admin": "pw"}
	if opts.Interfaces == nil {
		opts.Interfaces = DefaultInterfaces(opts.Profile, 2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	srv, err := Listen(ctx, "127.0.0.1:0", opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	conn, err := grpc.NewClient("passthrough:///"+srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv.Target(), gpb.NewGNMIClient(conn), metadata.AppendToOutgoingContext(ctx, "username", "admin", "password", "pw")
}

func upd(origin, path, val string) *gpb.Update {
	p, err := gpath.Parse(path)
	if err != nil {
		panic(err)
	}
	return &gpb.Update{Path: p.Proto(origin), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(val)}}}
}

func TestSetStatusCodes(t *testing.T) {
	q := "/qos/queues/queue[name=ROCE-a]"
	okQueue := upd("openconfig", q, `{"name":"ROCE-a","config":{"name":"ROCE-a","queue-id":3}}`)
	cases := []struct {
		name    string
		profile string
		req     *gpb.SetRequest
		code    codes.Code
		msg     string
	}{
		{"unknown path", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/bogus/thing", `1`)}}, codes.NotFound, "not supported"},
		{"unknown leaf inside value", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", q, `{"name":"ROCE-a","config":{"name":"ROCE-a","colour":"red"}}`)}}, codes.InvalidArgument, "colour"},
		{"bad enum", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/classifiers/classifier[name=C]", `{"name":"C","config":{"name":"C","type":"BOGUS"}}`)}}, codes.InvalidArgument, "BOGUS"},
		{"out of range", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/queues/queue[name=Q]/config/queue-id", `300`)}}, codes.InvalidArgument, "outside range"},
		{"dscp out of range", "arista", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/classifiers/classifier[name=C]/terms/term[id=1]/conditions/ipv4/config/dscp-set", `[99]`)}}, codes.InvalidArgument, "99"},
		{"uint64 as a number", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/queue-management-profiles/queue-management-profile[name=P]/wred/uniform/config/min-threshold", `1000`)}}, codes.InvalidArgument, "RFC 7951"},
		{"arista deviation: transport", "arista", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/classifiers/classifier[name=C]/terms/term[id=1]/conditions/transport/config/destination-port", `4791`)}}, codes.NotFound, "not supported"},
		{"bitmap too long", "arista", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/interfaces/interface[interface-id=Ethernet1]/output/pfc/config/priorities-no-drop", `"108"`)}}, codes.InvalidArgument, "length"},
		{"ascii encoding", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{{Path: okQueue.Path, Val: &gpb.TypedValue{Value: &gpb.TypedValue_AsciiVal{AsciiVal: "x"}}}}}, codes.Unimplemented, "JSON_IETF"},
		{"wrong origin", "sonic", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/CONFIG_DB/localhost/PORT/Ethernet0/mtu", `"9100"`)}}, codes.InvalidArgument, "origin"},
		{"dangling leafref", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/qos/forwarding-groups/forwarding-group[name=F]", `{"name":"F","config":{"name":"F","output-queue":"NOPE"}}`)}}, codes.Aborted, "leafref"},
		{"key mismatch", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", q, `{"name":"OTHER","config":{"name":"OTHER"}}`)}}, codes.Aborted, "key"},
		{"replace with empty", "openconfig", &gpb.SetRequest{Replace: []*gpb.Update{upd("openconfig", q, `{}`)}}, codes.InvalidArgument, "empty"},
		{"unknown port", "sonic", &gpb.SetRequest{Update: []*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet99/pfc_enable", `"3"`)}}, codes.Aborted, "Ethernet99"},
		{"bad pfc_enable", "sonic", &gpb.SetRequest{Update: []*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/pfc_enable", `"3,9"`)}}, codes.InvalidArgument, "pattern"},
		{"one bad op fails all", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{okQueue, upd("openconfig", "/qos/queues/queue[name=Q]/config/queue-id", `-1`)}}, codes.InvalidArgument, "negative"},
		{"union_replace", "openconfig", &gpb.SetRequest{UnionReplace: []*gpb.Update{okQueue}}, codes.Unimplemented, "union_replace"},
		{"commit not supported", "openconfig", &gpb.SetRequest{Update: []*gpb.Update{okQueue}, Extension: []*gnmi_ext.Extension{commit("c1", time.Minute)}}, codes.Unimplemented, "commit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim, c, ctx := startPlain(t, Options{Profile: tc.profile})
			before := sim.ConfigJSON()
			_, err := c.Set(ctx, tc.req)
			if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v; want %v containing %q", err, tc.code, tc.msg)
			}
			if sim.ConfigJSON() != before {
				t.Error("a refused Set changed the target")
			}
		})
	}
}

func TestGetAndAuth(t *testing.T) {
	sim, c, ctx := startPlain(t, Options{Profile: "arista"})
	p, _ := gpath.Parse("/interfaces/interface[name=Ethernet1]/config/mtu")
	resp, err := c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto("openconfig")}, Encoding: gpb.Encoding_JSON_IETF})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()); got != "1500" {
		t.Errorf("mtu = %s", got)
	}
	whole, _ := gpath.Parse("/interfaces/interface")
	resp, err = c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{whole.Proto("openconfig")}, Encoding: gpb.Encoding_JSON_IETF})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()); !strings.HasPrefix(got, `[{"config":{"mtu":1500,"name":"Ethernet1","type":"iana-if-type:ethernetCsmacd"}`) || !strings.Contains(got, `"openconfig-if-ethernet:ethernet":`) {
		t.Errorf("whole list = %s", got)
	}
	for _, tc := range []struct {
		path string
		enc  gpb.Encoding
		code codes.Code
	}{
		{"/qos/nothing", gpb.Encoding_JSON_IETF, codes.NotFound},
		{"/qos/classifiers", gpb.Encoding_JSON_IETF, codes.NotFound}, // modelled, empty
		{"/interfaces", gpb.Encoding_PROTO, codes.Unimplemented},
	} {
		p, _ := gpath.Parse(tc.path)
		_, err := c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto("")}, Encoding: tc.enc})
		if status.Code(err) != tc.code {
			t.Errorf("Get %s %v: %v, want %v", tc.path, tc.enc, err, tc.code)
		}
	}
	noAuth := metadata.NewOutgoingContext(context.Background(), metadata.Pairs("username", "admin", "password", "nope"))
	if _, err := c.Capabilities(noAuth, &gpb.CapabilityRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("bad password: %v", err)
	}
	caps, err := c.Capabilities(ctx, &gpb.CapabilityRequest{})
	if err != nil || caps.GetSupportedEncodings()[0] != gpb.Encoding_JSON_IETF || len(caps.GetExtension()) != 0 {
		t.Errorf("caps = %v %v", caps, err)
	}
	_ = sim
}

// Deletes of paths that do not exist are accepted (gNMI §3.4.6); deletes,
// replaces and updates apply in that order within one request.
func TestSetOrderAndIdempotentDelete(t *testing.T) {
	sim, c, ctx := startPlain(t, Options{Profile: "openconfig"})
	q := "/qos/queues/queue[name=ROCE-a]"
	del, _ := gpath.Parse(q)
	_, err := c.Set(ctx, &gpb.SetRequest{
		Delete:  []*gpb.Path{del.Proto("openconfig")},
		Replace: []*gpb.Update{upd("openconfig", q, `{"name":"ROCE-a","config":{"name":"ROCE-a","queue-id":3}}`)},
		Update:  []*gpb.Update{upd("openconfig", q+"/config/queue-id", `4`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sim.ConfigJSON(), `"queue-id": 4`) {
		t.Errorf("update did not apply after replace: %s", sim.ConfigJSON())
	}
}

func commit(id string, d time.Duration) *gnmi_ext.Extension {
	return &gnmi_ext.Extension{Ext: &gnmi_ext.Extension_Commit{Commit: &gnmi_ext.Commit{Id: id,
		Action: &gnmi_ext.Commit_Commit{Commit: &gnmi_ext.CommitRequest{RollbackDuration: durationpb.New(d)}}}}}
}

func control(id string, action string) *gnmi_ext.Extension {
	c := &gnmi_ext.Commit{Id: id}
	switch action {
	case "confirm":
		c.Action = &gnmi_ext.Commit_Confirm{Confirm: &gnmi_ext.CommitConfirm{}}
	case "cancel":
		c.Action = &gnmi_ext.Commit_Cancel{Cancel: &gnmi_ext.CommitCancel{}}
	}
	return &gnmi_ext.Extension{Ext: &gnmi_ext.Extension_Commit{Commit: c}}
}

func TestCommitConfirmed(t *testing.T) {
	mtu := func(v string) *gpb.Update { return upd("", "/interface[name=ethernet-1/1]/mtu", v) }
	sim, c, ctx := startPlain(t, Options{Profile: "srlinux", CommitConfirm: true})
	orig := sim.ConfigJSON()
	caps, err := c.Capabilities(ctx, &gpb.CapabilityRequest{})
	if err != nil || len(caps.GetExtension()) != 0 {
		t.Fatalf("commit-confirmed advertised (real targets advertise nothing): %v %v", caps, err)
	}

	// Confirmed: kept.
	if _, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{mtu("9000")}, Extension: []*gnmi_ext.Extension{commit("a", time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{mtu("8000")}}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("Set while a commit is pending: %v, want FailedPrecondition", err)
	}
	if _, err := c.Set(ctx, &gpb.SetRequest{Extension: []*gnmi_ext.Extension{control("b", "confirm")}}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("confirm with a wrong id: %v, want InvalidArgument", err)
	}
	if _, err := c.Set(ctx, &gpb.SetRequest{Extension: []*gnmi_ext.Extension{control("a", "confirm")}}); err != nil {
		t.Fatal(err)
	}
	confirmed := sim.ConfigJSON()
	if confirmed == orig || sim.CommitPending() {
		t.Fatal("confirmed commit not kept")
	}
	if _, err := c.Set(ctx, &gpb.SetRequest{Extension: []*gnmi_ext.Extension{control("a", "confirm")}}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("confirm with nothing pending: %v", err)
	}

	// Cancelled: restored at once.
	if _, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{mtu("1600")}, Extension: []*gnmi_ext.Extension{commit("c", time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, &gpb.SetRequest{Extension: []*gnmi_ext.Extension{control("c", "cancel")}}); err != nil {
		t.Fatal(err)
	}
	if sim.ConfigJSON() != confirmed {
		t.Error("cancel did not restore")
	}

	// Never confirmed: the timer restores.
	if _, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{mtu("1700")}, Extension: []*gnmi_ext.Extension{commit("d", 100*time.Millisecond)}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for sim.CommitPending() || sim.ConfigJSON() != confirmed {
		if time.Now().After(deadline) {
			t.Fatal("unconfirmed commit never rolled back")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestFaults(t *testing.T) {
	sim, c, ctx := startPlain(t, Options{Profile: "openconfig", Faults: Faults{DropAfterSets: 1, Latency: time.Millisecond}})
	u := upd("openconfig", "/interfaces/interface[name=Ethernet1]/config/mtu", "9000")
	if _, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{u}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capabilities(ctx, &gpb.CapabilityRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("after the drop: %v, want Unavailable", err)
	}
	if len(sim.SetRequests()) != 1 {
		t.Errorf("recorded %d sets", len(sim.SetRequests()))
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Profile: "junos", Interfaces: []string{"et-0/0/0"}},
		{Profile: "sonic"},
		{Profile: "sonic", Interfaces: []string{"eth0"}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}
