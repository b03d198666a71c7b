package eval

// DevChatBaseline is plain BM25's score on a DevChat run's questions
// (bm25.go): what recall has to beat on every category.
type DevChatBaseline struct {
	Method string `json:"method"`
	Summary
	Updates UpdateScores            `json:"updates"`
	Newer   map[string]UpdateScores `json:"newer_by_category,omitempty"`
}

// bm25DevChat ranks each question's conversation turns by plain BM25 and
// scores them as the run scores recall.
func bm25DevChat(chats []*DevChatConversation, k int) *DevChatBaseline {
	all := newTally()
	all.name = devChatCategoryName
	newer := map[string]*updateTally{}
	for _, c := range chats {
		var ids, texts []string
		for _, s := range c.Sessions {
			for _, t := range s.Turns {
				ids = append(ids, t.ID)
				texts = append(texts, TurnContent(Turn{Speaker: t.Speaker, Text: t.Text}, false))
			}
		}
		x := newBM25Index(ids, texts)
		for _, q := range c.Questions {
			ranked := x.rankedIDs(q.Question, k)
			all.add(devChatCategory(q.Category), Score(ranked, q.Evidence))
			if len(q.Stale) > 0 {
				if newer[q.Category] == nil {
					newer[q.Category] = &updateTally{}
				}
				newer[q.Category].add(ranks(ranked, q.Evidence), ranks(ranked, q.Stale))
			}
		}
	}
	b := &DevChatBaseline{Method: "plain BM25 over turns (k1 1.2, b 0.75)", Summary: all.summary(), Newer: map[string]UpdateScores{}}
	for cat, u := range newer {
		b.Newer[cat] = u.scores()
	}
	b.Updates = b.Newer[UpdateCategory]
	return b
}
