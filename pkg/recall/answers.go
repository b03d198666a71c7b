package recall

import (
	"math"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// A question turn ("what's your favourite book?") shares the words of a
// question about it, while the reply that answers it ("Charlotte's Web, I
// read it every year") may share none: the question turn used to outrank
// its answer. Among the best answerTop results, a turn that asks (see
// asksQuestion) and ranks above the turn replying to it (the transcript
// memory whose context, memory.Memory.Evidence, is the question) gives its
// place to the reply: the reply takes a score just above the question's,
// as newer-wins does, and the question follows it.
const answerTop = 30

// whWords open a question asking for something other than yes or no.
var whWords = wordSet(`what what's whats which who who's whom whose where where's when when's why how how's`)

// asksQuestion reports whether the text of a transcript memory asks a
// question a reply would answer: it ends its last sentence with "?" and
// holds a question word.
func asksQuestion(m *memory.Memory) bool {
	text := strings.TrimSpace(m.Content)
	if !strings.HasSuffix(text, "?") {
		return false
	}
	if s := speakerOf(m); s != "" {
		text = text[len(s)+2:]
	}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if whWords[strings.Trim(w, `"'.,;:!?()`)] {
			return true
		}
	}
	return false
}

// answersFirst puts replies above the question turns they answer, as
// described above. Results must be sorted; they are sorted again when one
// moved. It reports whether one did.
func answersFirst(out []Result) bool {
	n := min(len(out), answerTop)
	reply := make(map[string]int, n) // question's context text → rank of its reply
	for j := range n {
		m := out[j].Memory
		if m.Transcript() && m.Evidence != "" {
			if _, dup := reply[m.Session+"\x00"+m.Evidence]; !dup {
				reply[m.Session+"\x00"+m.Evidence] = j
			}
		}
	}
	moved := false
	for i := range n {
		q := &out[i].Memory
		if !q.Transcript() || !asksQuestion(q) {
			continue
		}
		j, ok := reply[q.Session+"\x00"+memory.TranscriptContext(q.Content)]
		if !ok || j <= i || out[j].Score >= out[i].Score {
			continue
		}
		out[j].Score = math.Nextafter(out[i].Score, math.Inf(1))
		moved = true
	}
	if moved {
		sortResults(out)
	}
	return moved
}
