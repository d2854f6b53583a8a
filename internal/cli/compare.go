package cli

import (
	"context"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

func cmdCompare(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("compare", "compare [flags] BASE... -- HEAD...", e.stderr)
	cfgPath := fs.String("c", "", "take the gate settings (metrics, floors, alpha) from this benchmark `file`")
	format := fs.String("format", "", "read every foreign file as this `format` instead of detecting it")
	var rf reportFlags
	rf.register(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	baseFiles, headFiles, err := splitSides(files)
	if err != nil {
		return err
	}
	base, err := pipeline.ReadRunSet(baseFiles, *format)
	if err != nil {
		return err
	}
	head, err := pipeline.ReadRunSet(headFiles, *format)
	if err != nil {
		return err
	}
	var cfg *config.Config
	if *cfgPath != "" {
		if cfg, err = config.LoadFile(*cfgPath); err != nil {
			return pipeline.Usage.Wrap(err)
		}
	}
	j := pipeline.Compare(pipeline.CompareOptions{Base: base, Head: head, BaseFiles: len(baseFiles), Config: cfg})
	return conclude(ctx, j, rf.failOn(false), rf.publishers(e)...)
}

func splitSides(args []string) (base, head []string, err error) {
	i := slices.Index(args, "--")
	if i < 0 {
		return nil, nil, usageErr("compare needs BASE... -- HEAD... (the -- separates the two sets)")
	}
	base, head = args[:i], args[i+1:]
	if len(base) == 0 || len(head) == 0 {
		return nil, nil, usageErr("compare needs at least one file on each side of --")
	}
	return base, head, nil
}
