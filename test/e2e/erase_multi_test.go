package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// eraseAcrossProcesses is TestEraseReachesEveryFile on the split
// deployment: after ada's purge, none of ada's words is in any file of the
// processes' data dirs, of the nats-server's JetStream store or of the
// clickhouse-server's data dir, nor in any Redis value.
func eraseAcrossProcesses(t *testing.T, c *cluster) {
	ingest, query := c.procs["ingest"].url(), c.procs["query"].url()
	const tenant = "erasure"
	eraseScenario(t, ingest, query, tenant)
	found := func() []string {
		var out []string
		for _, dir := range []string{c.dataDir, c.natsDir, c.clickHouseDir} {
			out = append(out, filesHolding(t, dir, adaWords)...)
		}
		return append(out, redisHolding(t, c.redisURL, adaWords)...)
	}
	if len(found()) == 0 {
		t.Fatal("no file holds ada's words before the purge: the test proves nothing")
	}
	rc := purgeSubject(t, query, tenant, "ada")
	// ClickHouse removes the parts its mutation replaced a moment later
	// (old_parts_lifetime, one second in the test server): wait for that.
	eventually(t, 60*time.Second, "clickhouse drops the replaced parts", func() error {
		if f := filesHolding(t, c.clickHouseDir, adaWords); len(f) > 0 {
			return fmt.Errorf("still in %s", strings.Join(f, ", "))
		}
		return nil
	})
	checkErased(t, query, tenant, rc, found)
}

// redisHolding lists the Redis keys whose value holds any of words.
func redisHolding(t *testing.T, url string, words []string) []string {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opts)
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var found []string
	iter := rc.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		key := iter.Val()
		v, err := rc.Dump(ctx, key).Bytes()
		if err != nil {
			continue // expired meanwhile
		}
		v = bytes.ToLower(append([]byte(strings.ToLower(key)), v...))
		for _, w := range words {
			if bytes.Contains(v, []byte(w)) {
				found = append(found, "redis "+key+" ("+w+")")
			}
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatalf("scan redis: %v", err)
	}
	return found
}
