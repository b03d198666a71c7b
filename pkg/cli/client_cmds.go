package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/query"
)

// clientFlags are the flags of every command that talks to a server.
type clientFlags struct {
	url       string
	apiKey    string
	tenant    string
	namespace string
	timeout   time.Duration
	asJSON    bool
}

func (f *clientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "url", "http://127.0.0.1:7700", "Recollect server URL")
	fs.StringVar(&f.apiKey, "api-key", "", "API key sent as a bearer token; set RECOLLECT_API_KEY rather than the flag, which other users can see")
	fs.StringVar(&f.tenant, "tenant", "", "tenant (default: the API key's, else default)")
	fs.StringVar(&f.namespace, "namespace", "", "namespace, i.e. project (default: default)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "how long the server may take to answer")
	fs.BoolVar(&f.asJSON, "json", false, "print the server's JSON answer")
}

// start reads RECOLLECT_* variables into unset flags and returns the client
// and the command's deadline (--timeout, plus extra for commands that wait).
func (f *clientFlags) start(cmd *cobra.Command, extra time.Duration) (*client.Client, context.Context, context.CancelFunc, error) {
	if err := applyEnv(cmd.Flags()); err != nil {
		return nil, nil, nil, err
	}
	c := client.New(f.url, client.WithAPIKey(f.apiKey), client.WithTenant(f.tenant), client.WithNamespace(f.namespace),
		client.WithUserAgent("recollect-cli/"+Version))
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout+extra)
	return c, ctx, cancel, nil
}

// unsupported names an endpoint the server does not have yet: an unknown
// route answers 404 no_route (a plain 404 from older servers), a handler's
// 404 carries not_found.
func unsupported(err error, url, what string) error {
	var apiErr *client.Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound && (apiErr.Code == "" || apiErr.Code == "no_route") {
		return fmt.Errorf("server %s does not support %s yet (404)", url, what)
	}
	return err
}

func newRememberCmd() *cobra.Command {
	var (
		f          clientFlags
		in         memory.MemoryInput
		typ, kind  string
		importance float64
		subject    string
		session    string
		eventID    string
		waitFor    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "remember <text>",
		Short: "Store an explicit memory (a fact, preference, rule, decision...)",
		Example: `  recollect remember --tenant acme --type policy "Never push directly to main"
  recollect remember --key deploy/target --wait 10s "Deploys go to the staging cluster first"`,
		Args: cobra.MinimumNArgs(1),
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.StringVar(&in.Key, "key", "", "path-like key, e.g. deploy/target (forget --key deletes by it)")
	fs.StringVar(&typ, "type", "", "policy, workflow, pitfall, architecture, decision, preference, fact (default), entity, style, artifact, episode, procedure")
	fs.StringVar(&kind, "kind", "", "episodic, semantic or procedural (default: from the type)")
	fs.StringVar(&in.Domain, "domain", "", "tool-usage, user-preferences or general (default)")
	fs.Float64Var(&importance, "importance", 0, "0 to 1 (default: the server's)")
	fs.StringSliceVar(&in.Tags, "tag", nil, "tag (repeatable)")
	fs.StringSliceVar(&in.Scope, "scope", nil, "file glob the memory applies to (repeatable)")
	fs.StringVar(&subject, "subject", "", "user the memory is about, or __lore__")
	fs.StringVar(&session, "session", "", "session id")
	fs.StringVar(&eventID, "id", "", "event id, to make a resend idempotent (default: random)")
	fs.DurationVar(&waitFor, "wait", 0, "wait up to this long until the memory is stored (0: return once queued)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, ctx, cancel, err := f.start(cmd, max(waitFor, 0))
		if err != nil {
			return err
		}
		defer cancel()
		in.Content = strings.Join(args, " ")
		in.Type, in.Kind = memory.Type(typ), memory.Kind(kind)
		if fs.Changed("importance") {
			in.Importance = &importance
		}
		resp, err := c.Learn(ctx, query.LearnRequest{ID: eventID, Subject: subject, SessionID: session, MemoryInput: in})
		if err != nil {
			return err
		}
		if waitFor <= 0 {
			if f.asJSON {
				return writeJSON(cmd.OutOrStdout(), resp)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "accepted memory %s (event %s); it is stored within seconds\n", resp.MemoryID, resp.ID)
			return nil
		}
		m, err := waitStored(ctx, c, resp.MemoryID, waitFor)
		if err != nil {
			return err
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), m)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "stored memory %s (%s/%s, layer %s)\n", m.ID, m.Domain, m.Type, m.Layer)
		return nil
	}
	return cmd
}

