package extract

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// corpusInput is one message rule capture is run on, with where it came
// from: the LoCoMo dev half, the DevChat generator's data, or a statement
// written for the labelled set.
type corpusInput struct {
	Dataset string `json:"dataset"`           // locomo-dev, devchat, written
	Sample  string `json:"sample"`            // conversation id
	Turn    string `json:"turn"`              // dia_id or turn id
	Speaker string `json:"speaker,omitempty"` // who said it
	Text    string `json:"text"`
}

// locomoInputs reads every turn of the LoCoMo dev half (both speakers are
// users: that is how an agent of two people publishes them).
func locomoInputs(path string) ([]corpusInput, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read locomo dev: %w", err)
	}
	var samples []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("decode locomo dev: %w", err)
	}
	var out []corpusInput
	for _, s := range samples {
		for i := 1; ; i++ {
			sess, ok := s.Conversation[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal(sess, &turns); err != nil {
				return nil, fmt.Errorf("decode locomo %s session %d: %w", s.SampleID, i, err)
			}
			for _, t := range turns {
				out = append(out, corpusInput{Dataset: "locomo-dev", Sample: s.SampleID, Turn: t.DiaID, Speaker: t.Speaker, Text: t.Text})
			}
		}
	}
	return out, nil
}

// devchatInputs reads the user turns of the DevChat set.
func devchatInputs(path string) ([]corpusInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open devchat: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("gunzip devchat: %w", err)
	}
	var set struct {
		Conversations []struct {
			ID       string `json:"id"`
			Sessions []struct {
				Turns []struct {
					ID      string `json:"id"`
					Role    string `json:"role"`
					Speaker string `json:"speaker"`
					Text    string `json:"text"`
				} `json:"turns"`
			} `json:"sessions"`
		} `json:"conversations"`
	}
	if err := json.NewDecoder(zr).Decode(&set); err != nil {
		return nil, fmt.Errorf("decode devchat: %w", err)
	}
	var out []corpusInput
	for _, c := range set.Conversations {
		for _, s := range c.Sessions {
			for _, t := range s.Turns {
				if t.Role == "user" {
					out = append(out, corpusInput{Dataset: "devchat", Sample: c.ID, Turn: t.ID, Speaker: t.Speaker, Text: t.Text})
				}
			}
		}
	}
	return out, nil
}

// TestDumpCaptures writes every capture today's rules make on the corpora
// to $RECOLLECT_DUMP_CAPTURES (JSONL, unlabelled): the labelled set's
// raw material. It runs only when asked.
func TestDumpCaptures(t *testing.T) {
	out := os.Getenv("RECOLLECT_DUMP_CAPTURES")
	if out == "" {
		t.Skip("set RECOLLECT_DUMP_CAPTURES to a file to dump captures")
	}
	var in []corpusInput
	if p := os.Getenv("RECOLLECT_LOCOMO_DEV"); p != "" {
		l, err := locomoInputs(p)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, l...)
	}
	if p := os.Getenv("RECOLLECT_WRITTEN"); p != "" {
		w, err := writtenInputs(p)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, w...)
	}
	d, err := devchatInputs(filepath.Join("..", "..", "testdata", "devchat", "devchat.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	in = append(in, d...)
	x := newCaptureExtractor(t)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	n := 0
	for i, c := range in {
		found := x.Capture(turnEvent(fmt.Sprint(i), "user", c.Text, t0))
		if len(found) == 0 && c.Dataset == "written" {
			if err := enc.Encode(labelledCapture{corpusInput: c}); err != nil {
				t.Fatal(err)
			}
		}
		for _, fm := range found {
			row := labelledCapture{corpusInput: c, Rule: fm.Rule, Type: string(fm.Memory.Type), Key: fm.Memory.Key, Content: fm.Memory.Content}
			if err := enc.Encode(row); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	t.Logf("%d inputs, %d captures", len(in), n)
}

// writtenInputs reads statements written for the labelled set (a JSON array).
func writtenInputs(path string) ([]corpusInput, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read written statements: %w", err)
	}
	var out []corpusInput
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode written statements: %w", err)
	}
	return out, nil
}
