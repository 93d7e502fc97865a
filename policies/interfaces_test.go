package policies

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpandInterfaces(t *testing.T) {
	tests := []struct {
		spec    string
		want    []string
		wantErr string
	}{
		{spec: "Ethernet1/1", want: []string{"Ethernet1/1"}},
		{spec: "Ethernet1/1-4", want: []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"}},
		{spec: "eth1/1", want: []string{"Ethernet1/1"}},
		{spec: "Eth1/7", want: []string{"Ethernet1/7"}},
		{spec: "e2/3", want: []string{"Ethernet2/3"}},
		{spec: "Ethernet1/1, Ethernet2/3-4", want: []string{"Ethernet1/1", "Ethernet2/3", "Ethernet2/4"}},
		{spec: "Ethernet101/1/1-3", want: []string{"Ethernet101/1/1", "Ethernet101/1/2", "Ethernet101/1/3"}},
		{spec: "ETHERNET1/5 - 6", want: []string{"Ethernet1/5", "Ethernet1/6"}},
		{spec: "Ethernet1/32-1", wantErr: "range end 1 is below its start 32"},
		{spec: "Ethernet1/1,Ethernet1/1-2", wantErr: "Ethernet1/1 is listed twice"},
		{spec: "Ethernet1/1,", wantErr: "empty item"},
		{spec: "GigabitEthernet0/1", wantErr: "is not an NX-OS Ethernet interface"},
		{spec: "Ethernet1", wantErr: "is not an NX-OS Ethernet interface"},
		{spec: "Ethernet0/1", wantErr: `"0" is not a slot or port number`},
		{spec: "Ethernet1/1-99999", wantErr: "range end"},
		{spec: "Ethernet1/1/1/1", wantErr: "is not an NX-OS Ethernet interface"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := ExpandInterfaces(tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExpandGenericInterfaces(t *testing.T) {
	tests := []struct {
		spec    string
		want    []string
		wantErr string
	}{
		{spec: "Ethernet0", want: []string{"Ethernet0"}},
		{spec: "ethernet-1/1-3", want: []string{"ethernet-1/1", "ethernet-1/2", "ethernet-1/3"}},
		{spec: "Ethernet1/1-2,Ethernet2/1", want: []string{"Ethernet1/1", "Ethernet1/2", "Ethernet2/1"}},
		{spec: "Port-Channel", want: []string{"Port-Channel"}},
		{spec: "Ethernet8-4", wantErr: "below its start"},
		{spec: "Ethernet4,Ethernet4", wantErr: "listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := expandGenericInterfaces(tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
