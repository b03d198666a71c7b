package bus

import "strings"

// Stream names.
const (
	StreamConv  = "RECOLLECT_CONV"
	StreamFact  = "RECOLLECT_FACT"
	StreamEvent = "RECOLLECT_EVENT"
	StreamDLQ   = "RECOLLECT_DLQ"
)

// Subject prefixes; each stream takes everything below its prefix.
const (
	ConvPrefix         = "recollect.conv."
	FactPrefix         = "recollect.fact."
	EventPrefix        = "recollect.event."
	StoredPrefix       = "recollect.event.stored."
	ConsolidatedPrefix = "recollect.event.consolidated."
	PurgedPrefix       = "recollect.event.purged."
	DLQPrefix          = "recollect.dlq."
)

// Wildcards for consumers' FilterSubjects.
const (
	AllConv         = ConvPrefix + ">"
	AllFact         = FactPrefix + ">"
	AllEvent        = EventPrefix + ">"
	AllStored       = StoredPrefix + ">"
	AllConsolidated = ConsolidatedPrefix + ">"
	AllDLQ          = DLQPrefix + ">"
)

// Headers set by the bus.
const (
	HeaderCorrelationID  = "Recollect-Correlation-Id"
	HeaderDLQReason      = "Recollect-Dlq-Reason"
	HeaderDLQSubject     = "Recollect-Dlq-Subject"
	HeaderDLQStream      = "Recollect-Dlq-Stream"
	HeaderDLQStreamSeq   = "Recollect-Dlq-Stream-Seq"
	HeaderDLQConsumer    = "Recollect-Dlq-Consumer"
	HeaderDLQDeliveries  = "Recollect-Dlq-Deliveries"
	HeaderDLQMsgID       = "Recollect-Dlq-Msg-Id"
	HeaderDLQTruncated   = "Recollect-Dlq-Truncated"
	headerNatsMsgID      = "Nats-Msg-Id"
	natsHeaderPrefix     = "Nats-"
	subjectTokenSplitter = "."
)

// ConvSubject is where a tenant's conversation events are published.
func ConvSubject(tenant string) string { return ConvPrefix + tenant }

// FactSubject is where facts of a domain are published.
func FactSubject(domain string) string { return FactPrefix + domain }

// StoredSubject announces memories stored for a tenant.
func StoredSubject(tenant string) string { return StoredPrefix + tenant }

// ConsolidatedSubject announces a finished consolidation epoch of a tenant.
func ConsolidatedSubject(tenant string) string { return ConsolidatedPrefix + tenant }

// PurgedSubject announces a finished subject purge of a tenant.
func PurgedSubject(tenant string) string { return PurgedPrefix + tenant }

// DLQSubject is where the durable consumer's dead letters go.
func DLQSubject(consumer string) string { return DLQPrefix + consumer }

// EventMsgID is the Nats-Msg-Id of a conversation event: scoped by tenant
// because client ids are only unique per tenant.
func EventMsgID(tenant, eventID string) string { return tenant + ":" + eventID }

// LastToken is the last dot-separated token of a subject: the tenant of
// recollect.conv.<tenant>, the domain of recollect.fact.<domain>.
func LastToken(subject string) string {
	return subject[strings.LastIndex(subject, subjectTokenSplitter)+1:]
}
