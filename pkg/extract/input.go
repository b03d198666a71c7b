package extract

import (
	"strings"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Input limits (001, Nebo's extractor): a message is cut to 500
// characters and one model call sees at most 15,000 (about 4k tokens),
// keeping the end of the conversation, where the freshest facts are.
const (
	DefaultMaxMessageChars      = 500
	DefaultMaxConversationChars = 15000
)

// line is one message as the model sees it.
type line struct {
	role string
	text string
}

// window is the part of a conversation one model call reads.
type window struct {
	lines []line
}

// inputLimits bounds what the model reads.
type inputLimits struct {
	message      int // characters per message
	conversation int // characters per window
	windows      int // windows per conversation; earlier messages are dropped
}

// extractable reports whether a message of role carries facts to extract:
// tool results and system prompts are not the user or the agent speaking.
func extractable(role string) bool {
	switch strings.ToLower(strings.TrimSpace(role)) {
	case "tool", "system", "function", "developer":
		return false
	}
	return true
}

// windows cuts msgs into windows of at most lim.conversation characters,
// filled from the end; when more than lim.windows would be needed the
// earliest messages are left out and counted in dropped.
func windows(msgs []memory.Message, lim inputLimits) (out []window, dropped int) {
	lines := make([]line, 0, len(msgs))
	for _, m := range msgs {
		if !extractable(m.Role) {
			continue
		}
		text := cutMessage(memory.CleanText(m.Content), lim.message)
		if text == "" {
			continue
		}
		lines = append(lines, line{role: strings.ToLower(strings.TrimSpace(m.Role)), text: text})
	}
	end := len(lines)
	for end > 0 && len(out) < lim.windows {
		start, size := end, 0
		for start > 0 {
			n := lineChars(lines[start-1])
			if size+n > lim.conversation && start < end {
				break
			}
			size += n
			start--
		}
		out = append(out, window{lines: lines[start:end]})
		end = start
	}
	// Filled from the end: put the windows back in conversation order.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, end
}

// lineChars is what a line costs in the rendered conversation.
func lineChars(l line) int { return utf8.RuneCountInString(l.text) + len(l.role) + 3 }

// cutMessage keeps the first max characters, cut at a word boundary when
// one is near, and marks the cut.
func cutMessage(s string, max int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			cut := s[:i]
			if sp := strings.LastIndexAny(cut, " \n\t"); sp > len(cut)*3/4 {
				cut = cut[:sp]
			}
			return strings.TrimSpace(cut) + "…"
		}
		n++
	}
	return s
}

// render is the conversation as the model reads it: "role: text" lines.
// Delimiter look-alikes inside messages are defused, so a message cannot
// close the conversation block and speak as the prompt.
func (w window) render() string {
	var b strings.Builder
	for _, l := range w.lines {
		b.WriteString(l.role)
		b.WriteString(": ")
		b.WriteString(defuse(l.text))
		b.WriteByte('\n')
	}
	return b.String()
}

// source is the window's text for grounding: the messages' own words.
func (w window) source() string {
	var b strings.Builder
	for _, l := range w.lines {
		b.WriteString(l.text)
		b.WriteString("\n\n")
	}
	return b.String()
}

func defuse(s string) string {
	if !strings.Contains(s, "<") || !strings.Contains(strings.ToLower(s), "conversation>") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && (hasPrefixFold(s[i:], "<conversation>") || hasPrefixFold(s[i:], "</conversation>")) {
			b.WriteString("‹")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
