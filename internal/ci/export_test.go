package ci

// RunURL is the link to this workflow run, or "" outside Actions.
func (c Context) RunURL() string { return c.runURL(c.RunID) }

// The action's outputs, as declared in action.yml.
const (
	OutputVerdict     = "verdict"
	OutputRegressions = "regressions"
	OutputReportPath  = "report_path"
	OutputHTMLPath    = "html_path"
	OutputTargetLog   = "target_log"
)
