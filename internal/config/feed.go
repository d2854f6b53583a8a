package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxFeedBytes bounds a feed file: rows are held in memory, once.
const maxFeedBytes = 64 << 20

// readFeed reads the rows of f from the file at path, .csv (a header
// line, then rows) or .json (a list of objects of strings, numbers or
// booleans), and records the file's hash.
func readFeed(f *Feed, path string, c *collector) error {
	parse := map[string]func([]byte) ([]string, [][]string, error){".csv": feedCSV, ".json": feedJSON}[strings.ToLower(filepath.Ext(path))]
	if parse == nil {
		return fmt.Errorf("%s: expected a .csv file (a header line, then rows) or a .json file (a list of objects)", f.File)
	}
	data, err := c.readFile(path, maxFeedBytes)
	if err != nil {
		return err
	}
	if f.Columns, f.Rows, err = parse(data); err != nil {
		return fmt.Errorf("%s: %w", f.File, err)
	}
	if len(f.Rows) == 0 {
		return fmt.Errorf("%s has no rows", f.File)
	}
	sum := sha256.Sum256(data)
	f.Content = "sha256:" + hex.EncodeToString(sum[:])
	return nil
}

func feedCSV(data []byte) ([]string, [][]string, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, errors.New("the file is empty: expected a header line naming the columns, e.g. user,email")
	}
	if err != nil {
		return nil, nil, err
	}
	if err := checkColumns(header); err != nil {
		return nil, nil, fmt.Errorf("header line: %w", err)
	}
	var rows [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return header, rows, nil
		}
		if err != nil {
			return nil, nil, err // csv's errors name the line: "record on line 4: wrong number of fields"
		}
		rows = append(rows, rec)
	}
}

func feedJSON(data []byte) ([]string, [][]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var objects []map[string]any
	if err := dec.Decode(&objects); err != nil {
		return nil, nil, fmt.Errorf("expected a JSON list of objects such as [{\"user\": \"a\"}]: %v", err)
	}
	if len(objects) == 0 {
		return nil, nil, nil
	}
	columns := slices.Sorted(maps.Keys(objects[0]))
	if err := checkColumns(columns); err != nil {
		return nil, nil, fmt.Errorf("row 1: %w", err)
	}
	rows := make([][]string, len(objects))
	for i, obj := range objects {
		if got := slices.Sorted(maps.Keys(obj)); !slices.Equal(got, columns) {
			return nil, nil, fmt.Errorf("row %d has the keys %s, row 1 has %s: every row needs the same keys", i+1, strings.Join(got, ", "), strings.Join(columns, ", "))
		}
		row := make([]string, len(columns))
		for j, col := range columns {
			v, err := feedValue(obj[col])
			if err != nil {
				return nil, nil, fmt.Errorf("row %d, %q: %w", i+1, col, err)
			}
			row[j] = v
		}
		rows[i] = row
	}
	return columns, rows, nil
}

// feedValue is a JSON value as a template writes it: a string as it is, else JSON.
func feedValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", errors.New("expected a string, number or boolean, got null")
	case []any:
		return "", errors.New("expected a string, number or boolean, got a list")
	}
	return "", errors.New("expected a string, number or boolean, got an object")
}

func checkColumns(cols []string) error {
	if len(cols) == 0 {
		return errors.New("no columns")
	}
	seen := map[string]bool{}
	for i, c := range cols {
		switch {
		case strings.TrimSpace(c) == "":
			return fmt.Errorf("column %d has no name", i+1)
		case seen[c]:
			return fmt.Errorf("column %q is named twice", c)
		}
		seen[c] = true
	}
	return nil
}
