package topics

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// DefaultDebounce is how long the rebuild worker waits for writes to go quiet
// before rebuilding a tenant's tree (003: 5 s); Build itself does not wait.
const DefaultDebounce = 5 * time.Second

// Options tunes Build. A zero field takes its default, so Options{} works.
// Similarities are cosines of L2-normalised vectors.
type Options struct {
	// AssignThreshold is the least similarity of a memory to its topic's
	// centroid; below it the memory moves to a closer topic or stands alone.
	AssignThreshold float64
	// MergeThreshold is the least similarity of two leaf centroids to merge.
	MergeThreshold float64
	// MaxLeafSize: a leaf larger than this is split unless its mean pairwise
	// similarity reaches LargeLeafSim.
	MaxLeafSize int
	// MinInternalSim is the mean pairwise similarity below which a small leaf
	// (3 up to MaxLeafSize/2 members) is split.
	MinInternalSim float64
	// MediumLeafSim is that bound for leaves over MaxLeafSize/2 members.
	MediumLeafSim float64
	// LargeLeafSim is that bound for leaves over MaxLeafSize members.
	LargeLeafSim float64
	// LeafBudget is the most leaves a tree has.
	LeafBudget int
	// MinClusterSize: a leaf with fewer members joins its most similar leaf
	// when their similarity reaches AbsorbThreshold.
	MinClusterSize int
	// AbsorbThreshold is the least similarity for absorbing a small leaf.
	AbsorbThreshold float64
	// ParentThreshold is the least average similarity between the topics
	// grouped under one parent (not in 003, which groups by k-means alone;
	// the default matches its assign threshold, and groups MiniLM topics such
	// as "docker compose" and "kubernetes argocd" without lumping in others).
	ParentThreshold float64
	// MaxDepth is the most levels of parents above the leaves.
	MaxDepth int
	// MaxChildren: a parent with more children is subdivided.
	MaxChildren int
}

// DefaultOptions returns 003's thresholds.
func DefaultOptions() Options {
	return Options{
		AssignThreshold: 0.30,
		MergeThreshold:  0.55,
		MaxLeafSize:     8,
		MinInternalSim:  0.35,
		MediumLeafSim:   0.40,
		LargeLeafSim:    0.50,
		LeafBudget:      256,
		MinClusterSize:  3,
		AbsorbThreshold: 0.40,
		ParentThreshold: 0.30,
		MaxDepth:        3,
		MaxChildren:     8,
	}
}

// RegisterFlags adds the clustering flags, set to their defaults.
func (o *Options) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	d := DefaultOptions()
	fs.Float64Var(&o.AssignThreshold, prefix+"topics-assign-threshold", d.AssignThreshold, "least cosine of a memory to its topic centroid")
	fs.Float64Var(&o.MergeThreshold, prefix+"topics-merge-threshold", d.MergeThreshold, "least cosine between two topic centroids to merge them")
	fs.IntVar(&o.MaxLeafSize, prefix+"topics-max-leaf-size", d.MaxLeafSize, "topics larger than this are split unless tightly coherent")
	fs.Float64Var(&o.MinInternalSim, prefix+"topics-min-internal-sim", d.MinInternalSim, "mean pairwise cosine below which a small topic is split")
	fs.Float64Var(&o.MediumLeafSim, prefix+"topics-medium-leaf-sim", d.MediumLeafSim, "mean pairwise cosine below which a medium topic is split")
	fs.Float64Var(&o.LargeLeafSim, prefix+"topics-large-leaf-sim", d.LargeLeafSim, "mean pairwise cosine below which a topic over the max leaf size is split")
	fs.IntVar(&o.LeafBudget, prefix+"topics-leaf-budget", d.LeafBudget, "most leaf topics in a tenant's tree")
	fs.IntVar(&o.MinClusterSize, prefix+"topics-min-cluster-size", d.MinClusterSize, "smaller topics join their most similar topic when close enough")
	fs.Float64Var(&o.AbsorbThreshold, prefix+"topics-absorb-threshold", d.AbsorbThreshold, "least cosine for a small topic to join another")
	fs.Float64Var(&o.ParentThreshold, prefix+"topics-parent-threshold", d.ParentThreshold, "least average cosine between topics grouped under one parent")
	fs.IntVar(&o.MaxDepth, prefix+"topics-max-depth", d.MaxDepth, "most levels of parent topics above the leaves")
	fs.IntVar(&o.MaxChildren, prefix+"topics-max-children", d.MaxChildren, "parents with more children are subdivided")
}

// Validate checks the options; zero fields are allowed and mean the default.
func (o *Options) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"topics-assign-threshold", o.AssignThreshold},
		{"topics-merge-threshold", o.MergeThreshold},
		{"topics-min-internal-sim", o.MinInternalSim},
		{"topics-medium-leaf-sim", o.MediumLeafSim},
		{"topics-large-leaf-sim", o.LargeLeafSim},
		{"topics-absorb-threshold", o.AbsorbThreshold},
		{"topics-parent-threshold", o.ParentThreshold},
	} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("%s %v: must be between 0 and 1", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"topics-max-leaf-size", o.MaxLeafSize},
		{"topics-leaf-budget", o.LeafBudget},
		{"topics-min-cluster-size", o.MinClusterSize},
		{"topics-max-depth", o.MaxDepth},
	} {
		if f.v < 0 {
			return fmt.Errorf("%s %d: must not be negative", f.name, f.v)
		}
	}
	if o.MaxChildren < 0 || o.MaxChildren == 1 {
		return fmt.Errorf("topics-max-children %d: must be at least 2", o.MaxChildren)
	}
	return nil
}

// withDefaults replaces zero and out-of-range fields by their defaults, so
// Build never works from nonsense.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	fix := func(v *float64, def float64) {
		if !(*v > 0 && *v <= 1) {
			*v = def
		}
	}
	fixInt := func(v *int, def, least int) {
		if *v < least {
			*v = def
		}
	}
	fix(&o.AssignThreshold, d.AssignThreshold)
	fix(&o.MergeThreshold, d.MergeThreshold)
	fix(&o.MinInternalSim, d.MinInternalSim)
	fix(&o.MediumLeafSim, d.MediumLeafSim)
	fix(&o.LargeLeafSim, d.LargeLeafSim)
	fix(&o.AbsorbThreshold, d.AbsorbThreshold)
	fix(&o.ParentThreshold, d.ParentThreshold)
	fixInt(&o.MaxLeafSize, d.MaxLeafSize, 1)
	fixInt(&o.LeafBudget, d.LeafBudget, 1)
	fixInt(&o.MinClusterSize, d.MinClusterSize, 1)
	fixInt(&o.MaxDepth, d.MaxDepth, 1)
	fixInt(&o.MaxChildren, d.MaxChildren, 2)
	return o
}
