package topics

import "time"

// Item is one memory to cluster.
type Item struct {
	ID string
	// Vector is the memory's embedding, L2-normalised (Build normalises it
	// again to be safe). Items with an empty, zero or non-finite vector, or
	// with a dimension other than most items', are left out of the tree.
	Vector     []float32
	Text       string
	Domain     string
	Importance float64
}

// Node is a topic. A leaf has memories and no children; a parent's memories
// are the union of its children's.
type Node struct {
	// ID is derived from the ids of the memories beneath the node, so it is
	// the same in every rebuild until that set changes; Tree.KeepIDs keeps
	// it across rebuilds while the set stays substantially the same.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Size is the number of memories beneath the node: len(MemoryIDs).
	Size int `json:"size"`
	// MemoryIDs lists every memory beneath the node, leaves and parents alike,
	// most important first (ties by id).
	MemoryIDs []string `json:"memory_ids"`
	// Children are ordered by size, largest first (ties by id).
	Children []*Node `json:"children,omitempty"`
	// Domains counts the memories beneath the node per domain; memories
	// without a domain are not counted.
	Domains map[string]int `json:"domains,omitempty"`
}

// Leaf reports whether the node has no children.
func (n *Node) Leaf() bool { return len(n.Children) == 0 }

// Tree is a tenant's topic tree.
type Tree struct {
	Tenant string    `json:"tenant"`
	Built  time.Time `json:"built"`
	// Memories is the number of memories placed in the tree (those with a
	// usable vector).
	Memories int `json:"memories"`
	// Roots are ordered by size, largest first (ties by id).
	Roots []*Node `json:"roots"`
}

// Find returns the topic with that id, at any depth.
func (t Tree) Find(id string) (*Node, bool) {
	stack := append([]*Node(nil), t.Roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.ID == id {
			return n, true
		}
		stack = append(stack, n.Children...)
	}
	return nil, false
}

// Leaves returns every leaf topic, largest first (ties by id): the flat index
// that resume lists.
func (t Tree) Leaves() []*Node {
	var out []*Node
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			if n.Leaf() {
				out = append(out, n)
			}
			walk(n.Children)
		}
	}
	walk(t.Roots)
	sortNodes(out)
	return out
}
