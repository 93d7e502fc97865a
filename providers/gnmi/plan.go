package gnmi

import (
	"context"
	"fmt"
	"sort"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// Plan reads the switch and returns the changes and the exact SetRequest.
func (t *target) Plan(ctx context.Context) (*plan.TargetPlan, error) {
	tp := &plan.TargetPlan{Address: t.Address(), Kind: t.kind(), Endpoint: t.sw.Address}
	// Plaintext or unverified TLS, set explicitly in the policy: said in
	// every plan (text, JSON, Markdown), naming this switch.
	tp.Warnings = append(tp.Warnings, t.sw.TransportWarnings()...)
	fail := func(err error) (*plan.TargetPlan, error) {
		tp.Error = err.Error()
		return tp, err
	}
	if err := t.connect(ctx); err != nil {
		return fail(err)
	}
	tp.Kind = t.kind()
	tp.Warnings = append(tp.Warnings, t.warnings...)
	tp.Facts = t.facts(ctx)
	st, err := t.state(ctx)
	if err != nil {
		return fail(err)
	}
	tp.Warnings = append(tp.Warnings, st.desired.Warnings...)
	tp.Fingerprint = st.fingerprint
	tp.Changes, tp.Ops = diff(st.rendered, st.snap)
	if tp.Changes == nil {
		tp.Changes = []plan.Change{}
	}
	return tp, nil
}

// planState is one rendering plus one read of the device.
type planState struct {
	desired     *profiles.Desired
	rendered    []rendered
	snap        *snapshot
	fingerprint string
}

func (t *target) state(ctx context.Context) (*planState, error) {
	cur, err := t.readFirst(ctx)
	if err != nil {
		return nil, err
	}
	d, err := t.render(cur)
	if err != nil {
		return nil, plan.RenderConflict(fmt.Errorf("%s: %w", t.Address(), err))
	}
	rs, err := renderObjects(d, t.prof.KeysOf)
	if err != nil {
		return nil, plan.RenderConflict(fmt.Errorf("%s: rendering: %w", t.Address(), err))
	}
	snap, err := t.read(ctx, d)
	if err != nil {
		return nil, err
	}
	wants := make([]leafMap, len(rs))
	for i, r := range rs {
		wants[i] = r.want
	}
	return &planState{desired: d, rendered: rs, snap: snap, fingerprint: snap.fingerprint(wants, d)}, nil
}

// facts records what Capabilities and the version leaf say.
func (t *target) facts(ctx context.Context) map[string]string {
	f := map[string]string{
		"profile":          t.prof.Name(),
		"gnmi_version":     t.caps.GetGNMIVersion(),
		"encoding":         t.encoding.String(),
		"commit_confirmed": fmt.Sprint(t.useCommit()),
	}
	for k, v := range t.settingFacts() {
		f[k] = v
	}
	if v, err := t.version(ctx); err == nil && v != "" {
		f["os"] = v
	}
	return f
}

// settingFactPrefix marks the facts that record the effective settings
// (policy gnmi { } block, else environment fallback, else default), keyed
// by their policy attribute names.
const settingFactPrefix = "setting."

// settingFacts are the effective settings a plan is made and applied with.
func (t *target) settingFacts() map[string]string {
	f := map[string]string{
		settingFactPrefix + "commit_confirm":  t.opts.CommitConfirm,
		settingFactPrefix + "commit_rollback": t.opts.CommitRollback.String(),
	}
	for k, v := range t.opts.Settings.Effective(t.prof.Name()) {
		f[settingFactPrefix+k] = v
	}
	// Recorded only when set, so plans saved before these settings existed
	// still match a target that does not set them.
	if t.opts.Encoding != "" {
		f[settingFactPrefix+"encoding"] = t.opts.Encoding
	}
	if t.opts.AllowMissingModels {
		f[settingFactPrefix+"require_models"] = "false"
	}
	return f
}

// settingsChanged says how the settings recorded in a plan differ from the
// target's now ("" when they agree). A plan without recorded settings is
// not checked.
func (t *target) settingsChanged(planned map[string]string) string {
	now := t.settingFacts()
	recorded := false
	var diffs []string
	for k, v := range planned {
		if !strings.HasPrefix(k, settingFactPrefix) {
			continue
		}
		recorded = true
		if now[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: plan %q, now %q", strings.TrimPrefix(k, settingFactPrefix), v, now[k]))
		}
	}
	if !recorded {
		return ""
	}
	for k, v := range now {
		if _, ok := planned[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: plan has none, now %q", strings.TrimPrefix(k, settingFactPrefix), v))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

// version reads the software version leaf of the profile.
func (t *target) version(ctx context.Context) (string, error) {
	origin, path := t.prof.VersionPath()
	leaves, err := t.getAll(ctx, origin, path)
	if err != nil || len(leaves) == 0 {
		return "", err
	}
	s, err := gpath.ScalarString(leaves[0].Value)
	return s, err
}

// getAll reads config and state at a path (NotFound = nothing).
func (t *target) getAll(ctx context.Context, origin, path string) ([]gpath.Leaf, error) {
	p, err := gpath.Parse(path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := t.opCtx(ctx)
	defer cancel()
	resp, err := t.client.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto(origin)}, Encoding: t.encoding, Type: gpb.GetRequest_ALL})
	if status.Code(err) == codes.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: Get %s: %w", t.Address(), path, err)
	}
	return decodeGetResponse(resp, p, t.prof.KeysOf)
}

// describe summarises a status error for transcripts: code and message.
func describe(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Code().String() + ": " + strings.TrimSpace(s.Message())
	}
	return err.Error()
}
