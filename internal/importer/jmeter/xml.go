package jmeter

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
	"golang.org/x/text/encoding/charmap"
)

// XMLFormat reads a JTL file in XML form: <testResults> holding
// <httpSample> and <sample> elements, possibly nested.
type XMLFormat struct{}

func (XMLFormat) Name() string { return "jmeter-jtl-xml" }

// Sniff accepts XML whose root element is <testResults>.
func (XMLFormat) Sniff(_ string, head []byte) bool {
	dec := xml.NewDecoder(bytes.NewReader(head))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if el, ok := tok.(xml.StartElement); ok {
			return el.Name.Local == "testResults"
		}
	}
}

// xmlSample is one <httpSample> or <sample> element.
type xmlSample struct {
	XMLName    xml.Name
	Attrs      []xml.Attr     `xml:",any,attr"`
	Assertions []xmlAssertion `xml:"assertionResult"`
	HTTP       []xmlSample    `xml:"httpSample"`
	Generic    []xmlSample    `xml:"sample"`
}

type xmlAssertion struct {
	Failure bool   `xml:"failure"`
	Error   bool   `xml:"error"`
	Message string `xml:"failureMessage"`
}

func (s *xmlSample) attr(name string) (string, bool) {
	for _, a := range s.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

func (s *xmlSample) children() []xmlSample {
	return slices.Concat(s.HTTP, s.Generic)
}

func (XMLFormat) Import(name string, r io.Reader) (*result.Run, error) {
	dec := xml.NewDecoder(r)
	dec.CharsetReader = charsetReader
	p := &xmlParse{file: name, dec: dec, filter: newSampleFilter(nil)}
	if err := p.root(); err != nil {
		return nil, err
	}
	if err := p.samples(); err != nil {
		return nil, err
	}
	if p.filter.requests.count()+p.filter.transactions.count() == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "the file holds no samples"}
	}
	if p.times.zoneless() {
		p.notes = append(p.notes, "timestamps carry no time zone: read as UTC")
	}
	return p.filter.finish(p.notes), nil
}

type xmlParse struct {
	file   string
	dec    *xml.Decoder
	times  timeParser
	filter *sampleFilter
	notes  []string
}

func (p *xmlParse) line() int { l, _ := p.dec.InputPos(); return l }

func (p *xmlParse) syntax(line int, format string, args ...any) error {
	return &importer.SyntaxError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// root reads up to the <testResults> start tag.
func (p *xmlParse) root() error {
	for {
		before := p.line()
		tok, err := p.dec.Token()
		if err != nil {
			return p.syntax(p.line(), "expected JMeter's <testResults> root element: %v", err)
		}
		if text, ok := tok.(xml.CharData); ok {
			if t := bytes.TrimSpace(text); len(t) > 0 {
				lead := text[:bytes.Index(text, t)]
				return p.syntax(before+bytes.Count(lead, []byte{'\n'}),
					"expected JMeter's <testResults> root element, got text %q", importer.Clip(string(t), 40))
			}
		}
		if el, ok := tok.(xml.StartElement); ok {
			if el.Name.Local != "testResults" {
				return p.syntax(p.line(), "expected JMeter's <testResults> root element, got <%s>", el.Name.Local)
			}
			return nil
		}
	}
}

// samples reads the elements inside <testResults>. A file that ends before
// </testResults> was cut: the complete samples before the cut count.
func (p *xmlParse) samples() error {
	for {
		tok, err := p.dec.Token()
		if err != nil {
			return p.cutOrFail(err)
		}
		switch el := tok.(type) {
		case xml.EndElement:
			return nil // </testResults>
		case xml.StartElement:
			line := p.line()
			var s xmlSample
			if err := p.dec.DecodeElement(&s, &el); err != nil {
				return p.cutOrFail(err)
			}
			if el.Name.Local != "httpSample" && el.Name.Local != "sample" {
				continue
			}
			if err := p.add(&s, line); err != nil {
				return err
			}
		}
	}
}

func (p *xmlParse) cutOrFail(err error) error {
	var se *xml.SyntaxError
	syntax := errors.As(err, &se)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || syntax && strings.Contains(se.Msg, "unexpected EOF") {
		p.notes = append(p.notes, fmt.Sprintf("the file was cut at line %d (no closing </testResults>): the complete samples before it were imported", p.line()))
		return nil
	}
	if syntax {
		return p.syntax(se.Line, "malformed XML: %s", se.Msg)
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) { // an element's value that is not a number or boolean
		return p.syntax(p.line(), "%q is not a valid %s value", ne.Num, strings.TrimPrefix(ne.Func, "Parse"))
	}
	return fmt.Errorf("reading %s: %w", p.file, err)
}

// add applies the request rules: a transaction sample is excluded and its
// children are looked at; any other sample is one request, and the samples
// nested in it are its sub-samples.
func (p *xmlParse) add(s *xmlSample, line int) error {
	sm, err := p.sample(s)
	if err != nil {
		return p.syntax(line, "<%s>: %v", s.XMLName.Local, err)
	}
	if sm.isTransaction() {
		p.filter.transactions.add(sm)
		children := s.children()
		for i := range children {
			if err := p.add(&children[i], line); err != nil {
				return err
			}
		}
		return nil
	}
	p.filter.requests.add(sm)
	p.filter.folded += countNested(s)
	return nil
}

func countNested(s *xmlSample) int {
	children := s.children()
	n := len(children)
	for i := range children {
		n += countNested(&children[i])
	}
	return n
}

func (p *xmlParse) sample(s *xmlSample) (sample, error) {
	ts, ok := s.attr("ts")
	if !ok {
		return sample{}, fmt.Errorf(`missing the ts (timestamp) attribute`)
	}
	start, err := p.times.parse(ts)
	if err != nil {
		return sample{}, err
	}
	t, ok := s.attr("t")
	if !ok {
		return sample{}, fmt.Errorf(`missing the t (elapsed) attribute`)
	}
	elapsed, err := parseElapsed(t)
	if err != nil {
		return sample{}, fmt.Errorf("t=%w", err)
	}
	out := sample{start: start, elapsedMS: elapsed}
	out.label, _ = s.attr("lb")
	out.code, _ = s.attr("rc")
	out.message, _ = s.attr("rm")
	out.thread, _ = s.attr("tn")
	if v, ok := s.attr("s"); ok && !out.setSuccess(v) {
		return sample{}, fmt.Errorf("s=%q is not true or false", v)
	}
	if n, ok := s.attr("sc"); ok && n != "1" && n != "0" {
		return sample{}, fmt.Errorf("sc=%q: an element stands for several samples (statistical sample mode); tailgate needs one per sample", n)
	}
	for _, a := range s.Assertions {
		if (a.Failure || a.Error) && a.Message != "" {
			out.failure = a.Message
			break
		}
	}
	return out, nil
}

// charsetReader reads the encodings a JTL declares besides UTF-8: JMeter
// writes the platform's, which on older systems was ISO-8859-1.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1":
		return charmap.ISO8859_1.NewDecoder().Reader(in), nil
	case "us-ascii", "ascii", "utf8":
		return in, nil
	}
	return nil, fmt.Errorf("encoding %q is not read; save the JTL as UTF-8", label)
}
