package extract

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name   string
		in     string
		how    parseHow
		values []string
		check  func(t *testing.T, fs []rawFact)
		fail   bool
	}{
		{name: "clean", in: `{"facts":[{"key":"preference/tabs","value":"Prefers tabs","type":"preference","explicit":true}]}`,
			how: parsedClean, values: []string{"Prefers tabs"}, check: func(t *testing.T, fs []rawFact) {
				if fs[0].Key != "preference/tabs" || fs[0].Type != "preference" || fs[0].Explicit == nil || !*fs[0].Explicit {
					t.Fatalf("fields lost: %+v", fs[0])
				}
			}},
		{name: "empty list", in: `{"facts": []}`, how: parsedClean},
		{name: "empty object", in: `{}`, how: parsedClean},
		{name: "null facts", in: `{"facts": null}`, how: parsedClean},
		{name: "code fence", in: "Here you go:\n```json\n{\"facts\":[{\"value\":\"Uses Go 1.26\"}]}\n```\nHope it helps.",
			how: parsedClean, values: []string{"Uses Go 1.26"}},
		{name: "prose around", in: `Sure! The facts are {"facts":[{"value":"Deploys with make deploy"}]} — let me know.`,
			how: parsedClean, values: []string{"Deploys with make deploy"}},
		{name: "bracket prose before", in: `Note [1]: see below {"facts":[{"value":"Runs on port 8080"}]}`,
			how: parsedClean, values: []string{"Runs on port 8080"}},
		{name: "bare array of objects", in: `[{"value":"a fact here"},{"value":"another one"}]`,
			how: parsedClean, values: []string{"a fact here", "another one"}},
		{name: "bare array of strings (Bernard)", in: `["npm run build compiles to dist/", "API on port 3000"]`,
			how: parsedClean, values: []string{"npm run build compiles to dist/", "API on port 3000"}},
		{name: "nebo categories", in: `{"preferences":[{"key":"code-indentation","value":"Prefers 4-space indentation"}],"entities":[],"decisions":[],"styles":[{"key":"style/terse","value":"Terse"}],"artifacts":[]}`,
			how: parsedClean, values: []string{"Prefers 4-space indentation", "Terse"}, check: func(t *testing.T, fs []rawFact) {
				if fs[0].Type != "preference" || fs[1].Type != "style" {
					t.Fatalf("category types: %q %q", fs[0].Type, fs[1].Type)
				}
			}},
		{name: "nested categories", in: `{"facts":{"decisions":[{"value":"Chose SQLite over Postgres"}]}}`,
			how: parsedClean, values: []string{"Chose SQLite over Postgres"}},
		{name: "single fact object", in: `{"key":"k","value":"the only fact"}`, how: parsedClean, values: []string{"the only fact"}},
		{name: "number value", in: `{"facts":[{"key":"limits/rate","value":100,"tags":"api, limits"}]}`,
			how: parsedClean, values: []string{"100"}, check: func(t *testing.T, fs []rawFact) {
				if strings.Join(fs[0].Tags, "|") != "api|limits" {
					t.Fatalf("tags = %q", fs[0].Tags)
				}
			}},
		{name: "object value", in: `{"facts":[{"key":"db","value":{"engine":"postgres","version":15}}]}`,
			how: parsedClean, values: []string{"engine: postgres; version: 15"}},
		{name: "object value with text", in: `{"facts":[{"value":{"text":"Uses Redis for locks"}}]}`,
			how: parsedClean, values: []string{"Uses Redis for locks"}},
		{name: "aliases", in: `{"memories":[{"name":"x","fact":"Sarah leads the API team","category":"entity","stated":"yes","quote":"Sarah leads"}]}`,
			how: parsedClean, values: []string{"Sarah leads the API team"}, check: func(t *testing.T, fs []rawFact) {
				f := fs[0]
				if f.Key != "x" || f.Type != "entity" || f.Explicit == nil || !*f.Explicit || f.Evidence != "Sarah leads" {
					t.Fatalf("aliases lost: %+v", f)
				}
			}},
		{name: "explicit false as string", in: `{"facts":[{"value":"Probably on Linux","explicit":"false"}]}`,
			how: parsedClean, values: []string{"Probably on Linux"}, check: func(t *testing.T, fs []rawFact) {
				if fs[0].Explicit == nil || *fs[0].Explicit != no {
					t.Fatalf("explicit = %v", fs[0].Explicit)
				}
				_ = yes
			}},
		{name: "trailing commas", in: `{"facts":[{"value":"Uses make",},],}`, how: parsedTidied, values: []string{"Uses make"}},
		{name: "python literals", in: `{"facts":[{"value":"Likes Go","explicit":True,"tags":None}]}`, how: parsedTidied,
			values: []string{"Likes Go"}, check: func(t *testing.T, fs []rawFact) {
				if fs[0].Explicit == nil || !*fs[0].Explicit {
					t.Fatal("True not read")
				}
			}},
		{name: "smart quotes", in: `{“facts”: [{“value”: “Ships on Fridays”}]}`, how: parsedTidied, values: []string{"Ships on Fridays"}},
		{name: "cut off", in: `{"facts":[{"key":"a","value":"First whole fact"},{"key":"b","value":"Second whole fact"},{"key":"c","val`,
			how: parsedSalvaged, values: []string{"First whole fact", "Second whole fact"}},
		{name: "one broken fact among good ones", in: `{"facts":[{"value":"Good one"},{"value": broken},{"value":"Good two"}]}`,
			how: parsedSalvaged, values: []string{"Good one", "Good two"}},
		{name: "braces inside strings", in: `{"facts":[{"value":"Use {curly} braces in templates","evidence":"x}"}`,
			how: parsedSalvaged, values: []string{"Use {curly} braces in templates"}},
		{name: "facts without value skipped", in: `{"facts":[{"key":"a"},{"value":"kept"}]}`, how: parsedClean, values: []string{"kept"}},
		{name: "empty answer", in: "   ", fail: true},
		{name: "prose only", in: "There is nothing worth remembering in this conversation.", fail: true},
		{name: "numbers array", in: `[1, 2, 3]`, fail: true},
		{name: "unrelated object", in: `{"error": "I cannot help with that"}`, fail: true},
		{name: "cut before any fact", in: `{"facts":[{"key":"a","value":"unfinish`, fail: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, how, err := parseAnswer(tc.in)
			if tc.fail {
				if err == nil || !errors.Is(err, errNoFacts) {
					t.Fatalf("parsed %+v (%s), want errNoFacts; err = %v", fs, how, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if how != tc.how {
				t.Errorf("how = %s, want %s", how, tc.how)
			}
			var got []string
			for _, f := range fs {
				got = append(got, f.Value)
			}
			if strings.Join(got, "|") != strings.Join(tc.values, "|") {
				t.Fatalf("values = %q, want %q", got, tc.values)
			}
			if tc.check != nil {
				tc.check(t, fs)
			}
		})
	}
}

func TestTidyLeavesStringsAlone(t *testing.T) {
	in := `{"value":"True, None, and a comma ,]  inside"}`
	if got := tidy(in); got != in {
		t.Fatalf("tidy changed a string: %s", got)
	}
	if got := tidy(`[Truex, True]`); got != `[Truex, true]` {
		t.Fatalf("tidy = %s", got)
	}
}
