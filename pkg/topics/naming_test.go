package topics

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var (
	dockerTexts = []string{
		"Deploy the api with docker compose on the staging host",
		"docker compose deployment reads secrets from an env file",
		"Run docker compose up -d after pulling the new images",
		"The deployment pipeline builds docker images and runs compose",
		"docker compose deployment needs the traefik network created first",
		"Check docker compose logs to debug a failed deployment",
		"Restart the stack with docker compose restart after config changes",
		"Production deployment runs docker compose with the prod override file",
	}
	pytestTexts = []string{
		"Run the python tests with pytest -q before pushing",
		"pytest fixtures live in conftest.py for the python testing suite",
		"Write pytest parametrize cases for table-driven python testing",
		"python testing: mark slow tests with pytest.mark.slow",
		"pytest coverage must stay above 80 percent for python code",
		"Testing async python code needs pytest-asyncio",
		"CI runs pytest on python 3.12 and 3.13",
		"Plain assert statements in pytest tests are the house style",
	}
)

// textGroups makes one group of vectors per text list, each memory carrying
// its text.
func textGroups(rng *rand.Rand, dim int, groups ...[]string) []Item {
	var items []Item
	for g, texts := range groups {
		centre := randUnit(rng, dim)
		for k, text := range texts {
			items = append(items, Item{ID: string(rune('a'+g)) + string(rune('a'+k)), Vector: around(rng, centre, 0.3), Text: text})
		}
	}
	return items
}

var (
	billingTexts = []string{
		"docker compose stack for the billing api", "docker compose file pins the billing image",
		"docker compose billing service restarts nightly", "docker compose healthcheck for billing",
	}
	searchTexts = []string{
		"docker compose stack for the search api", "docker compose file pins the search image",
		"docker compose search service restarts nightly", "docker compose healthcheck for search",
	}
)

func TestNamesPickDistinctiveWords(t *testing.T) {
	dockerWords := []string{"docker", "compose", "deployment"}
	pytestWords := []string{"pytest", "python", "testing", "test"}
	tests := []struct {
		name   string
		groups [][]string
	}{
		{"two topics", [][]string{dockerTexts, pytestTexts}},
		// compose is everywhere here, so it weighs less in the docker topic
		{"among related topics", [][]string{dockerTexts, pytestTexts, billingTexts, searchTexts}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, uint64(i)))
			items := textGroups(rng, 64, tc.groups...)
			tree := Build("acme", items, DefaultOptions(), built)
			if len(tree.Roots) != len(tc.groups) {
				t.Fatalf("%d roots, want %d:\n%s", len(tree.Roots), len(tc.groups), dump(tree))
			}
			for _, r := range tree.Roots {
				var want, foreign []string
				switch r.MemoryIDs[0][0] {
				case 'a':
					want, foreign = dockerWords, pytestWords
				case 'b':
					want, foreign = pytestWords, dockerWords
				default:
					continue
				}
				words := strings.Fields(r.Name)
				if len(words) < 2 || len(words) > 4 {
					t.Fatalf("name %q has %d words, want 2..4", r.Name, len(words))
				}
				hits := 0
				for _, w := range words {
					if slices.Contains(want, w) {
						hits++
					}
					if slices.Contains(foreign, w) || stopwords[w] {
						t.Fatalf("name %q carries %q", r.Name, w)
					}
				}
				if hits < 2 {
					t.Fatalf("name %q has %d of the distinctive words %v, want at least 2", r.Name, hits, want)
				}
				if want[0] == "docker" && !strings.Contains(r.Name, "docker compose") {
					t.Fatalf("name %q: want the words in text order (docker compose)", r.Name)
				}
			}
			again := Build("acme", shuffled(rng, items), DefaultOptions(), built)
			for i := range tree.Roots {
				if again.Roots[i].Name != tree.Roots[i].Name {
					t.Fatalf("name changed with input order: %q vs %q", again.Roots[i].Name, tree.Roots[i].Name)
				}
			}
		})
	}
}

func TestNamesAreToldApart(t *testing.T) {
	// two separate clusters about nearly the same thing get different names
	rng := rand.New(rand.NewPCG(22, 22))
	tree := Build("acme", textGroups(rng, 64, billingTexts, searchTexts), DefaultOptions(), built)
	if len(tree.Roots) != 2 {
		t.Fatalf("%d roots, want 2:\n%s", len(tree.Roots), dump(tree))
	}
	if tree.Roots[0].Name == tree.Roots[1].Name {
		t.Fatalf("both topics are named %q", tree.Roots[0].Name)
	}
	for _, r := range tree.Roots {
		want := "billing"
		if r.MemoryIDs[0][0] == 'b' {
			want = "search"
		}
		if !strings.Contains(r.Name, want) {
			t.Fatalf("name %q lacks %q, the word that sets the topic apart", r.Name, want)
		}
	}
}

func TestNameWithoutWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	items := textGroups(rng, 32, []string{"", "the and of", "12 345", "!!"})
	tree := Build("acme", items, DefaultOptions(), built)
	if len(tree.Roots) != 1 || tree.Roots[0].Name != untitled {
		t.Fatalf("roots %+v, want one %q topic", tree.Roots, untitled)
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"The user prefers Docker-Compose for deployments!", []string{"docker", "compose", "deployments"}},
		{"Run pytest 3 times on Python 3.12", []string{"run", "pytest", "times", "python"}},
		{"a I x 42 k8s", []string{"k8s"}},
		{"Ünïcode wörds stay", []string{"ünïcode", "wörds", "stay"}},
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			if got := words(tc.text); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("words(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestSingular(t *testing.T) {
	seen := map[string]bool{"container": true, "dependency": true, "class": true, "box": true}
	tests := map[string]string{
		"containers":   "container",
		"dependencies": "dependency",
		"classes":      "class",
		"boxes":        "box",
		"class":        "class",
		"kubernetes":   "kubernetes", // no "kubernete"
		"bus":          "bus",
	}
	for in, want := range tests {
		if got := singular(in, seen); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}
