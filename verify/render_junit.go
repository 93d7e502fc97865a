package verify

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML in the Jenkins/Surefire dialect that CI systems read:
// <testsuites> with one <testsuite> for probes and one for checks; one
// <testcase> per probe pair and per check. Failures (the fabric is wrong)
// are <failure>, errors (could not measure) are <error>, skips <skipped>.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string          `xml:"name,attr"`
	Tests     int             `xml:"tests,attr"`
	Failures  int             `xml:"failures,attr"`
	Errors    int             `xml:"errors,attr"`
	Skipped   int             `xml:"skipped,attr"`
	Time      string          `xml:"time,attr"`
	Timestamp string          `xml:"timestamp,attr,omitempty"`
	Props     *junitProps     `xml:"properties,omitempty"`
	Cases     []junitTestCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

func secs(v float64) string { return fmt.Sprintf("%.3f", v) }

func junitCase(tc *junitTestCase, st Status, typ, msg, body string) {
	m := &junitMessage{Message: msg, Type: typ, Body: body}
	switch st {
	case StatusFail:
		tc.Failure = m
	case StatusError:
		tc.Error = m
	case StatusSkip:
		tc.Skipped = &junitMessage{Message: msg}
	case StatusWarn:
		// JUnit has no warning: the case passes and says why it warns.
		tc.SystemOut = strings.TrimPrefix(tc.SystemOut+"\nwarning: "+msg, "\n")
	}
}

// RenderJUnit writes the JUnit XML report.
func RenderJUnit(w io.Writer, r *Report) error {
	probes := junitSuite{Name: "roce-verify.probes", Timestamp: r.Started.UTC().Format("2006-01-02T15:04:05")}
	probes.Props = &junitProps{Props: []junitProp{{Name: "tool", Value: r.Tool}}}
	if r.Emulated {
		probes.Props.Props = append(probes.Props.Props, junitProp{Name: "rdma-device", Value: EmulatedLabel + ": " + EmulatedModel})
	}
	total := 0.0
	for _, p := range r.Probes {
		name := fmt.Sprintf("%s <- %s (round %d)", p.Server, p.Client, p.Round)
		if p.Emulated != nil {
			name += " [" + EmulatedLabel + "]"
		}
		tc := junitTestCase{
			Name:      name,
			Classname: "roce.probe." + p.Class,
			Time:      secs(p.Seconds),
			SystemOut: p.Message + "\nserver: " + strings.Join(p.ServerArgv, " ") + "\nclient: " + strings.Join(p.ClientArgv, " "),
		}
		for _, n := range p.Notes {
			tc.SystemOut += "\nnote: " + n
		}
		typ, body := "", ""
		if p.Failure != nil {
			typ = p.Failure.Class
			body = p.Failure.Detail + "\nhint: " + p.Failure.Hint
		}
		for _, c := range p.Causes {
			body += "\ncause: " + c.String()
		}
		junitCase(&tc, p.Status, typ, p.Message, body)
		count(&probes, p.Status)
		total += p.Seconds
		probes.Cases = append(probes.Cases, tc)
	}
	probes.Time = secs(total)

	checks := junitSuite{Name: "roce-verify.checks", Timestamp: probes.Timestamp, Time: secs(0)}
	for _, c := range r.Checks {
		cls := "roce.check." + c.Name
		tc := junitTestCase{Name: c.ID(), Classname: cls, Time: secs(0)}
		junitCase(&tc, c.Status, c.Name, c.Message, c.Message)
		count(&checks, c.Status)
		checks.Cases = append(checks.Cases, tc)
	}

	doc := junitSuites{Name: "roce-verify", Suites: []junitSuite{probes, checks},
		Time: secs(r.Finished.Sub(r.Started).Seconds())}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func count(s *junitSuite, st Status) {
	s.Tests++
	switch st {
	case StatusFail:
		s.Failures++
	case StatusError:
		s.Errors++
	case StatusSkip:
		s.Skipped++
	}
}
