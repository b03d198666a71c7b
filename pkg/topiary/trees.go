package topiary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/topics"
)

// TreeBucket is the JetStream object store holding each tenant's topic
// tree, so query replicas in other processes read what topiary built.
const TreeBucket = "recollect_topics"

// ErrNoTree is returned when a tenant has no tree yet.
var ErrNoTree = errors.New("no topic tree built yet")

// Trees stores topic trees.
type Trees struct {
	obj jetstream.ObjectStore
}

// saved is a tree as stored. LLMNamed lists the topics whose names came
// from the LLM: a later tree holding the same id with the same members
// keeps that name, while a topic whose members changed, or named by words
// (no LLM, or the LLM failed for it), is offered to the LLM again. Readers that decode a topics.Tree ignore the extra field.
type saved struct {
	topics.Tree
	LLMNamed []string `json:"llm_named,omitempty"`
}

// OpenTrees opens (creating if needed) the tree bucket.
func OpenTrees(ctx context.Context, js jetstream.JetStream) (*Trees, error) {
	obj, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: TreeBucket, Description: "topic tree per tenant", Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("open topic tree bucket: %w", err)
	}
	return &Trees{obj: obj}, nil
}

// Save replaces a tenant's tree; llmNamed are the ids of its topics named
// by the LLM.
func (t *Trees) Save(ctx context.Context, tree topics.Tree, llmNamed []string) error {
	data, err := json.Marshal(saved{Tree: tree, LLMNamed: llmNamed})
	if err != nil {
		return fmt.Errorf("encode topic tree of %s: %w", tree.Tenant, err)
	}
	if _, err := t.obj.PutBytes(ctx, tree.Tenant, data); err != nil {
		return fmt.Errorf("save topic tree of %s: %w", tree.Tenant, err)
	}
	return nil
}

// Load returns a tenant's tree, or ErrNoTree.
func (t *Trees) Load(ctx context.Context, tenant string) (topics.Tree, error) {
	s, err := t.load(ctx, tenant)
	return s.Tree, err
}

func (t *Trees) load(ctx context.Context, tenant string) (saved, error) {
	var s saved
	data, err := t.obj.GetBytes(ctx, tenant)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return s, ErrNoTree
	}
	if err != nil {
		return s, fmt.Errorf("load topic tree of %s: %w", tenant, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("decode topic tree of %s: %w", tenant, err)
	}
	return s, nil
}
