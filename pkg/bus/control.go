package bus

// ConsolidatePrefix carries requests for consolidation epochs; they live on
// the event stream so that scheduled and manual requests share one durable,
// deduplicated path.
const ConsolidatePrefix = "recollect.event.consolidate."

// ConsolidateSubject is where epochs for a tenant are requested ("*" for a
// consumer filter over every tenant).
func ConsolidateSubject(tenant string) string { return ConsolidatePrefix + tenant }

// ReindexPrefix carries requests to move a tenant's memories to the
// configured embedding model (recollect reindex); the embedder serves them.
const ReindexPrefix = "recollect.event.reindex."

// ReindexSubject is where a tenant's reindex is requested ("*" for a
// consumer filter over every tenant).
func ReindexSubject(tenant string) string { return ReindexPrefix + tenant }
