// Package drill is the chaos drill of the distributed pipeline: the six
// workers and the store as separate processes against a 3-node JetStream
// cluster (streams R3), redis-server and clickhouse-server, while clients
// send events and faults are injected (kill -9 of every worker, of a NATS
// node and of the stream leader, Redis and ClickHouse outages, a store
// restart). The test then checks every acknowledged event is stored exactly
// once, no consumer is stuck, every dead letter is explained and usage rows
// are written or counted as dropped.
//
// go test ./test/drill runs the short drill (600 events, short outages);
// RECOLLECT_DRILL=full (make drill) runs 10,000 events with a 20 s Redis and
// a 60 s ClickHouse outage. RECOLLECT_DRILL_JSON names the summary file.
package drill
