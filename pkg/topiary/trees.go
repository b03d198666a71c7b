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

// OpenTrees opens (creating if needed) the tree bucket.
func OpenTrees(ctx context.Context, js jetstream.JetStream) (*Trees, error) {
	obj, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: TreeBucket, Description: "topic tree per tenant", Storage: jetstream.FileStorage})
	if err != nil {
		return nil, fmt.Errorf("open topic tree bucket: %w", err)
	}
	return &Trees{obj: obj}, nil
}

// Save replaces a tenant's tree.
func (t *Trees) Save(ctx context.Context, tree topics.Tree) error {
	data, err := json.Marshal(tree)
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
	var tree topics.Tree
	data, err := t.obj.GetBytes(ctx, tenant)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return tree, ErrNoTree
	}
	if err != nil {
		return tree, fmt.Errorf("load topic tree of %s: %w", tenant, err)
	}
	if err := json.Unmarshal(data, &tree); err != nil {
		return tree, fmt.Errorf("decode topic tree of %s: %w", tenant, err)
	}
	return tree, nil
}
