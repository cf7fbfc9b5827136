package scenes

import "strings"

// maxSuggestDistance is the largest edit distance at which an unknown name
// gets a "did you mean" suggestion.
const maxSuggestDistance = 2

// maxSuggestLength bounds the names compared for suggestions, which keeps
// the quadratic edit distance cheap whatever the file holds.
const maxSuggestLength = 64

// suggest returns the candidate closest to name, ignoring case, when it
// is at most maxSuggestDistance edits away (and closer than the name is
// long), else "". Ties go to the earlier candidate.
func suggest(name string, candidates []string) string {
	if name == "" || len(name) > maxSuggestLength {
		return ""
	}
	best, bestDist := "", maxSuggestDistance+1
	for _, c := range candidates {
		if c == name || len(c) > maxSuggestLength || abs(len(c)-len(name)) >= bestDist {
			continue
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestDist && d < len(name) {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean returns `; did you mean "x"?` for the closest candidate, or ""
// when none is close.
func didYouMean(name string, candidates []string) string {
	if s := suggest(name, candidates); s != "" {
		return "; did you mean " + quote(s) + "?"
	}
	return ""
}

// quoteList formats names as "a", "b", "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

// editDistance is the optimal string alignment distance between a and b
// (in bytes): insertions, deletions, substitutions and transpositions of
// adjacent characters each cost 1, so "colour"→"color" is 1 and
// "raduis"→"radius" is 1.
func editDistance(a, b string) int {
	// Three rows of the dynamic programming table: i-2, i-1 and i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
