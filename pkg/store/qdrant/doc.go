// Package qdrant is the distributed memory store: store.Store over Qdrant's
// gRPC API (github.com/qdrant/go-client).
//
// # Layout
//
// One collection per embedding model and width, named by CollectionName
// (prefix + sanitised model + "_" + dim), shared by every tenant. Each point
// is one memory: its id is the memory id (a UUID, see memory.DeterministicID),
// a named dense vector "dense" (cosine) and a sparse vector "bm25" with the
// IDF modifier holding lexical.MemoryVector. The payload is the whole memory
// but the vector; tenant has a keyword index with is_tenant, so Qdrant keeps
// each tenant's points together, and every filtered field has an index. The
// HNSW graph is built per tenant (m 0, payload_m 16), as Qdrant recommends
// for multitenancy: every query here is filtered by tenant.
//
// # Differences from the local engine
//
//   - BM25's IDF counts points over the whole collection, not the tenant:
//     Qdrant applies the IDF modifier collection-wide (see package lexical).
//     Rankings within a tenant are close to the local engine's but not
//     identical when other tenants write different text, and document
//     frequencies leak between tenants through scores.
//   - Creation times are compared at microsecond precision (the
//     created_at_us payload field); the local engine compares nanoseconds.
//   - Tenants asks Qdrant for the distinct tenant values (a facet over the
//     tenant index): one request per 10,000 tenants, cost proportional to the
//     number of tenants, not of memories.
//   - Qdrant returns float32 scores and keeps vectors normalised in float32.
package qdrant
