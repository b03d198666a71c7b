package erase

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// TopicTrees is the place of the topic trees (topiary.TreeBucket): a tree
// naming a purged memory is dropped (topiary rebuilds it from the store,
// which no longer holds the subject), and the bucket is rewritten — deleted
// and filled again with the trees kept — because an object store replaces
// and deletes objects without overwriting their old chunks on disk.
// Trees are derived data: a tree dropped here is rebuilt, nothing a user
// stored is in it alone.
func TopicTrees(js jetstream.JetStream, bucket string) Place {
	return PlaceFunc{Place: "topics", Func: func(ctx context.Context, t Target) (Outcome, error) {
		dropped, err := rewriteObjects(ctx, js, bucket, func(name string, data []byte) bool {
			return name == t.Tenant && mentionsAny(data, t.IDs)
		})
		if err != nil {
			return Outcome{Erased: dropped}, err
		}
		return Outcome{Erased: dropped, Note: "trees naming a purged memory dropped (rebuilt from the store); the bucket rewritten so no old chunk stays on disk"}, nil
	}}
}

// mentionsAny reports whether data holds any of ids (memory ids are long
// and unique, so a byte search is exact enough and errs towards dropping).
func mentionsAny(data []byte, ids []string) bool {
	for _, id := range ids {
		if bytes.Contains(data, []byte(id)) {
			return true
		}
	}
	return false
}

// rewriteObjects reads every object of the bucket, deletes the bucket and
// puts back those drop refuses; it counts the dropped ones.
func rewriteObjects(ctx context.Context, js jetstream.JetStream, bucket string, drop func(name string, data []byte) bool) (int, error) {
	obj, err := js.ObjectStore(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("open object store %s: %w", bucket, err)
	}
	status, err := obj.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("status of object store %s: %w", bucket, err)
	}
	infos, err := obj.List(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
		return 0, fmt.Errorf("list object store %s: %w", bucket, err)
	}
	kept := map[string][]byte{}
	dropped := 0
	for _, info := range infos {
		data, err := obj.GetBytes(ctx, info.Name)
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("read object %s of %s: %w", info.Name, bucket, err)
		}
		if drop(info.Name, data) {
			dropped++
			continue
		}
		kept[info.Name] = data
	}
	cfg := jetstream.ObjectStoreConfig{Bucket: bucket, Description: status.Description(), Storage: jetstream.FileStorage}
	if err := js.DeleteObjectStore(ctx, bucket); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return 0, fmt.Errorf("delete object store %s: %w", bucket, err)
	}
	obj, err = js.CreateOrUpdateObjectStore(ctx, cfg)
	if err != nil {
		return dropped, fmt.Errorf("create object store %s again (%d objects to put back): %w", bucket, len(kept), err)
	}
	for name, data := range kept {
		if _, err := obj.PutBytes(ctx, name, data); err != nil {
			return dropped, fmt.Errorf("put object %s back into %s: %w", name, bucket, err)
		}
	}
	return dropped, nil
}
