package filter

// charset is the alphabet of a credential's body.
type charset uint8

const (
	csAlnum     charset = iota // A-Z a-z 0-9
	csAlnumDash                // plus - and _
	csAlnumUnd                 // plus _
	csUpperNum                 // A-Z 0-9
	csHex                      // 0-9 a-f
	csToken                    // plus - _ . = (dotted and padded tokens)
)

func (cs charset) has(c byte) bool {
	alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	switch cs {
	case csAlnum:
		return alnum
	case csAlnumDash:
		return alnum || c == '-' || c == '_'
	case csAlnumUnd:
		return alnum || c == '_'
	case csUpperNum:
		return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	case csHex:
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
	case csToken:
		return alnum || c == '-' || c == '_' || c == '.' || c == '='
	}
	return false
}

// provider is a credential format with a known prefix (gitleaks and
// GitHub secret scanning document most of them).
type provider struct {
	prefix string
	min    int  // shortest body after the prefix
	exact  bool // the body is exactly min characters
	cs     charset
	name   string
}

// providers are tried in order, so a longer prefix comes before a shorter
// one it starts with ("sk-ant-" before "sk-").
var providers = []provider{
	{"sk-ant-", 20, false, csAlnumDash, "anthropic api key"},
	{"sk-proj-", 20, false, csAlnumDash, "openai api key"},
	{"sk-svcacct-", 20, false, csAlnumDash, "openai api key"},
	{"sk-admin-", 20, false, csAlnumDash, "openai api key"},
	{"sk-or-v1-", 32, false, csAlnum, "openrouter api key"},
	{"sk-", 20, false, csAlnumDash, "openai api key"},
	{"sk_live_", 16, false, csAlnum, "stripe secret key"},
	{"sk_test_", 16, false, csAlnum, "stripe secret key"},
	{"rk_live_", 16, false, csAlnum, "stripe restricted key"},
	{"rk_test_", 16, false, csAlnum, "stripe restricted key"},
	{"whsec_", 24, false, csAlnum, "webhook signing secret"},
	{"ghp_", 30, false, csAlnum, "github token"},
	{"gho_", 30, false, csAlnum, "github token"},
	{"ghu_", 30, false, csAlnum, "github token"},
	{"ghs_", 30, false, csAlnum, "github token"},
	{"ghr_", 30, false, csAlnum, "github token"},
	{"github_pat_", 22, false, csAlnumUnd, "github token"},
	{"glpat-", 20, false, csAlnumDash, "gitlab token"},
	{"gldt-", 20, false, csAlnumDash, "gitlab token"},
	{"glptt-", 20, false, csAlnumDash, "gitlab token"},
	{"glrt-", 20, false, csAlnumDash, "gitlab token"},
	{"xoxb-", 10, false, csAlnumDash, "slack token"},
	{"xoxp-", 10, false, csAlnumDash, "slack token"},
	{"xoxa-", 10, false, csAlnumDash, "slack token"},
	{"xoxr-", 10, false, csAlnumDash, "slack token"},
	{"xoxs-", 10, false, csAlnumDash, "slack token"},
	{"xoxe-", 10, false, csAlnumDash, "slack token"},
	{"xapp-", 10, false, csAlnumDash, "slack token"},
	{"AIza", 30, false, csAlnumDash, "google api key"},
	{"ya29.", 20, false, csToken, "google oauth token"},
	{"GOCSPX-", 20, false, csAlnumDash, "google oauth client secret"},
	{"npm_", 30, false, csAlnum, "npm token"},
	{"pypi-", 50, false, csAlnumDash, "pypi token"},
	{"hf_", 30, false, csAlnum, "hugging face token"},
	{"dop_v1_", 40, false, csHex, "digitalocean token"},
	{"doo_v1_", 40, false, csHex, "digitalocean token"},
	{"dor_v1_", 40, false, csHex, "digitalocean token"},
	{"shpat_", 32, false, csHex, "shopify token"},
	{"shpss_", 32, false, csHex, "shopify token"},
	{"shpca_", 32, false, csHex, "shopify token"},
	{"shppa_", 32, false, csHex, "shopify token"},
	{"xai-", 40, false, csAlnum, "xai api key"},
	{"gsk_", 40, false, csAlnum, "groq api key"},
	{"r8_", 30, false, csAlnum, "replicate token"},
	{"lin_api_", 30, false, csAlnum, "linear api key"},
	{"glsa_", 30, false, csAlnumUnd, "grafana token"},
	{"pplx-", 40, false, csAlnum, "perplexity api key"},
	{"nvapi-", 40, false, csAlnumDash, "nvidia api key"},
	{"ATATT", 40, false, csToken, "atlassian api token"},
	{"AGE-SECRET-KEY-1", 40, false, csUpperNum, "age secret key"},
	{"dapi", 32, true, csHex, "databricks token"},
	{"sq0atp-", 20, false, csAlnumDash, "square token"},
	{"sq0csp-", 30, false, csAlnumDash, "square token"},
	{"EAACEdEose0cBA", 20, false, csAlnum, "facebook token"},
	{"SG.", 60, false, csToken, "sendgrid api key"},
	{"key-", 32, true, csHex, "mailgun api key"},
	{"SK", 32, true, csHex, "twilio api key"},
	{"AKIA", 16, true, csUpperNum, "aws access key id"},
	{"ASIA", 16, true, csUpperNum, "aws access key id"},
	{"ABIA", 16, true, csUpperNum, "aws access key id"},
	{"ACCA", 16, true, csUpperNum, "aws access key id"},
	{"AGPA", 16, true, csUpperNum, "aws access key id"},
	{"AIDA", 16, true, csUpperNum, "aws access key id"},
	{"AROA", 16, true, csUpperNum, "aws access key id"},
	{"AIPA", 16, true, csUpperNum, "aws access key id"},
	{"ANPA", 16, true, csUpperNum, "aws access key id"},
	{"ANVA", 16, true, csUpperNum, "aws access key id"},
	{"APKA", 16, true, csUpperNum, "aws access key id"},
}

// providersByFirst lists, for each first byte, the providers whose prefix
// starts with it (indexes into providers, in order).
var providersByFirst = func() (t [256][]int) {
	for i, pv := range providers {
		t[pv.prefix[0]] = append(t[pv.prefix[0]], i)
	}
	return t
}()

// providerMatch names the provider whose format p has, or "".
func providerMatch(p string) string {
	if p == "" {
		return ""
	}
	for _, i := range providersByFirst[p[0]] {
		pv := &providers[i]
		if len(p) < len(pv.prefix)+pv.min || p[:len(pv.prefix)] != pv.prefix {
			continue
		}
		body := p[len(pv.prefix):]
		n := 0
		for n < len(body) && pv.cs.has(body[n]) {
			n++
		}
		if n < pv.min || pv.exact && n != pv.min {
			continue
		}
		// Words joined by dashes are slugs, not keys ("sk-learn-tutorial-notes").
		if pv.cs != csHex && pv.cs != csUpperNum && !mixedBody(body[:n]) {
			continue
		}
		return pv.name
	}
	return ""
}

// mixedBody: a key body mixes digits with letters, or cases, as random
// text does; a slug of lowercase words does not.
func mixedBody(b string) bool {
	digit, lower, upper := false, false, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		}
	}
	return digit && (lower || upper) || lower && upper && len(b) >= 30
}
