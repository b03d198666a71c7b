package bus

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkPublishBatch100 publishes batches of 100 messages of ~300 bytes
// to the embedded server and waits for every ack.
func BenchmarkPublishBatch100(b *testing.B) {
	bus := openTestBus(b)
	payload := bytes.Repeat([]byte("m"), 300)
	batch := make([]Msg, 100)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		for i := range batch {
			batch[i] = Msg{Subject: ConvSubject("bench"), ID: fmt.Sprintf("bench:%d", n), Data: payload}
			n++
		}
		if err := bus.PublishBatch(ctx, batch); err != nil {
			b.Fatalf("publish batch: %v", err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkConsume measures handling throughput of one consumer with
// Concurrency 4 and a handler that does nothing (each message is pulled,
// handled and acked with a confirmed ack).
func BenchmarkConsume(b *testing.B) {
	bus := openTestBus(b)
	payload := bytes.Repeat([]byte("m"), 300)
	ctx := context.Background()
	batch := make([]Msg, 100)
	for i := 0; i < b.N; i += len(batch) {
		for j := range batch {
			batch[j] = Msg{Subject: ConvSubject("bench"), ID: fmt.Sprintf("bench:%d", i+j), Data: payload}
		}
		if err := bus.PublishBatch(ctx, batch); err != nil {
			b.Fatalf("publish batch: %v", err)
		}
	}
	b.ResetTimer()
	cc := fastConsumer("bench")
	cc.Concurrency = 4
	c, err := bus.Consume(ctx, cc, func(context.Context, *Delivery) error { return nil }, nil)
	if err != nil {
		b.Fatalf("consume: %v", err)
	}
	for c.Stats().Acked < uint64(b.N) {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	if err := c.Stop(ctx); err != nil {
		b.Fatalf("stop: %v", err)
	}
}
