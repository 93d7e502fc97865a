package perftest

import (
	"os"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/multisize_gbps.txt")
	if err != nil {
		b.Fatal(err)
	}
	s := string(data)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}
