package eval

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"
)

// devChatRun is a runner with the DevChat conversations beside its stored
// samples (the same order as runner.convs).
type devChatRun struct {
	*runner
	dcfg  DevChatConfig
	chats []*DevChatConversation
	// asOf is whether recall requests carry as_of; auto mode clears it when
	// the server refuses the field.
	asOf    bool
	refused string // the server's answer when it refused as_of
}

// RunDevChat ingests every DevChat conversation into the Recollect at
// baseURL (one tenant per conversation, one memory per turn, stamped with
// the turn's time), waits until every turn is stored, asks every question
// through recall as of the conversation's last session, and scores the
// recalled turns against the evidence; update questions also score whether
// the newest evidence ranks above the stale.
func RunDevChat(ctx context.Context, cfg DevChatConfig, baseURL string, log *slog.Logger) (*DevChatReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	set, err := LoadDevChat(cfg.Data)
	if err != nil {
		return nil, err
	}
	convs, err := selectDevChat(set.Conversations, cfg.Samples)
	if err != nil {
		return nil, err
	}
	d := &devChatRun{dcfg: cfg, chats: convs, asOf: cfg.AsOf != AsOfOff,
		runner: &runner{cfg: cfg.Config, set: "devchat", client: newClient(baseURL), log: log,
			report: &Report{Data: filepath.Base(cfg.Data), K: cfg.K, Conversations: len(convs)}}}
	samples := make([]Sample, len(convs))
	for i, c := range convs {
		samples[i] = c.sample()
		d.convs = append(d.convs, newConversation(&samples[i], cfg.TenantPrefix))
	}
	begin := time.Now()
	if err := d.ingest(ctx); err != nil {
		return nil, err
	}
	if err := d.waitStored(ctx); err != nil {
		return nil, err
	}
	ingestSeconds := round4(time.Since(begin).Seconds())
	begin = time.Now()
	rep, err := d.ask(ctx)
	if err != nil {
		return nil, err
	}
	rep.IngestSeconds, rep.RecallSeconds = ingestSeconds, round4(time.Since(begin).Seconds())
	if rep.RecallSeconds > 0 {
		rep.QPS = round4(float64(rep.Questions) / rep.RecallSeconds)
	}
	d.notes(rep)
	return rep, nil
}

func selectDevChat(all []DevChatConversation, ids []string) ([]*DevChatConversation, error) {
	var out []*DevChatConversation
	if len(ids) == 0 {
		for i := range all {
			out = append(out, &all[i])
		}
		return out, nil
	}
	for _, id := range ids {
		i := slices.IndexFunc(all, func(c DevChatConversation) bool { return c.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("conversations: %s is not in the data", id)
		}
		out = append(out, &all[i])
	}
	return out, nil
}

func (d *devChatRun) notes(rep *DevChatReport) {
	switch {
	case d.dcfg.AsOf == AsOfOff:
		rep.AsOf = "not sent (--as-of off)"
	case d.asOf:
		rep.AsOf = "sent"
	default:
		rep.AsOf = "not sent: the server refused the field"
		rep.Notes = append(rep.Notes, "recall refused as_of ("+d.refused+"); every question was asked without it, so time words are read against the server's clock")
	}
	if rep.ShortResults > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d questions got fewer than k=%d memories", rep.ShortResults, rep.Questions, rep.K))
	}
	if rep.TurnsMerged > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d turns were merged into another turn's memory; a recalled memory counts for every turn merged into it", rep.TurnsMerged))
	}
	if rep.TurnsMissing > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d turns were never stored (refused after the 202 or dead-lettered); questions whose evidence they are can only miss", rep.TurnsMissing))
	}
}