// waitStored polls for a learned memory until it is readable.
func waitStored(ctx context.Context, c *client.Client, id string, d time.Duration) (memory.Memory, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		m, err := c.GetMemory(ctx, "", id)
		if err == nil {
			return m, nil
		}
		if !errors.Is(err, client.ErrNotFound) {
			return m, err
		}
		select {
		case <-ctx.Done():
			return m, fmt.Errorf("memory %s queued but not stored within %s", id, d)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func newRecallCmd() *cobra.Command {
	var (
		f   clientFlags
		req client.RecallRequest
		typ []string
	)
	cmd := &cobra.Command{
		Use:   "recall <query>",
		Short: "Recall the memories most relevant to a query: the Recalled Context block and a ranked table",
		Example: `  recollect recall --tenant acme "how should I indent code?"
  recollect recall --tenant acme --key deploy/staging-target`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && req.Key == "" {
				return errors.New("recall needs a query or --key")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.IntVar(&req.K, "k", 0, "memories to return (default: the server's, 9); k are returned when k match")
	fs.IntVar(&req.PerDomain, "per-domain", 0, "each domain's best this many come before any domain's further ones (default: the server's, 3); never shortens the answer")
	fs.StringVar(&req.Key, "key", "", "the memories learnt under this key; a search (of the query, or the key's words) when none")
	fs.StringSliceVar(&req.Filters.Domains, "domain", nil, "only this domain (repeatable)")
	fs.StringSliceVar(&typ, "type", nil, "only this memory type (repeatable)")
	fs.StringSliceVar(&req.Filters.Tags, "tag", nil, "only memories with this tag (repeatable)")
	fs.StringVar(&req.Channel, "channel", "", "channel, a ranking hint")
	fs.BoolVar(&req.Filters.IncludeArchived, "archived", false, "include archived memories")
	fs.BoolVar(&req.Filters.IncludeSuperseded, "superseded", false, "include superseded memories (older versions of facts)")
	fs.BoolVar(&req.Filters.IncludeQuarantined, "quarantined", false, "include quarantined memories (suspected prompt injection, kept for review)")
	fs.BoolVar(&req.Dry, "dry", false, "do not count this as an access of the memories")
	registerTimeViews(fs, &req.AsOf, &req.KnownAt)
	fs.StringVar(&req.Filters.FilePath, "file-path", "", "only memories whose scope globs match this file (and those without scope)")
	expand := fs.Bool("expand", false, "with an LLM on the server: also search alternative phrasings of the query")
	rerank := fs.Bool("rerank", false, "with an LLM on the server: have it reorder the best candidates")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		req.Query = strings.Join(args, " ")
		// Only a flag given on the command line overrides the server's default.
		if fs.Changed("expand") {
			req.Expand = expand
		}
		if fs.Changed("rerank") {
			req.Rerank = rerank
		}
		for _, t := range typ {
			req.Filters.Types = append(req.Filters.Types, memory.Type(t))
		}
		resp, err := c.Recall(ctx, req)
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if f.asJSON {
			return writeJSON(w, resp)
		}
		if len(resp.Memories) == 0 {
			fmt.Fprintln(w, "No memories match.")
			return nil
		}
		fmt.Fprintln(w, strings.TrimSpace(resp.Context))
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RANK\tSCORE\tRELEVANCE\tDOMAIN\tTYPE\tLAYER\tID\tCONTENT")
		for i, r := range resp.Memories {
			m := r.Memory
			fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%s\t%s\t%s\t%s\t%s\n", i+1, r.Score, r.Relevance, m.Domain, m.Type, m.Layer, m.ID, oneLine(m.Content, 60))
		}
		return tw.Flush()
	}
	return cmd
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newContextCmd() *cobra.Command {
	var (
		f   clientFlags
		req client.ContextRequest
	)
	cmd := &cobra.Command{
		Use:   "context [query]",
		Short: "Assemble a prompt-ready context for the current task within a token budget",
		Args:  cobra.ArbitraryArgs,
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.StringVar(&req.SessionID, "session", "", "session id")
	fs.StringVar(&req.Subject, "subject", "", "user id")
	fs.StringVar(&req.FilePath, "file", "", "file being worked on (selects scoped memories)")
	fs.IntVar(&req.Budget, "budget", 0, "token budget (default: the server's)")
	registerTimeViews(fs, &req.AsOf, &req.KnownAt)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		req.Query = strings.Join(args, " ")
		resp, err := c.Context(ctx, req)
		if err != nil {
			return unsupported(err, c.BaseURL(), "context")
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), resp)
		}
		fmt.Fprintln(cmd.OutOrStdout(), strings.TrimSpace(resp.Context))
		fmt.Fprintf(cmd.OutOrStdout(), "\n(%d tokens, %d memories)\n", resp.Tokens, len(resp.Memories))
		return nil
	}
	return cmd
}

func newResumeCmd() *cobra.Command {
	var (
		f   clientFlags
		req client.ResumeRequest
	)
	cmd := &cobra.Command{
		Use:   "resume",
		Short: "Print what an agent needs to pick up where it left off: core and recent memories, topics, triggers",
		Args:  cobra.NoArgs,
	}
	fs := cmd.Flags()
	f.register(fs)
	fs.StringVar(&req.SessionID, "session", "", "session id")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		resp, err := c.Resume(ctx, req)
		if err != nil {
			return unsupported(err, c.BaseURL(), "resume")
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), resp)
		}
		if resp.Text == "" {
			resp.Text = "Nothing to resume yet."
		}
		fmt.Fprintln(cmd.OutOrStdout(), strings.TrimSpace(resp.Text))
		return nil
	}
	return cmd
}

func newTopicsCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "topics [topic-id...]",
		Short: "Print the topic tree, or drill into topics by id",
		Args:  cobra.ArbitraryArgs,
	}
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, ids []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		resp, err := c.Topics(ctx, query.TopicsRequest{IDs: ids, Limit: topicMemories})
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if f.asJSON {
			if err := writeJSON(w, resp); err != nil {
				return err
			}
			return missingTopics(resp.Missing)
		}
		if len(resp.Topics) == 0 && len(ids) == 0 {
			fmt.Fprintln(w, "No topics yet: the tree is built a few seconds after memories are stored.")
			return nil
		}
		if len(ids) == 0 {
			fmt.Fprintf(w, "%d memories in %d top-level topics (built %s)\n", resp.Memories, len(resp.Topics), resp.Built.Format(time.RFC3339))
		}
		var tree func(nodes []*client.TopicNode, depth int) error
		tree = func(nodes []*client.TopicNode, depth int) error {
			for _, n := range nodes {
				fmt.Fprintf(w, "%s%s [%d]  %s\n", strings.Repeat("  ", depth), n.Name, n.Size, n.ID)
				if len(ids) == 0 {
					if err := tree(n.Children, depth+1); err != nil {
						return err
					}
					continue
				}
				// Drilling down shows the topic's most important memories.
				d := resp.Details[n.ID]
				for _, m := range d.Memories {
					fmt.Fprintf(w, "  - %s  %s\n", m.ID, oneLine(m.Content, 80))
				}
				if d.Truncated {
					fmt.Fprintf(w, "  (more; --json lists every id)\n")
				}
			}
			return nil
		}
		if err := tree(resp.Topics, 0); err != nil {
			return err
		}
		return missingTopics(resp.Missing)
	}
	return cmd
}

// missingTopics is the error of a drill-down into ids the tree does not
// have, so that scripts see it in the exit status.
func missingTopics(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return fmt.Errorf("no topic %s in the tree: `recollect topics` lists the current ids (a topic keeps its id while its memories stay substantially the same)",
		strings.Join(ids, ", "))
}

// topicMemories is how many memories of a topic `topics <id>` prints.
const topicMemories = 10

func newStatsCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count the tenant's memories by domain, type, kind and layer",
		Args:  cobra.NoArgs,
	}
	f.register(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		s, err := c.Stats(ctx, "")
		if err != nil {
			return err
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), s)
		}
		tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "tenant\t%s\n", s.Tenant)
		fmt.Fprintf(tw, "memories\t%d (%d archived, %d superseded), %d characters\n", s.Memories, s.Archived, s.Superseded, s.Chars)
		for _, row := range []struct {
			name string
			m    map[string]int
		}{{"domains", s.Domains}, {"types", s.Types}, {"kinds", s.Kinds}, {"layers", s.Layers}} {
			fmt.Fprintf(tw, "%s\t%s\n", row.name, countList(row.m))
		}
		return tw.Flush()
	}
	return cmd
}

func newForgetCmd() *cobra.Command {
	var (
		f       clientFlags
		key     string
		subject string
	)
	cmd := &cobra.Command{
		Use:   "forget <memory-id> | --key <key> | --subject <subject>",
		Short: "Delete a memory by id, every memory with a key, or everything about a subject",
		Long: `Delete a memory by id, every memory with a key, or everything about a subject.

--subject purges the subject for good (an erasure request): its memories,
archived and superseded ones included, and every memory derived from them
(merged, reconciled or distilled), whatever their own subject; then the
copies elsewhere: the store's files, the audit log, the pipeline's streams,
the topic trees and the embedding caches. It prints the erasure receipt, per
place what was erased and what could not be and why, waiting for it to be
complete unless --wait=0.`,
		Args: cobra.MaximumNArgs(1),
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&key, "key", "", "delete every memory with this key (in --namespace, else in all namespaces)")
	cmd.Flags().StringVar(&subject, "subject", "", "delete every memory about this subject, and every memory derived from them")
	wait := cmd.Flags().Duration("wait", 10*time.Minute, "with --subject, how long to wait for the erasure receipt to be complete (0: print it as it stands)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		req := client.ForgetRequest{Key: key, Subject: subject}
		if len(args) == 1 {
			req.ID = args[0]
		}
		if n := countSet(req.ID, req.Key, req.Subject); n != 1 {
			return errors.New("forget: give one of a memory id, --key and --subject")
		}
		c, ctx, cancel, err := f.start(cmd, 0)
		if err != nil {
			return err
		}
		defer cancel()
		resp, err := c.Forget(ctx, req)
		if err != nil {
			return err
		}
		if f.asJSON && req.Subject == "" {
			return writeJSON(cmd.OutOrStdout(), resp)
		}
		if req.Subject != "" && resp.Receipt != nil && *wait > 0 {
			wctx, wcancel := context.WithTimeout(ctx, *wait)
			rc, err := c.WaitErasure(wctx, req.Tenant, *resp.Receipt, time.Second)
			wcancel()
			resp.Receipt = &rc
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "erasure not complete yet (read it again with the receipt id): %v\n", err)
			}
		}
		if f.asJSON {
			return writeJSON(cmd.OutOrStdout(), resp)
		}
		if req.Subject != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %d memories about %s\n", resp.Count, req.Subject)
			if resp.Receipt != nil {
				return writeReceipt(cmd.OutOrStdout(), *resp.Receipt)
			}
			return nil
		}
		for _, id := range resp.Deleted {
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", id)
		}
		return nil
	}
	return cmd
}

// countSet counts the non-empty values.
func countSet(vs ...string) int {
	n := 0
	for _, v := range vs {
		if v != "" {
			n++
		}
	}
	return n
}

// countList renders counts as "a 3, b 1", largest first.
func countList(m map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range m {
		kvs = append(kvs, kv{k, v})
	}
	if len(kvs) == 0 {
		return "-"
	}
	slices.SortFunc(kvs, func(a, b kv) int {
		if a.v != b.v {
			return b.v - a.v
		}
		return strings.Compare(a.k, b.k)
	})
	parts := make([]string, len(kvs))
	for i, e := range kvs {
		parts[i] = fmt.Sprintf("%s %d", e.k, e.v)
	}
	return strings.Join(parts, ", ")
}
