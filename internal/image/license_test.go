package image

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLicenseEverywhere: the repository has the Apache-2.0 LICENSE in full,
// and the image built by make image and by the Dockerfile both label it so
// (issue 20: no LICENSE, and the label said NOASSERTION).
func TestLicenseEverywhere(t *testing.T) {
	root := filepath.Join("..", "..")
	text, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatalf("read the repository's LICENSE: %v", err)
	}
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
		"9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS", "APPENDIX: How to apply the Apache License to your work."} {
		if !strings.Contains(string(text), want) {
			t.Errorf("LICENSE lacks %q: not the full Apache-2.0 text", want)
		}
	}
	if License != "Apache-2.0" {
		t.Errorf("License = %q, want Apache-2.0", License)
	}
	if got := Config(Spec{}).Labels["org.opencontainers.image.licenses"]; got != License {
		t.Errorf("image label licenses = %q by default, want %q", got, License)
	}
	docker, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatalf("read the Dockerfile: %v", err)
	}
	m := regexp.MustCompile(`org\.opencontainers\.image\.licenses="([^"]*)"`).FindSubmatch(docker)
	if m == nil || string(m[1]) != License {
		t.Errorf("Dockerfile labels licenses %q, want %q", m, License)
	}
}
