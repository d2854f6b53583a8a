package ci

// RunURL is the link to this workflow run, or "" outside Actions.
func (c Context) RunURL() string { return c.runURL(c.RunID) }
