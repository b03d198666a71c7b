package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

// memoryTypes are the values of a memory's type, for the schemas' enums.
var memoryTypes = []any{memory.TypePolicy, memory.TypeWorkflow, memory.TypePitfall, memory.TypeArchitecture, memory.TypeDecision,
	memory.TypePreference, memory.TypeFact, memory.TypeEntity, memory.TypeStyle, memory.TypeArtifact, memory.TypeEpisode, memory.TypeProcedure}

// inputSchema infers T's schema and adds the limits the server enforces,
// so a model sees them before it calls. On an inference error it returns
// nil and the SDK infers (and reports) on its own.
func inputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil
	}
	for name, p := range s.Properties {
		switch name {
		case "type":
			p.Enum = memoryTypes
		case "types":
			p.Items.Enum = memoryTypes
		case "importance":
			p.Minimum, p.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0)
		case "k", "per_domain":
			p.Minimum, p.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(recall.MaxK))
		case "content", "summary":
			p.MinLength, p.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(memory.MaxContentChars)
		case "query":
			p.MinLength, p.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(recall.MaxQueryChars)
		case "name":
			p.MinLength = jsonschema.Ptr(1)
		case "steps":
			p.MinItems = jsonschema.Ptr(1)
		case "tags":
			p.MaxItems = jsonschema.Ptr(memory.MaxTags)
			p.Items.MaxLength = jsonschema.Ptr(memory.MaxTagChars)
		case "key":
			p.MaxLength = jsonschema.Ptr(memory.MaxKeyChars)
		case "namespace":
			p.Pattern = `^[A-Za-z0-9_./:-]{1,64}$`
		}
	}
	return s
}
