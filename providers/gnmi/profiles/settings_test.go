package profiles

import (
	"reflect"
	"strings"
	"testing"
)

// Effective fills defaults and lists only the settings of the profile.
func TestSettingsEffective(t *testing.T) {
	cases := []struct {
		profile string
		s       Settings
		want    map[string]string
	}{
		{"arista", Settings{}, map[string]string{"arista_no_drop_bit_order": "lsb0"}},
		{"arista", Settings{AristaNoDropBitOrder: "msb0", SONiCOrigin: "sonic-db"}, map[string]string{"arista_no_drop_bit_order": "msb0"}},
		{"sonic", Settings{}, map[string]string{"origin": "sonic-db"}},
		{"sonic", Settings{SONiCOrigin: "sonic-db"}, map[string]string{"origin": "sonic-db"}},
		{"srlinux", Settings{}, map[string]string{"origin": "(none)"}},
		{"srlinux", Settings{SRLinuxOrigin: "srl_nokia"}, map[string]string{"origin": "srl_nokia"}},
		{"openconfig", Settings{AristaNoDropBitOrder: "msb0"}, map[string]string{}},
	}
	for _, tc := range cases {
		if got := tc.s.Effective(tc.profile); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %+v: %v, want %v", tc.profile, tc.s, got, tc.want)
		}
	}
}

// New refuses a setting its profile cannot use, naming the value.
func TestNewRefusesBadSettings(t *testing.T) {
	cases := []struct {
		profile string
		s       Settings
		want    string
	}{
		{"arista", Settings{AristaNoDropBitOrder: "le"}, `bit order "le"`},
		{"sonic", Settings{SONiCOrigin: "sonic_yang"}, `SONiC origin "sonic_yang": want sonic-db (sonic-gnmi) or sonic_db`},
		{"srlinux", Settings{SRLinuxOrigin: "srl nokia"}, `SR Linux origin "srl nokia"`},
	}
	for _, tc := range cases {
		if _, err := New(tc.profile, tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: err = %v, want %q", tc.profile, tc.s, err, tc.want)
		}
	}
	// Settings for other profiles are not this profile's business.
	if _, err := New("arista", Settings{SONiCOrigin: "x"}); err != nil {
		t.Errorf("arista with a SONiC origin set: %v", err)
	}
}
