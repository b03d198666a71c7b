package drill

import (
	"fmt"
)

// The drill's tenant: every memory in it comes from a drill event.
const tenant = "drill"

var (
	colours   = []string{"green", "amber", "violet", "crimson", "silver", "golden", "ivory", "teal", "scarlet", "indigo", "ochre", "olive", "navy", "coral", "maroon", "azure", "bronze", "copper", "jade", "russet", "saffron", "slate"}
	things    = []string{"kayaks", "lanterns", "notebooks", "bicycles", "teapots", "umbrellas", "scarves", "guitars", "compasses", "telescopes", "hammocks", "backpacks", "kettles", "sandals", "clocks", "mittens", "ladders", "baskets", "pianos", "skateboards", "typewriters", "candles"}
	materials = []string{"oak", "linen", "walnut", "wool", "cedar", "marble", "leather", "bamboo", "granite", "velvet", "cotton", "maple", "ceramic", "birch", "cashmere", "pine", "tweed", "ebony", "suede", "willow", "hemp", "cork"}
	parts     = []string{"handles", "straps", "lids", "wheels", "cases", "stands", "frames", "hooks", "buttons", "knobs", "covers", "rims", "pedals", "strings", "bases", "legs", "trims", "panels", "clasps", "spouts", "shelves", "drawers"}
)

// phrase is a description unique to i (for i < 22^4).
func phrase(i int) string {
	n := len(colours)
	return fmt.Sprintf("%s %s with %s %s", colours[i%n], things[(i/n)%n], materials[(i/n/n)%n], parts[(i/n/n/n)%n])
}

// drillEvent is event i: memory events (half), turns (three in ten) and
// session ends (one in five), each with its own subject and content, so
// each becomes exactly one fact memory whose source_ids hold
// "drill:<id>", and a turn or session end also one transcript memory.
func drillEvent(i int) map[string]any {
	id := fmt.Sprintf("ev-%05d", i)
	subject := fmt.Sprintf("user-%05d", i)
	switch i % 10 {
	case 0, 1, 2, 3, 4:
		return map[string]any{"id": id, "type": "memory", "tenant": tenant, "subject": subject,
			"memory": map[string]any{"content": "The workshop keeps the " + phrase(i) + " in the north room", "type": "fact"}}
	case 5, 6, 7:
		return map[string]any{"id": id, "type": "turn", "tenant": tenant, "subject": subject,
			"session_id": "s-" + id, "role": "user", "content": "I prefer " + phrase(i)}
	default:
		return map[string]any{"id": id, "type": "session_end", "tenant": tenant, "subject": subject,
			"session_id": "s-" + id, "messages": []map[string]any{{"role": "user", "content": "I always bring " + phrase(i) + " to the standup"}}}
	}
}

func eventType(i int) string {
	switch i % 10 {
	case 0, 1, 2, 3, 4:
		return "memory"
	case 5, 6, 7:
		return "turn"
	}
	return "session_end"
}
