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
	activeHTML *regexp.Regexp
	mdComment  *regexp.Regexp
	mdImage    *regexp.Regexp
	urlTmpl    *regexp.Regexp
	roleLine   *regexp.Regexp
	header     *regexp.Regexp
	directive  *regexp.Regexp
}

func newMarkup() *markup {
	re := regexp.MustCompile
	return &markup{
		chatToken:  re(`<\|[a-z0-9_▁ .-]{2,40}\|>|<｜[^｜]{2,40}｜>|\[/?inst\]|<</?sys>>|<\|(?:im_start|im_end|endoftext|system|user|assistant)`),
		roleTag:    re(`</?\s*(?:system|developer|assistant|human|instructions?|system[-_ ]?(?:prompt|message|instructions?)|im_start|im_end|tool_calls?|tool_use|tool_result|function_calls?|function_results?)(?:\s[^>]{0,80})?\s*/?>`),
		bracketTag: re(`\[/?(?:system|sys|developer|admin|instructions?|assistant)(?:\s(?:message|note|prompt|override|instructions?|mode))?\]`),
		hiddenCSS: re(`display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em|rem|%)?\s*[;"'}]|opacity\s*:\s*0(?:\.0+)?\s*[;"'}]|` +
			`<[a-z][^>]*\shidden[\s=>/]|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\s*[;"'}]`),
		activeHTML: re(`<\s*(?:script|iframe|object|embed)\b|<\s*img\b[^>]*\bsrc\s*=\s*["']?https?:|\bon(?:error|load|click|mouseover)\s*=`),
		mdComment:  re(`(?:^|\s)\[(?://|comment|_|#)\]:\s*(?:#|<>)`),
		mdImage:    re(`!\[[^\]]*\]\(\s*https?://[^)\s]*\?[^)\s]*=`),
		urlTmpl: re(`https?://[^\s"'<>)\]]*(?:\{[^}\s]*\}|%7b|\$\{|\[(?:data|secret|info|conversation|chat|history|memory|key|token|password|message|user)[^\]]*\]|` +
			`<(?:data|secret|info|conversation|chat|history|memory|key|token|password|message|user)[^>]*>)`),
		roleLine: re(`^[\s>*#-]*(assistant|human|system|developer)(?:\s+(?:prompt|message|note|instructions?|override))?\s*:\s*(.*)$`),
		header:   re(`^\s*#{1,6}\s*(?:(?:instructions?|system prompt|new instructions)\s*(?::.*)?|(?:system|response|input)\s*:?)\s*$`),
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
	case p.has(hasLT) && mk.hiddenCSS.MatchString(low):
		return "hidden html"
	case p.has(hasLT) && mk.activeHTML.MatchString(low):
		return "active html"
	case p.has(hasBracket) && strings.Contains(low, "]:") && mk.mdComment.MatchString(low):
		return "hidden markdown comment"
	case p.has(hasBang) && strings.Contains(low, "![") && mk.mdImage.MatchString(low):
		return "markdown image with a query"
	case p.has(hasBrace|hasPercent|hasBracket|hasLT) && strings.Contains(low, "http") && mk.urlTmpl.MatchString(low):
		return "templated url"
	}
	return ""
}

// lines checks each line of raw for a forged turn ("Assistant: …"), a
// system line that instructs ("System: you are …") or a prompt-format
// header ("### Instruction").
func (mk *markup) lines(raw string) string {
	for line := range strings.Lines(raw) {
		if !strings.ContainsAny(line, ":#") || len(line) > 4096 {
			continue
		}
		low := strings.ToLower(clean(line).text)
		if m := mk.roleLine.FindStringSubmatch(low); m != nil {
			if m[1] == "assistant" || m[1] == "human" || instructs(m[2]) {
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
// more), other than a tool directive ("<!-- prettier-ignore -->").
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
		if !directive.MatchString(inner) && len(strings.Fields(inner)) >= 3 {
			return true
		}
		if inner == rest {
			return false
		}
	}
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
