package config

import (
	"strings"
	"testing"
)

func TestFootprintBadInputs(t *testing.T) {
	t.Parallel()
	rest := lines(l("load: {rate: 1}"), scenarioOK)
	target := func(extra ...string) string { return lines(targetOK, extra) + rest }
	for _, tc := range []badCase{
		{"part with two selectors", target("  measure:", "    - {name: db, pid_file: /run/pg.pid, cgroup: /sys/fs/cgroup/pg}"),
			4, 7, "target.measure[0]", "give exactly one of pid_file"},
		{"part without a selector", target("  measure:", "    - name: db"),
			4, 7, "target.measure[0]", "give exactly one of pid_file"},
		{"part name not a key", target("  measure:", "    - {name: Data Base, pid_file: /run/pg.pid}"),
			4, 14, "target.measure[0].name", `"Data Base" is not a part name`},
		{"part named target", target("  measure:", "    - {name: target, pid_file: /run/pg.pid}"),
			4, 14, "target.measure[0].name", "the target's own name"},
		{"part twice", target("  measure:", "    - {name: db, pid_file: /a}", "    - {name: db, pid_file: /b}"),
			5, 14, "target.measure[1].name", `part "db" is listed twice`},
		{"comm too long", target("  measure:", "    - {name: db, process: {comm: postgres-backend-x}}"),
			4, 34, "target.measure[0].process.comm", "longer than the 15 characters"},
		{"bad cmdline regexp", target("  measure:", "    - {name: db, process: {cmdline: 'postgres: ('}}"),
			4, 37, "target.measure[0].process.cmdline", "not a regular expression"},
		{"relative cgroup", target("  measure:", "    - {name: db, cgroup: system.slice/pg.service}"),
			4, 26, "target.measure[0].cgroup", "absolute directory"},
		{"source with both kinds", target("  counters:", "    - {name: pg, command: psql, prometheus: {path: /metrics, metrics: [a]}}"),
			4, 7, "target.counters[0]", "give exactly one of prometheus"},
		{"prometheus without metrics", target("  counters:", "    - {name: app, prometheus: {path: /metrics}}"),
			4, 19, "target.counters[0].prometheus.metrics", "required: the counters to read"},
		{"prometheus url not loopback", target("  counters:", "    - {name: app, prometheus: {url: 'http://10.0.0.7:9187/metrics', metrics: [a]}}"),
			4, 37, "target.counters[0].prometheus.url", "is not this machine"},
		{"gated counter not read", target("  counters:", "    - {name: app, prometheus: {path: /metrics, metrics: [a_total]}, gate: [b_total]}"),
			4, 76, "target.counters[0].gate[0]", `"b_total" is not one of prometheus.metrics (a_total)`},
		{"pg_stat_statements database that reaches the shell", target("  counters:", "    - {name: pg, pg_stat_statements: {database: 'app; rm -rf /'}}"),
			4, 49, "target.counters[0].pg_stat_statements.database", `"app; rm -rf /" is not a database name`},
		{"pg_stat_statements without a database", target("  counters:", "    - {name: pg, pg_stat_statements: {connect: 'port=5433'}}"),
			4, 18, "target.counters[0].pg_stat_statements.database", "required: the database whose statements count"},
		{"pg_stat_statements gate not one of its counters", target("  counters:", "    - {name: pg, pg_stat_statements: {database: app}, gate: [calls, queries]}"),
			4, 69, "target.counters[0].gate[1]", `"queries" is not a pg_stat_statements counter (calls, rows, blocks, blocks_read, sessions)`},
		{"measure beside a remote target", lines(l("target:", "  url: https://api.example.com", "  remote: true", "  measure: [{name: db, pid_file: /a}]")) + rest,
			4, 3, "target.measure", "on another machine"},
		{"gated part not measured", target("  measure: [{name: db, pid_file: /a}]") + "gate: {metrics: [part.pg.cpu_ms_per_iteration]}\n",
			8, 18, "gate.metrics[0]", `"part.pg.cpu_ms_per_iteration" names no part of target.measure (db, target)`},
		{"floor of an unknown counter", target() + "gate: {floors: {counter.pg.calls: 5}}\n",
			7, 17, "gate.floors.counter.pg.calls", `names no counter source`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := problemsOf(t, tc.src)
			if len(ps) != 1 {
				t.Fatalf("want exactly 1 problem, got %d:\n%v\nin:\n%s", len(ps), &Error{ps}, tc.src)
			}
			p := ps[0]
			if p.File != "bad.yml" || p.Line != tc.line || p.Col != tc.col || p.Key != tc.key || !strings.Contains(p.Msg, tc.msg) {
				t.Errorf("got  %s\nwant bad.yml:%d:%d: %s: …%s…\nin:\n%s", p, tc.line, tc.col, tc.key, tc.msg, tc.src)
			}
		})
	}
}

// Path CPU is gated by default once a part is listed; gate.metrics, when
// given, is the whole list.
func TestFootprintGatedByDefault(t *testing.T) {
	t.Parallel()
	src := lines(targetOK, l("  measure: [{name: db, process: {cmdline: '^postgres: '}}]",
		"  counters: [{name: pg, command: ./counters.sh, gate: [calls]}]", "load: {rate: 1}"), scenarioOK)
	cfg, err := Parse("ok.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.GatedMetrics([]string{"cpu_ms_per_iteration"}), " ")
	if !strings.HasSuffix(got, "cpu_ms_per_iteration path_cpu_ms_per_iteration counter.pg.calls") {
		t.Errorf("gate.metrics %q", got)
	}
	if re := cfg.Target.Measure[0].Process.CmdlineRE; re == nil || !re.MatchString("postgres: app app 127.0.0.1(5) idle") {
		t.Errorf("cmdline regexp %v", re)
	}
	pg := lines(targetOK, l("  counters: [{name: pg, pg_stat_statements: {database: 'app_${TAILGATE_SIDE:-run}'}, gate: [calls, blocks]}]", "load: {rate: 1}"), scenarioOK)
	if cfg, err := Parse("ok.yml", []byte(pg)); err != nil || cfg.Target.Counters[0].PGStatStatements.Database != "app_${TAILGATE_SIDE:-run}" {
		t.Errorf("a pg_stat_statements source for the side's database: %v", err)
	}
	cfg, err = Parse("ok.yml", []byte(src+"gate: {metrics: [latency_p95_ms, counter.pg.rows]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.GatedMetrics(nil), " "); got != "latency_p95_ms counter.pg.rows" {
		t.Errorf("given gate.metrics became %q", got)
	}
}
