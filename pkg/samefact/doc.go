// Package samefact decides whether two memory statements say the same
// thing. Embedding similarity says two texts are about the same topic; it
// does not see that "uses Postgres 15" and "uses Postgres 16", or "likes
// tea" and "does not like tea", are different facts. This package compares
// the details a fact is made of, so that a near duplicate found by cosine
// and word overlap is folded into an older memory only when nothing the
// user said would be lost.
//
// # Details
//
// Extract reads the comparable details of a text:
//
//   - numbers: integers, decimals, thousands ("1,000"), percentages ("65%",
//     "65 percent"), money ("$40", "40 euros"), versions ("1.2.3", "v2"),
//     ordinals ("3rd", "third"), numbers with a unit ("14pt", "8GB"),
//     ranges and fractions, and the number words zero to twenty and the tens;
//   - dates and times: ISO dates, "May 5", "5th of May", years, months,
//     weekdays, times of day ("15:00", "3pm", "noon"), relative days and
//     frequencies ("tomorrow", "weekends", "daily");
//   - names: capitalised words (weak at a sentence start, where an ordinary
//     word is capitalised too), codes and mixed tokens ("P79", "gpt-4o"),
//     camelCase and snake_case identifiers, file names and domains, paths,
//     URLs, emails, handles and quoted strings;
//   - negation: not, never, no (longer), none, nothing, nobody, neither,
//     nor, without, cannot and every "n't".
//
// Values are normalised ("three" is 3, "3 pm" is 15:00, "65 percent" is
// 65%, "v1.2" is 1.2, names are lowercase), so a paraphrase written another
// way keeps its details.
//
// The rest of a text is its wording: its words stemmed, stopwords aside,
// as package lexical indexes them, and its relations, the words on either
// side of "over", "instead of", "than", "vs", "before", "after" and "from
// … to" ("tabs over spaces" is not "spaces over tabs").
//
// # Verdicts
//
// Compare judges an older memory against a newer fact; see Verdict. Only
// Same may be folded without reading the texts again: a detail or word the
// new fact adds, one that differs, or words swapping sides mean it is not
// provably the same statement. Telling synonyms from another thing ("likes"
// and "prefers", "tea" and "coffee") takes a reader: such a pair is
// Reworded, left to an LLM or kept as two memories.
package samefact
