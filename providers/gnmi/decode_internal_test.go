package gnmi

import (
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/proto"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

func TestDecodeGetResponseShapes(t *testing.T) {
	prof, _ := profiles.New("arista", profiles.Settings{})
	want, _ := gpath.Parse("/qos/queues")
	q, _ := gpath.Parse("/qos/queues/queue[name=A]/config/queue-id")
	whole := &gpb.GetResponse{Notification: []*gpb.Notification{{Update: []*gpb.Update{{
		Path: want.Proto("openconfig"),
		Val:  &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"openconfig-qos:queue":[{"name":"A","config":{"name":"A","queue-id":3}}]}`)}},
	}}}}}
	perLeaf := &gpb.GetResponse{Notification: []*gpb.Notification{{
		Prefix: &gpb.Path{Origin: "openconfig", Elem: []*gpb.PathElem{{Name: "qos"}}},
		Update: []*gpb.Update{
			{Path: &gpb.Path{Elem: q.Proto("").Elem[1:]}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: 3}}},
			{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "queues"}, {Name: "queue", Key: map[string]string{"name": "A"}}, {Name: "name"}}}, Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: "A"}}},
		},
	}}}
	a, err := decodeGetResponse(whole, want, prof.KeysOf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeGetResponse(perLeaf, want, prof.KeysOf)
	if err != nil {
		t.Fatal(err)
	}
	am, bm := toMap(a), toMap(b)
	if canon(am[q.Key()].Value) != "3" || canon(bm[q.Key()].Value) != "3" {
		t.Errorf("queue-id: whole %v, per-leaf %v", am[q.Key()], bm[q.Key()])
	}
	if len(a) != 3 || len(b) != 2 {
		t.Errorf("leaves: %d and %d", len(a), len(b))
	}
	bad := proto.Clone(whole).(*gpb.GetResponse)
	bad.Notification[0].Update[0].Val = &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"queue":{"name":"A"}}`)}}
	if _, err := decodeGetResponse(bad, want, prof.KeysOf); err == nil {
		t.Error("a list given as an object was accepted")
	}
}

// FuzzGetResponse: whatever bytes a target answers, decoding never panics
// and what it returns lies under the requested path and rebuilds.
func FuzzGetResponse(f *testing.F) {
	seed := &gpb.GetResponse{Notification: []*gpb.Notification{{Update: []*gpb.Update{{
		Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "qos"}, {Name: "queues"}}},
		Val:  &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"queue":[{"name":"A","config":{"queue-id":3}}]}`)}},
	}}}}}
	b, err := proto.Marshal(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, "/qos/queues")
	f.Add([]byte{0x0a, 0x02, 0x2a, 0x00}, "/")
	prof, _ := profiles.New("srlinux", profiles.Settings{})
	f.Fuzz(func(t *testing.T, raw []byte, path string) {
		var resp gpb.GetResponse
		if proto.Unmarshal(raw, &resp) != nil {
			return
		}
		want, err := gpath.Parse(path)
		if err != nil {
			return
		}
		leaves, err := decodeGetResponse(&resp, want, prof.KeysOf)
		if err != nil {
			return
		}
		for _, l := range leaves {
			if !l.Path.HasPrefix(want) {
				t.Fatalf("leaf %s outside %s", l.Path, want)
			}
		}
	})
}
