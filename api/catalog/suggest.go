package catalog

import (
	"strings"

	"clapper/api"
)

// Suggest returns the field of the operation nearest to an unknown name, or
// "" when none is near enough to be what was meant: a name that differs only
// in case or in - for _, or by one edit per four characters (a typo such as
// "bmg" for "bgm", "duraton" for "duration").
func Suggest(op api.Operation, name string) string {
	key := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	limit := max(1, len([]rune(key))/4)
	best, bestDist := "", limit+1
	for _, f := range FieldNames(op) {
		if d := editDistance(key, f); d < bestDist {
			best, bestDist = f, d
		}
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and swaps of
// two neighbours that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
