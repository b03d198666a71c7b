package eval

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DevChat is the second evaluation set: long, code-heavy, multi-session
// conversations between a developer and a coding assistant, with questions
// whose evidence turns are known, knowledge updates that list the stale
// evidence a newer turn replaced, and each conversation's as_of (its last
// session's date). internal/devchatgen generates it; testdata/devchat holds
// the committed copy and its README the schema.
type DevChat struct {
	Name          string                `json:"name"`
	Version       int                   `json:"version"`
	Seed          uint64                `json:"seed"`
	Anchor        time.Time             `json:"anchor"`
	Generator     string                `json:"generator"`
	License       string                `json:"license"`
	Conversations []DevChatConversation `json:"conversations"`
}

// DevChatConversation is one user's sessions with the assistant.
type DevChatConversation struct {
	ID        string            `json:"id"`
	User      string            `json:"user"`
	Assistant string            `json:"assistant"`
	Projects  []string          `json:"projects"`
	AsOf      time.Time         `json:"as_of"`
	Sessions  []DevChatSession  `json:"sessions"`
	Questions []DevChatQuestion `json:"questions"`
}

// DevChatSession is one dated session.
type DevChatSession struct {
	Number int           `json:"number"`
	Start  time.Time     `json:"start"`
	Turns  []DevChatTurn `json:"turns"`
}

// DevChatTurn is one message; ID is a dia id, "D<session>:<turn>".
type DevChatTurn struct {
	ID      string    `json:"id"`
	Role    string    `json:"role"` // user or assistant
	Speaker string    `json:"speaker"`
	TS      time.Time `json:"ts"`
	Text    string    `json:"text"`
}

// DevChatQuestion is one question. Evidence are the turns that answer it
// now; Stale, for knowledge updates, the older turns they superseded.
type DevChatQuestion struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Evidence []string `json:"evidence"`
	Stale    []string `json:"stale_evidence,omitempty"`
}

// DevChatCategories are the question categories, in report order.
// The last five are issue 21's classes (the devchat-classes set): a short
// user fact among long assistant answers, an update inside long technical
// threads, an event asked about by its date when the evidence names only a
// relative day, the order of two events, two people or projects at once.
// "alias" asks about pets and relatives by name or by word (the
// devchat-aliases set); "named" which city, book, conference, restaurant
// or language was suggested (the devchat-names set).
var DevChatCategories = []string{"fact", "multi-session", "update", "temporal", "code", "preference",
	"short-fact", "thread-update", "date-anchored", "event-order", "multi-entity", "alias", "named"}

// UpdateCategory is the category whose questions list stale evidence.
const UpdateCategory = "update"

// devChatCategory numbers a category for the tally (1-based), 0 if unknown.
func devChatCategory(name string) int { return slices.Index(DevChatCategories, name) + 1 }

// devChatCategoryName names a tally category number.
func devChatCategoryName(c int) string {
	if c >= 1 && c <= len(DevChatCategories) {
		return DevChatCategories[c-1]
	}
	return "category-" + strconv.Itoa(c)
}

// LoadDevChat reads a DevChat file, gzip-compressed when its name ends in
// .gz, and checks it.
func LoadDevChat(path string) (*DevChat, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read devchat data: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("read devchat data %s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read devchat data %s: %w", path, err)
	}
	set, err := ParseDevChat(data)
	if err != nil {
		return nil, fmt.Errorf("parse devchat data %s: %w", path, err)
	}
	return set, nil
}

// ParseDevChat decodes and checks a DevChat set.
func ParseDevChat(data []byte) (*DevChat, error) {
	var set DevChat
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	if len(set.Conversations) == 0 {
		return nil, fmt.Errorf("conversations: none")
	}
	ids := map[string]bool{}
	for i := range set.Conversations {
		c := &set.Conversations[i]
		if c.ID == "" || ids[c.ID] {
			return nil, fmt.Errorf("conversation %d: id %q is empty or repeated", i, c.ID)
		}
		ids[c.ID] = true
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("conversation %s: %w", c.ID, err)
		}
	}
	return &set, nil
}

// check verifies turn ids, roles and times, and that every question's
// evidence names turns of the conversation.
func (c *DevChatConversation) check() error {
	turns := map[string]time.Time{}
	var last time.Time
	for _, s := range c.Sessions {
		for j, t := range s.Turns {
			if want := "D" + strconv.Itoa(s.Number) + ":" + strconv.Itoa(j+1); t.ID != want {
				return fmt.Errorf("session %d turn %d: id %q, want %q", s.Number, j+1, t.ID, want)
			}
			if t.Role != "user" && t.Role != "assistant" {
				return fmt.Errorf("turn %s: role %q is neither user nor assistant", t.ID, t.Role)
			}
			if strings.TrimSpace(t.Text) == "" || strings.TrimSpace(t.Speaker) == "" {
				return fmt.Errorf("turn %s: empty text or speaker", t.ID)
			}
			if t.TS.Before(last) {
				return fmt.Errorf("turn %s: ts %s is before the turn before it", t.ID, t.TS.Format(time.RFC3339))
			}
			last = t.TS
			turns[t.ID] = t.TS
		}
	}
	if len(turns) == 0 {
		return fmt.Errorf("sessions: no turns")
	}
	if c.AsOf.Before(last) {
		return fmt.Errorf("as_of %s is before the last turn", c.AsOf.Format(time.RFC3339))
	}
	qids := map[string]bool{}
	for _, q := range c.Questions {
		if q.ID == "" || qids[q.ID] {
			return fmt.Errorf("question id %q is empty or repeated", q.ID)
		}
		qids[q.ID] = true
		if devChatCategory(q.Category) == 0 {
			return fmt.Errorf("question %s: category %q is not one of %s", q.ID, q.Category, strings.Join(DevChatCategories, ", "))
		}
		if len(q.Evidence) == 0 {
			return fmt.Errorf("question %s: no evidence", q.ID)
		}
		for _, id := range append(slices.Clone(q.Evidence), q.Stale...) {
			if _, ok := turns[id]; !ok {
				return fmt.Errorf("question %s: evidence %q names no turn", q.ID, id)
			}
		}
	}
	return nil
}

// sample is the conversation in the shape the runner stores: turns carry
// their own times and the speaker's name as the content's prefix.
func (c *DevChatConversation) sample() Sample {
	s := Sample{ID: c.ID, SpeakerA: c.User, SpeakerB: c.Assistant}
	for _, se := range c.Sessions {
		out := Session{Number: se.Number, DateText: se.Start.Format(time.RFC3339), Date: se.Start}
		for _, t := range se.Turns {
			out.Turns = append(out.Turns, Turn{DiaID: t.ID, Speaker: t.Speaker, Text: t.Text, TS: t.TS})
		}
		s.Sessions = append(s.Sessions, out)
	}
	return s
}
