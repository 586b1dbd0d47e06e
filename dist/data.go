package dist

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/fwstruct/fwstruct/datasets"
)

// dataCacheSize is the number of datasets a worker process keeps: the units
// of a grid share one, and a second lets the units of two grids interleave.
const dataCacheSize = 2

// dataCache holds the datasets this process loaded, most recent last. The
// problems of a dataset are safe for concurrent use (oracles.Problem), so
// that the units running at once on a worker share them.
var dataCache struct {
	sync.Mutex
	entries []*dataEntry
}

type dataEntry struct {
	key  string
	once sync.Once
	data *datasets.Data
	err  error
}

// loadData returns the dataset of a spec, loading it the first time this
// process needs it.
func loadData(d datasets.Spec) (*datasets.Data, error) {
	k, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("the data: %w", err)
	}
	key := string(k)
	dataCache.Lock()
	var e *dataEntry
	for i, c := range dataCache.entries {
		if c.key == key {
			e = c
			dataCache.entries = append(append(dataCache.entries[:i:i], dataCache.entries[i+1:]...), e)
			break
		}
	}
	if e == nil {
		e = &dataEntry{key: key}
		dataCache.entries = append(dataCache.entries, e)
		if len(dataCache.entries) > dataCacheSize {
			dataCache.entries = dataCache.entries[1:]
		}
	}
	dataCache.Unlock()
	e.once.Do(func() {
		e.data, e.err = d.Load()
		if e.err != nil {
			e.err = fmt.Errorf("the data %q: %w", d.Name, e.err)
		}
	})
	if e.err != nil {
		forget(e)
	}
	return e.data, e.err
}

// forget drops a failed entry, so that a later unit tries again (the files
// may have arrived on the worker since).
func forget(e *dataEntry) {
	dataCache.Lock()
	defer dataCache.Unlock()
	for i, c := range dataCache.entries {
		if c == e {
			dataCache.entries = append(dataCache.entries[:i:i], dataCache.entries[i+1:]...)
			return
		}
	}
}
