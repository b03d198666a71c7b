package filter

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// markup finds instructions hidden in structure rather than words: chat
// template tokens and role tags, forged turns, prompt-format headers,
// hidden HTML and Markdown, templated exfiltration URLs and base64 blobs
// that decode to instructions.
type markup struct {
	chatToken  *regexp.Regexp
	roleTag    *regexp.Regexp
	bracketTag *regexp.Regexp
	hiddenCSS  *regexp.Regexp
	hiddenElem *regexp.Regexp
	activeHTML *regexp.Regexp
	mdComment  *regexp.Regexp
	mdImage    *regexp.Regexp
	urlTmpl    *regexp.Regexp
	url        *regexp.Regexp
	slot       *regexp.Regexp
	roleLine   *regexp.Regexp
	roleStart  *regexp.Regexp
	header     *regexp.Regexp
	directive  *regexp.Regexp
}

func newMarkup() *markup {
	re := regexp.MustCompile
	return &markup{
		chatToken:  re(`<\|[a-z0-9_▁ .-]{2,40}\|>|<｜[^｜]{2,40}｜>|\[/?inst\]|<</?sys>>|<\|(?:im_start|im_end|endoftext|system|user|assistant)`),
		roleTag:    re(`</?\s*(?:system|developer|assistant|human|instructions?|system[-_ ]?(?:prompt|message|instructions?)|im_start|im_end|tool_calls?|tool_use|tool_result|function_calls?|function_results?)(?:\s[^>]{0,80})?\s*/?>`),
		bracketTag: re(`\[/?(?:system|sys|developer|admin|instructions?|assistant)(?:\s(?:message|note|prompt|override|instructions?|mode))?\]`),
		// Styles that hide an element, tested on its attributes only: a
		// stylesheet rule (".modal { display: none }") hides nothing here.
		hiddenCSS: re(`display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em|rem|%)?\s*(?:[;"'}]|$)|opacity\s*:\s*0(?:\.0+)?\s*(?:[;"'}]|$)|` +
			`(?:^|\s)hidden(?:[\s=/]|$)|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\s*(?:[;"'}]|$)`),
		// An element's start tag and the text right after it.
		hiddenElem: re(`<[a-z][a-z0-9-]*(\s[^<>]*)>([^<]*)`),
		// Inline script, frames, event handlers, and images that would
		// carry data out in their query; a page loading a library
		// ("<script src=…>") or showing a picture is ordinary markup.
		activeHTML: re(`<\s*script\b(?:[^>s]|s(?:[^r]|r[^c]))*>|<\s*(?:iframe|object|embed)\b|<\s*img\b[^>]*\bsrc\s*=\s*["']?https?:[^"'\s>]*\?[^"'\s>]*=|\bon(?:error|load|click|mouseover)\s*=\s*[^\s{]`),
		mdComment:  re(`(?:^|\s)\[(?://|comment|_|#)\]:\s*(?:#|<>)`),
		mdImage:    re(`!\[[^\]]*\]\(\s*https?://[^)\s]*\?[^)\s]*=`),
		urlTmpl: re(`https?://[^\s"'<>)\]]*(?:\[(?:data|secret|info|conversation|chat|history|memory|key|token|password|message|user)[^\]]*\]|` +
			`<(?:data|secret|info|conversation|chat|history|memory|key|token|password|message|user)[^>]*>)`),
		url:      re(`(?i)https?://[^\s"'<>\x60]+`),
		slot:     re(`(?i)(?:\{|%7b)\s*([^{}\s%]{1,60})\s*(?:\}|%7d)`),
		roleLine: re(`^[\s>*#-]*(assistant|human|system|developer)(?:\s+(?:prompt|message|note|instructions?|override))?\s*:\s*(.*)$`),
		// The first line of a stored conversation ("user: …", "Assistant: …").
		roleStart: re(`^(?:user|assistant|human|system|ai|bot|me|model)\s*:`),
		header:    re(`^\s*#{1,6}\s*(?:(?:instructions?|system prompt|new instructions)\s*(?::.*)?|(?:system|response|input)\s*:?)\s*$`),
		directive: re(`^\s*(?:prettier-ignore|eslint-[a-z-]+|markdownlint-[a-z-]+|textlint-[a-z-]+|cspell:[a-z]+|` +
			`vale\s|more|toc|end|start|begin|region|endregion|#region|#endregion)`),
	}
}

