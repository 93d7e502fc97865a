package gnmisim

import "testing"

// Every profile's pinned models compile with goyang, with the image's
// features applied.
func TestModelsCompile(t *testing.T) {
	for _, p := range []string{"openconfig", "arista", "srlinux", "sonic"} {
		t.Run(p, func(t *testing.T) {
			c, err := compileProfile(p)
			if err != nil {
				t.Fatal(err)
			}
			for n := range c.roots {
				t.Logf("root %s (%s)", n, c.module(c.roots[n]))
			}
		})
	}
}

// BenchmarkCompileProfile is the start-up cost of one profile's schema
// (paid once per Schemas value).
func BenchmarkCompileProfile(b *testing.B) {
	for _, p := range []string{"openconfig", "arista", "srlinux", "sonic"} {
		b.Run(p, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := compileProfile(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
