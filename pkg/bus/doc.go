// Package bus is Recollect's message bus: NATS JetStream streams, a publisher
// that waits for the stream's acknowledgement, and a runner for durable pull
// consumers that maps handler outcomes to ack, delayed redelivery or dead
// letter.
//
// # Streams and subjects
//
// Subjects are built with ConvSubject, FactSubject, StoredSubject,
// ConsolidatedSubject, ConsolidateSubject (a request for an epoch) and
// DLQSubject. Every stream is declared in code (file storage, bounded by age,
// bytes and message size, with a duplicate window for Nats-Msg-Id
// deduplication):
//
//	stream           subjects                              published by     consumed by
//	RECOLLECT_CONV   recollect.conv.<tenant>               ingest, agents   extractor
//	RECOLLECT_FACT   recollect.fact.<domain>               extractor        embedder
//	RECOLLECT_EVENT  recollect.event.stored.<tenant>       embedder         topiary, consolidator
//	                 recollect.event.consolidated.<tenant> consolidator     topiary
//	                 recollect.event.consolidate.<tenant>  query, scheduler consolidator
//	RECOLLECT_DLQ    recollect.dlq.<consumer>              every consumer   operators
//
// RECOLLECT_CONV and RECOLLECT_FACT refuse new messages when full
// (DiscardNew), so a backlog makes publishers fail (ingest answers 503)
// instead of silently dropping older unprocessed work. RECOLLECT_EVENT holds
// notifications that are safe to lose when old, and RECOLLECT_DLQ must never
// block a consumer, so both drop their oldest messages when full (DiscardOld).
//
// # Publishing conversation events directly
//
// Agents may skip the HTTP ingest and publish a conversation event (the JSON
// Event of package memory) straight onto recollect.conv.<tenant> with the
// header
//
//	Nats-Msg-Id: <tenant>:<event id>
//
// (see EventMsgID), so that a resend within the duplicate window (default 2h)
// is stored once. Optional headers: traceparent/tracestate (W3C trace
// context) to join the agent's trace, and Recollect-Correlation-Id; when the
// latter is absent the message id serves as correlation id.
//
// # Dead letters
//
// A message whose handler fails permanently, panics, or fails on its last
// allowed delivery is copied to recollect.dlq.<consumer> and then terminated.
// The dead letter carries the original data and headers (Nats-* headers
// dropped) plus:
//
//	Recollect-Dlq-Reason      why it was given up
//	Recollect-Dlq-Subject     the original subject
//	Recollect-Dlq-Stream      the original stream
//	Recollect-Dlq-Stream-Seq  its sequence in that stream
//	Recollect-Dlq-Consumer    the durable consumer that gave up
//	Recollect-Dlq-Deliveries  how many times it was delivered
//	Recollect-Dlq-Msg-Id      the original Nats-Msg-Id, if any
//	Recollect-Dlq-Truncated   "true" when the data was left out to fit
//
// Its Nats-Msg-Id is derived from consumer, stream and sequence, so a
// redelivered message that is dead-lettered twice is stored once.
package bus
