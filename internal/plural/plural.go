// Package plural owns how a count reads in English, for every package
// that says one ("1 block", "3 blocks").
package plural

import "strconv"

// Of is one when n is 1, else many.
func Of(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by Of(n, one, many): "1 job", "12 jobs".
func Count(n int, one, many string) string { return strconv.Itoa(n) + " " + Of(n, one, many) }
