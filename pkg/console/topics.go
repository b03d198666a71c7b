package console

import (
	"net/http"

	"github.com/recollect-dev/recollect/pkg/api"
)

// topicMemories is how many memories a drilled-down topic shows.
const topicMemories = 50

type topicsData struct {
	Tree     api.TopicsResponse
	Selected string
	Detail   *api.TopicDetail
}

// topicsPage: the tenant's topic tree; ?topic= drills into one topic's
// memories.
func (c *Console) topicsPage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	req := api.TopicsRequest{Tenant: tenant}
	sel := r.URL.Query().Get("topic")
	if sel != "" {
		req.IDs, req.Limit = []string{sel}, topicMemories
	}
	resp, err := c.api(s).Topics(r.Context(), req)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := topicsData{Tree: resp, Selected: sel}
	if det, ok := resp.Details[sel]; ok {
		d.Detail = &det
	}
	c.pages.render(w, "topics.html", c.view(r, s, "Topics · "+tenant, "topics", d))
}
