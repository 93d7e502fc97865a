package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRenderApplyGolden(t *testing.T) {
	tests := []struct {
		golden string
		render func(*bytes.Buffer, *ApplyReport) error
	}{
		{"apply.txt", func(b *bytes.Buffer, r *ApplyReport) error { return RenderApplyText(b, r, false) }},
		{"apply-color.txt", func(b *bytes.Buffer, r *ApplyReport) error { return RenderApplyText(b, r, true) }},
		{"apply.json", func(b *bytes.Buffer, r *ApplyReport) error { return RenderApplyJSON(b, r) }},
		{"apply.md", func(b *bytes.Buffer, r *ApplyReport) error { return RenderApplyMarkdown(b, r) }},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.render(&buf, fixtureRenderApplyReport()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, buf.Bytes())
		})
	}
}

func TestApplySummary(t *testing.T) {
	res := func(statuses ...string) *ApplyReport {
		r := &ApplyReport{}
		for i, s := range statuses {
			r.Results = append(r.Results, &ApplyResult{Address: "switch." + string(rune('a'+i)), Status: s})
		}
		return r
	}
	tests := []struct {
		name string
		r    *ApplyReport
		want string
	}{
		{"nil", nil, "Apply complete: 0 applied, 0 rolled back, 0 untouched, 0 failed."},
		{"issue example", res(StatusApplied, StatusApplied, StatusApplied, StatusRolledBack, StatusUntouched, StatusUntouched),
			"Apply incomplete: 3 applied, 1 rolled back, 2 untouched, 0 failed."},
		{"all applied or unchanged", res(StatusApplied, StatusUnchanged),
			"Apply complete: 1 applied, 1 unchanged, 0 rolled back, 0 untouched, 0 failed."},
		{"a stale target alone", res(StatusApplied, StatusStale),
			"Apply incomplete: 1 applied, 0 rolled back, 1 stale (re-run roce-plan), 0 untouched, 0 failed."},
		{"fixture", fixtureRenderApplyReport(),
			"Apply FAILED: 1 applied, 1 unchanged, 1 rolled back, 1 stale (re-run roce-plan), 1 refused, 2 untouched, 1 failed."},
		{"stopped before anything (a bad policy)", &ApplyReport{Error: "the policy in x did not load"},
			"Apply stopped before changing anything: 0 applied, 0 rolled back, 0 untouched, 0 failed."},
		{"unknown status counted", res("exploded", StatusApplied),
			"Apply FAILED: 1 applied, 0 rolled back, 0 untouched, 0 failed, 1 with an unknown status."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ApplySummary(tc.r); got != tc.want {
				t.Errorf("ApplySummary = %q\nwant           %q", got, tc.want)
			}
		})
	}
}

func TestRenderApplyTextContent(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderApplyText(&buf, fixtureRenderApplyReport(), false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"switch.n5k-a: applied (8.2s)\n  warning: not saved to the startup configuration",
		"switch.leaf1: rolled-back (3s)\n  error: commit confirm not received",
		"    ! Confirm\n      rpc error: code = DeadlineExceeded\n",
		"    ! priority-flow-control mode on\n",
		"host.gpu-1: stale\n  error: stale plan",
		"Started 2026-11-22 02:00:00 UTC, took 42.12s.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apply report lacks %q\n%s", want, out)
		}
	}
	if strings.Contains(out, "> checkpoint roce-1") {
		t.Error("the transcript of a successful target is shown")
	}
	if !strings.HasSuffix(out, "Apply FAILED: 1 applied, 1 unchanged, 1 rolled back, 1 stale (re-run roce-plan), 1 refused, 2 untouched, 1 failed.\n") {
		t.Errorf("report does not end with the summary:\n%s", out)
	}
}

func TestRenderApplyJSONContent(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderApplyJSON(&buf, fixtureRenderApplyReport()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		FormatVersion int            `json:"format_version"`
		Kind          string         `json:"kind"`
		FinishedAt    time.Time      `json:"finished_at"`
		Counts        ApplyCounts    `json:"counts"`
		Results       []*ApplyResult `json:"results"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := ApplyCounts{Applied: 1, Unchanged: 1, RolledBack: 1, Failed: 1, Stale: 1, Refused: 1, Untouched: 2}
	if got.Counts != want || got.Kind != "roce-apply-report" || got.FormatVersion != FormatVersion || len(got.Results) != 8 {
		t.Errorf("decoded report = %+v", got)
	}
	// JSON keeps every transcript, successful ones too.
	if len(got.Results[0].Transcript) != 1 || got.Results[2].Duration != 3*time.Second {
		t.Errorf("results lost data: %+v", got.Results[0])
	}
}
