package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// UnmarshalJSON reads Filters strictly (an unknown field is an error, as
// in the rest of a request) and takes "archived" as another name for
// include_archived; the two must agree when both are given.
func (f *Filters) UnmarshalJSON(data []byte) error {
	type plain Filters
	var in struct {
		plain
		// Shallower than plain's field, so these two take the keys.
		IncludeArchived *bool `json:"include_archived"`
		Archived        *bool `json:"archived"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("filters: %w", err)
	}
	if in.IncludeArchived != nil && in.Archived != nil && *in.IncludeArchived != *in.Archived {
		return errors.New("filters: archived and include_archived name the same filter and disagree")
	}
	*f = Filters(in.plain)
	f.IncludeArchived = in.IncludeArchived != nil && *in.IncludeArchived || in.Archived != nil && *in.Archived
	return nil
}
