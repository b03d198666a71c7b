package recall

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestFiltersJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Filters
		err      string
	}{
		{"empty", `{}`, Filters{}, ""},
		{"include_archived", `{"include_archived": true}`, Filters{IncludeArchived: true}, ""},
		{"archived alias", `{"archived": true}`, Filters{IncludeArchived: true}, ""},
		{"both agree", `{"archived": true, "include_archived": true}`, Filters{IncludeArchived: true}, ""},
		{"both false", `{"archived": false, "include_archived": false}`, Filters{}, ""},
		{"include_superseded", `{"include_superseded": true, "domains": ["general"]}`,
			Filters{IncludeSuperseded: true, Domains: []string{"general"}}, ""},
		{"disagree", `{"archived": true, "include_archived": false}`, Filters{}, "disagree"},
		{"unknown field", `{"archive": true}`, Filters{}, `unknown field "archive"`},
		{"wrong type", `{"archived": "yes"}`, Filters{}, "archived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req Request
			err := json.Unmarshal([]byte(`{"query": "q", "filters": `+tc.in+`}`), &req)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(req.Filters, tc.want) {
				t.Fatalf("filters = %+v, want %+v", req.Filters, tc.want)
			}
		})
	}
	// What a Go client sends reads back the same.
	f := Filters{IncludeArchived: true, IncludeSuperseded: true, Tags: []string{"x"}}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back Filters
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, f) {
		t.Fatalf("round trip of %s: %+v, %v", data, back, err)
	}
}