// find names the markup attack in a probed text, or returns "".
func (mk *markup) find(p *probe) string {
	if p.has(hasColon) || p.has(hasNewline) && p.has(hasHash) {
		if name := mk.lines(p.raw); name != "" {
			return name
		}
	}
	if !p.has(hasLT | hasBracket | hasBang | hasBrace | hasPercent | hasNonASCII) {
		return ""
	}
	low := strings.ToLower(p.text)
	switch {
	case p.has(hasLT|hasBracket|hasNonASCII) && mk.chatToken.MatchString(low):
		return "chat template token"
	case p.has(hasLT) && mk.roleTag.MatchString(low):
		return "role tag"
	case p.has(hasBracket) && mk.bracketTag.MatchString(low):
		return "role tag"
	case p.has(hasLT) && strings.Contains(low, "<!--") && hiddenComment(low, mk.directive):
		return "hidden html comment"
	case p.has(hasLT) && mk.hiddenText(low):
		return "hidden html"
	case p.has(hasLT) && mk.activeHTML.MatchString(low):
		return "active html"
	case p.has(hasBracket) && strings.Contains(low, "]:") && mk.mdComment.MatchString(low):
		return "hidden markdown comment"
	case p.has(hasBang) && strings.Contains(low, "![") && mk.mdImage.MatchString(low):
		return "markdown image with a query"
	case p.has(hasBracket|hasLT) && strings.Contains(low, "http") && mk.urlTmpl.MatchString(low):
		return "templated url"
	case p.has(hasBrace|hasPercent) && strings.Contains(low, "http") && mk.dataSlot(p.text):
		return "templated url"
	}
	return ""
}

// hiddenText: an element hidden by its attributes (inline style, the
// hidden attribute) that holds text of its own, two words or more. A hidden
// modal or spinner whose content is markup, and CSS in a stylesheet, pass.
func (mk *markup) hiddenText(low string) bool {
	for _, m := range mk.hiddenElem.FindAllStringSubmatch(low, -1) {
		if len(strings.Fields(m[2])) >= 2 && mk.hiddenCSS.MatchString(m[1]) {
			return true
		}
	}
	return false
}

// dataSlot: a URL with a placeholder that names the conversation's data
// for a model to fill in ("?d={data}", "/{chat_history}"). Placeholders of
// code ("${encodedCity}", "{z}/{x}/{y}", "{api_key}") name program values
// and pass.
func (mk *markup) dataSlot(text string) bool {
	for _, u := range mk.url.FindAllString(text, -1) {
		for _, m := range mk.slot.FindAllStringSubmatch(u, -1) {
			if namesData(m[1]) {
				return true
			}
		}
	}
	return false
}

// exfilData are the words of a placeholder that names conversation data;
// slotFiller may join them ("{the_full_chat}").
var (
	exfilData = setOf("data", "secret", "secrets", "conversation", "conversations", "chat", "history", "memory",
		"memories", "message", "messages", "info", "information", "context", "prompt", "summary", "transcript",
		"password", "passwords", "credentials", "pii", "leak", "payload", "exfil")
	slotFiller = setOf("the", "all", "full", "entire", "whole", "your", "my", "user", "users", "previous", "private",
		"personal", "system", "sensitive", "here", "this", "of", "and")
)

// namesData: every word of the placeholder's name (split at case changes
// and punctuation) is a data word or a filler, and one is a data word.
func namesData(name string) bool {
	words := splitName(strings.TrimLeft(name, "$"))
	data := false
	for _, w := range words {
		switch {
		case exfilData[w]:
			data = true
		case slotFiller[w]:
		default:
			return false
		}
	}
	return data
}

// splitName splits an identifier into lowercase words: "chatHistory",
// "chat_history", "CHAT-HISTORY" → chat, history.
func splitName(s string) []string {
	var words []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, strings.ToLower(b.String()))
			b.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if i > 0 && s[i-1] >= 'a' && s[i-1] <= 'z' {
				flush()
			}
			b.WriteByte(c)
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80:
			b.WriteByte(c)
		default:
			flush()
		}
	}
	flush()
	return words
}

