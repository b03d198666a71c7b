package soak

import "fmt"

var (
	colours   = []string{"green", "amber", "violet", "crimson", "silver", "golden", "ivory", "teal", "scarlet", "indigo", "ochre", "olive", "navy", "coral", "maroon", "azure", "bronze", "copper", "jade", "russet", "saffron", "slate"}
	things    = []string{"kayaks", "lanterns", "notebooks", "bicycles", "teapots", "umbrellas", "scarves", "guitars", "compasses", "telescopes", "hammocks", "backpacks", "kettles", "sandals", "clocks", "mittens", "ladders", "baskets", "pianos", "skateboards", "typewriters", "candles"}
	materials = []string{"oak", "linen", "walnut", "wool", "cedar", "marble", "leather", "bamboo", "granite", "velvet", "cotton", "maple", "ceramic", "birch", "cashmere", "pine", "tweed", "ebony", "suede", "willow", "hemp", "cork"}
	parts     = []string{"handles", "straps", "lids", "wheels", "cases", "stands", "frames", "hooks", "buttons", "knobs", "covers", "rims", "pedals", "strings", "bases", "legs", "trims", "panels", "clasps", "spouts", "shelves", "drawers"}
)

// phrase is a description unique to n for n < 22^4 (234,256), then it
// repeats; a soak at 20 operations a second stays below that for hours.
func phrase(n int) string {
	k := len(colours)
	return fmt.Sprintf("%s %s with %s %s", colours[n%k], things[(n/k)%k], materials[(n/k/k)%k], parts[(n/k/k/k)%k])
}
