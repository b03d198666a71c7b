// Package snapshot moves a tenant's memories in and out of Recollect for
// operators: the NDJSON stream of GET /v1/export and POST /v1/import (one
// memory.Memory per line, every field), the markdown snapshot an operator
// reads (Clanker's MEMORY.md, 002), and the conversion of Bernard's
// memories.json (000) into memory records.
package snapshot