// lines checks each line of raw for a forged turn ("Assistant: …"), a
// system line that instructs ("System: you are …") or a prompt-format
// header ("### Instruction").
//
// A text that opens with a role line is a stored conversation ("user: …",
// "assistant: …" on each line, as transcripts are kept): its turns are
// what it records, not forged. A turn that appears after other text is
// forged; a system line that instructs is caught in both.
func (mk *markup) lines(raw string) string {
	transcript := false
	first := true
	for line := range strings.Lines(raw) {
		if first && strings.TrimSpace(line) != "" {
			first = false
			transcript = mk.roleStart.MatchString(strings.ToLower(clean(line).text))
		}
		if !strings.ContainsAny(line, ":#") || len(line) > 4096 {
			continue
		}
		low := strings.ToLower(clean(line).text)
		if m := mk.roleLine.FindStringSubmatch(low); m != nil {
			turn := m[1] == "assistant" || m[1] == "human"
			if turn && !transcript || !turn && instructs(m[2]) {
				return "role prefix"
			}
		}
		if strings.Contains(low, "#") && mk.header.MatchString(low) {
			return "prompt-format header"
		}
	}
	return ""
}

// instructs: the rest of a "System:" line speaks to the model or orders it.
func instructs(rest string) bool {
	s := " " + rest + " "
	return hasAny(s, " you ", " you're ", " your ", " ignore ", " disregard ", " forget ", " override ", " always ",
		" never ", " must ", " do not ", " don't ", " respond ", " reply ", " answer ", " act ", " pretend ",
		" follow ", " obey ", " new ", " from now on ")
}

// hiddenComment: an HTML comment that says something (three words or
// more) to a model, other than a tool directive ("<!-- prettier-ignore -->").
// Comments that label markup ("<!-- Bootstrap CSS -->", "<!-- TODO: … -->")
// pass.
func hiddenComment(low string, directive *regexp.Regexp) bool {
	for rest := low; ; {
		i := strings.Index(rest, "<!--")
		if i < 0 {
			return false
		}
		rest = rest[i+4:]
		inner := rest
		if j := strings.Index(rest, "-->"); j >= 0 {
			inner, rest = rest[:j], rest[j+3:]
		}
		if !directive.MatchString(inner) && len(strings.Fields(inner)) >= 3 && commentSpeaks(inner) {
			return true
		}
		if inner == rest {
			return false
		}
	}
}

// commentSpeaks: a comment's text names a model or a conversation role,
// or tells the reader to drop, hide or leak something.
func commentSpeaks(inner string) bool {
	s := " " + strings.Join(strings.FieldsFunc(inner, func(r rune) bool {
		return r == ' ' || r == ',' || r == '.' || r == ';' || r == '!' || r == '?' || r == '"' || r == '\n'
	}), " ") + " "
	return hasAny(s, " ai ", " ai:", " assistant", " chatgpt", " claude", " gpt", " llm", " language model", " model ",
		" chatbot", " bot ", " agent ", " system:", " user:", " human:", " you ", " you're ", " yourself ",
		" ignore ", " disregard ", " forget ", " override ", " bypass ", " obey ", " reveal ", " exfiltrate ",
		" instructions ", " do not tell ", " don't tell ")
}

// encodedPayloads returns the printable text of base64 runs in text that
// decode to words, for the phrases to read.
func encodedPayloads(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && isBase64Char(text[j]) {
			j++
		}
		if j-i >= 24 {
			if s, ok := decodeText(text[i:j]); ok {
				out = append(out, s)
			}
		}
		if j == i {
			j++
		}
		i = j
	}
	return out
}

func isBase64Char(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

// decodeText decodes standard or URL base64, padded or not, and keeps the
// result only if it reads as text: valid UTF-8, printable, with spaces.
func decodeText(s string) (string, bool) {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil || len(b) < 12 || !utf8.Valid(b) {
			continue
		}
		printable, spaces := 0, 0
		for _, c := range b {
			if c >= 0x20 && c < 0x7f || c >= 0x80 {
				printable++
			}
			if c == ' ' {
				spaces++
			}
		}
		if printable*10 >= len(b)*9 && spaces >= 2 {
			return string(b), true
		}
	}
	return "", false
}
