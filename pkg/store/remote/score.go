package remote

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// score is a hit's score. encoding/json refuses NaN and ±Inf, which a store
// may produce (a zero vector has no cosine), so those travel as strings
// instead of failing the whole search.
type score float64

func (s score) MarshalJSON() ([]byte, error) {
	f := float64(s)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(f)
}

func (s *score) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		unq, err := strconv.Unquote(string(data))
		if err != nil {
			return fmt.Errorf("decode score %s: %w", data, err)
		}
		f, err := strconv.ParseFloat(unq, 64)
		if err != nil {
			return fmt.Errorf("decode score %s: %w", data, err)
		}
		*s = score(f)
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("decode score %s: %w", data, err)
	}
	*s = score(f)
	return nil
}
