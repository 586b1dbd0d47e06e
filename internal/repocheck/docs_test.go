package repocheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines bounds README.md: the front door, with the user guide in
// docs/.
const maxReadmeLines = 250

// docFiles returns README.md and docs/*.md, relative to root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, rel)
	}
	return files
}

func TestReadmeLength(t *testing.T) {
	root := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := countLines(string(b)); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move the user guide's details to docs/ and link them", n, maxReadmeLines)
	}
}

func TestRelativeLinks(t *testing.T) {
	root := moduleRoot(t)
	files := docFiles(t, root)
	if len(files) < 2 {
		t.Fatalf("found no docs/*.md beside README.md under %s", root)
	}
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(string(b)) {
			if err := checkLink(root, rel, l); err != nil {
				t.Errorf("%s:%d: %v", rel, l.line, err)
			}
		}
	}
}

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// link is a link target of a Markdown file and the line it is on.
type link struct {
	target string
	line   int
}

var (
	// inlineLink matches [text](target) and ![alt](target), with an
	// optional title after the target.
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink matches a reference definition: [label]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	// codeSpan matches inline code, whose text is no link.
	codeSpan = regexp.MustCompile("`[^`]*`")
	// scheme matches an absolute URL (https:, mailto:, ...).
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// proseLine is a line of a Markdown text outside fenced code blocks, with
// its number (from 1).
type proseLine struct {
	text string
	n    int
}

// prose returns the lines of a Markdown text outside fenced code blocks.
func prose(text string) []proseLine {
	var out []proseLine
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		default:
			out = append(out, proseLine{line, i + 1})
		}
	}
	return out
}

// links returns the link targets of a Markdown text outside fenced code
// blocks and code spans.
func links(text string) []link {
	var out []link
	for _, pl := range prose(text) {
		line := codeSpan.ReplaceAllString(pl.text, "")
		if m := refLink.FindStringSubmatch(line); m != nil {
			out = append(out, link{m[1], pl.n})
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{m[1], pl.n})
		}
	}
	return out
}

// checkLink reports whether the link l of the Markdown file rel (relative
// to root) points to an existing file and, for a fragment into a Markdown
// file, to one of its headings. Absolute URLs are not checked.
func checkLink(root, rel string, l link) error {
	target := l.target
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return nil
	}
	path, fragment, _ := strings.Cut(target, "#")
	file := filepath.Join(root, rel)
	if path != "" {
		if filepath.IsAbs(path) {
			return fmt.Errorf("link %q: absolute path; link relative to %s", target, filepath.Dir(rel))
		}
		file = filepath.Join(root, filepath.Dir(rel), filepath.FromSlash(path))
		info, err := os.Stat(file)
		if err != nil {
			return fmt.Errorf("link %q: %s does not exist", target, filepath.Join(filepath.Dir(rel), path))
		}
		if info.IsDir() {
			return nil
		}
	}
	if fragment == "" || !strings.HasSuffix(file, ".md") {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("link %q: %v", target, err)
	}
	if !anchors(string(b))[fragment] {
		return fmt.Errorf("link %q: no heading of %s has the anchor #%s", target, filepath.Base(file), fragment)
	}
	return nil
}

// anchors returns the anchors GitHub gives the headings of a Markdown text:
// the heading's text in lower case, without punctuation, spaces turned
// into hyphens, a duplicate suffixed -1, -2, ...
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, pl := range prose(text) {
		heading, ok := strings.CutPrefix(strings.TrimLeft(pl.text, "#"), " ")
		if !ok || !strings.HasPrefix(pl.text, "#") {
			continue
		}
		a := slug(heading)
		if k := seen[a]; k > 0 {
			out[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// slug is GitHub's anchor of a heading's text.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestChecker checks the checker on small documents, so that the tests
// above can fail.
func TestChecker(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"README.md":       "# Title\n",
		"docs/guide.md":   "# Guide\n\n## Data: where it is\n\n## Data: where it is\n",
		"docs/sub/x.txt":  "x\n",
		"notebooks/a.txt": "a\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		from, target string
		ok           bool
	}{
		{"README.md", "docs/guide.md", true},
		{"README.md", "docs/missing.md", false},
		{"README.md", "docs/guide.md#data-where-it-is", true},
		{"README.md", "docs/guide.md#data-where-it-is-1", true},
		{"README.md", "docs/guide.md#data-where-it-is-2", false},
		{"README.md", "docs/guide.md#nowhere", false},
		{"README.md", "#title", true},
		{"README.md", "#other", false},
		{"README.md", "notebooks/", true},
		{"README.md", "/etc/passwd", false},
		{"docs/guide.md", "../README.md", true},
		{"docs/guide.md", "README.md", false},
		{"docs/guide.md", "sub/x.txt", true},
		{"docs/guide.md", "../notebooks/a.txt#anything", true},
		{"docs/guide.md", "https://example.com/missing", true},
		{"docs/guide.md", "mailto:someone@example.com", true},
	}
	for _, tt := range tests {
		err := checkLink(root, tt.from, link{tt.target, 1})
		if (err == nil) != tt.ok {
			t.Errorf("checkLink(%s -> %s) = %v, want ok %v", tt.from, tt.target, err, tt.ok)
		}
	}
}

func TestLinks(t *testing.T) {
	text := "See [a](a.md) and ![img](img/x.png \"title\"), `[not](code.md)`.\n" +
		"```sh\n[neither](fenced.md)\n```\n" +
		"[ref]: docs/ref.md\n" +
		"Two [b](b.md#x) on a line.\n"
	var got []string
	for _, l := range links(text) {
		got = append(got, fmt.Sprintf("%d:%s", l.line, l.target))
	}
	want := []string{"1:a.md", "1:img/x.png", "5:docs/ref.md", "6:b.md#x"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("links = %v, want %v", got, want)
	}
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		" Every core: executions":                       "every-core-executions",
		" Multi-plane BCFW: the time and the cost rule": "multi-plane-bcfw-the-time-and-the-cost-rule",
		" The horses' graph-cut oracle":                 "the-horses-graph-cut-oracle",
		" Word alignment (Fig. 1f and 5)":               "word-alignment-fig-1f-and-5",
		" lambda and C":                                 "lambda-and-c",
		" svmlight / libsvm, `CSV`":                     "svmlight--libsvm-csv",
	}
	for in, want := range tests {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCountLines(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\nb\n": 2, "\n\n": 2} {
		if got := countLines(in); got != want {
			t.Errorf("countLines(%q) = %d, want %d", in, got, want)
		}
	}
}
