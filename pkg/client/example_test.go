package client_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
)

// The examples need a running server (recollect run), so they compile but
// do not run.

func ExampleClient_Remember() {
	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
	resp, err := c.Remember(context.Background(), client.Remember{
		Subject: "alice",
		Key:     "editor/theme",
		Content: "Alice's editor theme is solarized dark",
		Type:    "preference",
		Wait:    true, // answer once stored
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored", resp.MemoryID)
}

func ExampleClient_Learn() {
	c := client.New("http://127.0.0.1:7700", client.WithAPIKey("rk_..."))
	resp, err := c.Learn(context.Background(), client.LearnRequest{
		Tenant:      "acme",
		Namespace:   "billing-service",
		MemoryInput: client.MemoryInput{Content: "Invoices are rounded half to even", Tags: []string{"invoices"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Queued: the memory is searchable a moment later.
	fmt.Println("event", resp.ID, "memory", resp.MemoryID)
}

func ExampleClient_Recall() {
	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
	resp, err := c.Recall(context.Background(), client.RecallRequest{
		Query:   "how does alice like her editor?",
		K:       5,
		Filters: client.RecallFilters{Subjects: []string{"alice"}},
		AsOf:    client.At(time.Now()),
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range resp.Memories {
		fmt.Printf("%.2f %s\n", r.Score, r.Memory.Content)
	}
	fmt.Println(resp.Context) // the prompt-ready block
}

func ExampleClient_Context() {
	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
	resp, err := c.Context(context.Background(), client.ContextRequest{
		Query:     "fix the rounding of invoices",
		SessionID: "session-42",
		Budget:    2000, // tokens
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Tokens, "tokens of context:")
	fmt.Println(resp.Context)
}

func ExampleClient_Ingest() {
	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
	// Every event carries its own id: a resend is processed once.
	resp, err := c.Ingest(context.Background(),
		client.Event{ID: "s42-turn-1", Type: "turn", SessionID: "session-42", Subject: "alice", Role: "user",
			Content: "I prefer tabs over spaces"},
		client.Event{ID: "s42-turn-2", Type: "turn", SessionID: "session-42", Subject: "alice", Role: "assistant",
			Content: "Noted: tabs."},
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("accepted", resp.Accepted)
}

func ExampleClient_Forget() {
	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
	// Every memory under a key (or one by ID, or a whole Subject).
	resp, err := c.Forget(context.Background(), client.ForgetRequest{Key: "editor/theme"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("forgot", resp.Deleted)
}

func ExampleClient_Purge() {
	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
	ctx := context.Background()
	resp, err := c.Purge(ctx, "", "alice")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted", resp.Deleted, "memories")
	if resp.Receipt != nil {
		// The receipt says, per place, what was erased; wait until done.
		rc, err := c.WaitErasure(ctx, "", *resp.Receipt, time.Second)
		if err != nil {
			log.Fatal(err)
		}
		for _, p := range rc.Places {
			fmt.Println(p.Place, p.State, p.Erased)
		}
	}
}

func ExampleClient_Memories() {
	c := client.New("http://127.0.0.1:7700", client.WithTenant("acme"))
	// Page by page, until the last one or the first error.
	for m, err := range c.Memories(context.Background(), client.ListOptions{Namespace: "billing-service", Limit: 500}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.ID, m.Key, m.Content)
	}
}
