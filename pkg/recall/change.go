package recall

import "strings"

// changeWords are how a message says that something changed: a turn that
// restates a fact with one of them updates it ("we moved to port 8080",
// "it's on 1.23 now", "I'm replacing GORM with sqlx").
var changeWords = wordSet(`now changed change changing switched switch switching replaced replacing replace
	moved moving bumped upgraded upgrading downgraded migrated migrating instead anymore longer updated
	renamed raised lowered dropped swapped reverted slipped postponed moved`)

// saysChange reports whether text holds a word saying that something
// changed.
func saysChange(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !('a' <= r && r <= 'z')
	}) {
		if changeWords[w] {
			return true
		}
	}
	return false
}
