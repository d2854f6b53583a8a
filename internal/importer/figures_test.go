package importer_test

import (
	"encoding/gob"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// figure is one number a shared fixture states about one of its runs,
// read from the file by other means than the importers (a script over the
// raw text: the count on the tool's own summary line, the rows of a raw
// file, the largest elapsed time of a JTL's requests): "requests" is the
// run's request count, any other key a metric (to histogram precision).
type figure struct {
	file  string
	run   int
	key   string
	value float64
}

// ownFigures has at least one figure for every shared fixture that
// imports. Locust files are read with their siblings, so each states the
// set's Aggregated count; a JTL's maximum leaves out transaction samples.
// The JTLs that JMeter appended to across runs (QAInsights, cbweixin,
// karthiklingasamy) state each run's figures over the rows between the
// pauses in their timestamps.
var ownFigures = []figure{
	{"ChocolaterToba__WebBasics__ab_results.txt", 0, "requests", 1000},
	{"ChocolaterToba__WebBasics__ab_results.txt", 1, "requests", 1000},
	{"ChocolaterToba__WebBasics__ab_results.txt", 2, "requests", 1000},
	{"ChocolaterToba__WebBasics__ab_results.txt", 3, "requests", 1000},
	{"ChocolaterToba__WebBasics__ab_results.txt", 4, "requests", 1000},
	{"DeanRTaylor1__oxide__ab_results.txt", 0, "requests", 1000},
	{"Zadneprovski__HttpServer__ab.log", 0, "requests", 1000},
	{"ArtieFuzzz__pkm__artillery_report.json", 0, "requests", 6000},
	{"JailtonJunior94__identity__artillery-report.json", 0, "requests", 3884},
	{"ltphuoc__media-scraper__artillery-report.json", 0, "requests", 6000},
	{"ltphuoc__media-scraper__artillery-report.json", 0, "lifecycle_success_pct", 100},
	{"ArtieFuzzz__pkm__artillery_report.json", 0, "lifecycle_success_pct", 100},
	{"AbhijeetJawale01__Performance_Report__simulation.log", 0, "requests", 245},
	{"Francisco9403__GatlingPerformanceFramework__simulation.log", 0, "requests", 60},
	{"PracticaDS__pdes-tp-load-testing-anonymous__simulation.log", 0, "requests", 1877},
	{"dethu__gatling-report-example__simulation.log", 0, "requests", 3},
	{"famartinrh__apicurio-perf-results__simulation.log", 0, "requests", 1772},
	{"kztka__karate-gatling-performance-report__simulation.log", 0, "requests", 41},
	{"mattcorbyeaglen__burst-simulation-13-06-18__simulation.log", 0, "requests", 1817},
	{"AbhijeetJawale01__Performance_Report__global_stats.json", 0, "requests", 245},
	{"AbhijeetJawale01__Performance_Report__stats.json", 0, "requests", 245},
	{"Francisco9403__GatlingPerformanceFramework__global_stats.json", 0, "requests", 60},
	{"Francisco9403__GatlingPerformanceFramework__stats.json", 0, "requests", 60},
	{"dethu__gatling-report-example__global_stats.json", 0, "requests", 3},
	{"dethu__gatling-report-example__stats.json", 0, "requests", 3},
	{"famartinrh__apicurio-perf-results__global_stats.json", 0, "requests", 5494},
	{"famartinrh__apicurio-perf-results__stats.json", 0, "requests", 5494},
	{"kztka__karate-gatling-performance-report__stats.json", 0, "requests", 41},
	{"mattcorbyeaglen__burst-simulation-13-06-18__global_stats.json", 0, "requests", 11364},
	{"mattcorbyeaglen__burst-simulation-13-06-18__stats.json", 0, "requests", 11364},
	{"natanielpaiva__cenario1-rinha-report__global_stats.json", 0, "requests", 36746},
	{"natanielpaiva__cenario1-rinha-report__stats.json", 0, "requests", 36746},
	{"hnakamur__ats-nginx-bad-request__hey.log", 0, "requests", 256},
	{"Caporiccii__Creditas-CodeChallenge__statistics.json", 0, "requests", 10000},
	{"Fardin957__Load-Test-Using-Jmeter-Money-Transfer-Api-__statistics.json", 0, "requests", 1700},
	{"SunjidaShathi__Daraz-Load-Testing__statistics.json", 0, "requests", 20},
	{"ckq1019__System-performance-testing-utilizing-JMeter__statistics.json", 0, "requests", 250},
	{"ehrbase__performance-test__statistics.json", 0, "requests", 23505},
	{"hebroms__testesCarga__statistics.json", 0, "requests", 300},
	{"musicGDS__jmeterResult__statistics.json", 0, "requests", 13000},
	{"SHAZZAD-BS1572__performance_testing_k6__test.csv", 0, "requests", 154},
	{"gabrielstar__performance_trends__k6.csv", 0, "requests", 10},
	{"KirillY__k6-load-template__k6-results.json", 0, "requests", 61},
	{"SHAZZAD-BS1572__performance_testing_k6__test.json", 0, "requests", 72},
	{"Tayyiba-I__Grafana_k6__results.json", 0, "requests", 70},
	{"itzaddddd__ticket-reserve__output.json", 0, "requests", 75},
	{"r00tsh__golang-api-test__k6_results.json", 0, "requests", 90},
	{"rodolfodpk__desafio-votacao__k6-results.json", 0, "requests", 84},
	{"ruveyharuzgar__search-engine-service__k6-results.json", 0, "requests", 67},
	{"MaribelDS__k6Rendimiento__summary.json", 0, "latency_p95_ms", 434.1742},
	{"Md-Nur-Amin__ParaBank_k6__summary.json", 0, "latency_p95_ms", 343.92808499999995},
	{"grafana__k6-example-circleci-orb__summary.json", 0, "latency_p95_ms", 260.64205000000004},
	{"yphuang26__Ticket-System__k6_summary.json", 0, "latency_p95_ms", 6.090424349999999},
	{"TimurNurlygayanov__load_tests_k6__trading-scenario-20251120-100356__summary.json", 0, "latency_max_ms", 25.39875},
	{"TimurNurlygayanov__load_tests_k6__user-creation-20251120-095949__summary.json", 0, "latency_max_ms", 12.937917},
	{"andreposman__qr-code-generator__summary-export.json", 0, "latency_max_ms", 1737.376},
	{"itzaddddd__ticket-reserve__summary-export.json", 0, "latency_max_ms", 4180.7135},
	{"szpeter2026__looma-zervi__k6_baseline.json", 0, "latency_max_ms", 69.343796},
	{"AlexsJones__frontier__metrics.json", 0, "requests", 25000},
	{"edwintcloud__cloudenterprise__accountservice__metrics.json", 0, "requests", 5000},
	{"edwintcloud__cloudenterprise__metrics.json", 0, "requests", 5000},
	{"khamonsol__ratelimiter__metrics.json", 0, "requests", 600},
	{"nglmq__avito-shop__vegeta_report.json", 0, "requests", 30000},
	{"KhanSufiyanMirza__shorty__loadtest.txt", 0, "requests", 24668308},
	{"KhanSufiyanMirza__shorty__loadtest.txt", 1, "requests", 24300447},
	{"KhanSufiyanMirza__shorty__loadtest.txt", 2, "requests", 39308},
	{"PPACI__wrk2img__localhost.txt", 0, "requests", 1932},
	{"StepOne-ai__pvz_avito__wrk.txt", 0, "requests", 209440},
	{"Zadneprovski__HttpServer__wrk.log", 0, "requests", 88124},
	{"desyang-hub__web-server-cpp__wrk.txt", 0, "requests", 487530},
	{"i5ting__wrkparser__wrk.log", 0, "requests", 13803},
	{"plover-modules__benchmark__wrk.txt", 0, "requests", 1440},
	{"PPACI__wrk2img__issue1.txt", 0, "requests", 119802},
	{"PPACI__wrk2img__wrk2.txt", 0, "requests", 60018},
	{"PPACI__wrk2img__wrk_cat", 0, "requests", 1495},
	{"PPACI__wrk2img__wrk_cat", 1, "requests", 1495},
	{"PPACI__wrk2img__issue1.txt", 0, "latency_p95_ms", 2.215},
	{"PPACI__wrk2img__wrk2.txt", 0, "latency_p95_ms", 10.015},
	{"PPACI__wrk2img__wrk_cat", 0, "latency_p95_ms", 44.287},
	{"PPACI__wrk2img__wrk_cat", 1, "latency_p95_ms", 44.287},
	{"AbhishekkumarReddy__odoo-locust__results_exceptions.csv", 0, "requests", 225},
	{"AbhishekkumarReddy__odoo-locust__results_failures.csv", 0, "requests", 225},
	{"AbhishekkumarReddy__odoo-locust__results_stats.csv", 0, "requests", 225},
	{"AbhishekkumarReddy__odoo-locust__results_stats_history.csv", 0, "requests", 225},
	{"esmy1990__locust-experiments__example_distribution.csv", 0, "requests", 1648},
	{"esmy1990__locust-experiments__example_requests.csv", 0, "requests", 1648},
	{"esmy1990__locust-experiments__example_stats.csv", 0, "requests", 39444},
	{"frankmwito__Performance-Testing-demo__reports_failures.csv", 0, "requests", 166370},
	{"frankmwito__Performance-Testing-demo__reports_stats.csv", 0, "requests", 166370},
	{"frankmwito__Performance-Testing-demo__reports_stats_history.csv", 0, "requests", 166370},
	{"jiangbm__XFJ__example_failures.csv", 0, "requests", 84115},
	{"jiangbm__XFJ__example_stats.csv", 0, "requests", 84115},
	{"jiangbm__XFJ__example_stats_history.csv", 0, "requests", 84115},
	{"kei-gnu__locust-scenario__example_failures.csv", 0, "requests", 881},
	{"kei-gnu__locust-scenario__example_stats.csv", 0, "requests", 881},
	{"kei-gnu__locust-scenario__example_stats_history.csv", 0, "requests", 881},
	{"sebuoz__test_load_script__results_stats.csv", 0, "requests", 15},
	{"sebuoz__test_load_script__results_stats_history.csv", 0, "requests", 15},
	{"veroliut__loadTestRetailDemoStore__results_exceptions.csv", 0, "requests", 37219},
	{"veroliut__loadTestRetailDemoStore__results_failures.csv", 0, "requests", 37219},
	{"veroliut__loadTestRetailDemoStore__results_stats.csv", 0, "requests", 37219},
	{"veroliut__loadTestRetailDemoStore__results_stats_history.csv", 0, "requests", 37219},
	{"zhajiangmian2342__20200823__locust_failures.csv", 0, "requests", 15},
	{"zhajiangmian2342__20200823__locust_stats.csv", 0, "requests", 15},
	{"zhajiangmian2342__20200823__locust_stats_history.csv", 0, "requests", 15},
	{"Caporiccii__Creditas-CodeChallenge__results.jtl", 0, "latency_max_ms", 129},
	{"DEFRA__rod-catch-returns-performance-tests__result.jtl", 0, "latency_max_ms", 27736},
	{"Fardin957__Load-Test-Using-Jmeter-Money-Transfer-Api-__results.jtl", 0, "latency_max_ms", 1088},
	{"Gwayaboy__mslearn-tailspin-spacegame-web-deploy__results.jtl", 0, "latency_max_ms", 685},
	{"IvanSavchenko6__JSONPlaceholder-JMeter-Test__results.jtl", 0, "latency_max_ms", 917},
	{"QAInsights__PerfAction__result.jtl", 0, "latency_max_ms", 207},
	{"QAInsights__PerfAction__result.jtl", 1, "latency_max_ms", 200},
	{"alexkiura__contact-manager__log.jtl", 0, "latency_max_ms", 147},
	{"cbweixin__jmeter-java-request-sampler__log.jtl", 0, "latency_max_ms", 100},
	{"cbweixin__jmeter-java-request-sampler__log.jtl", 6, "latency_max_ms", 2487},
	{"cbweixin__jmeter-java-request-sampler__log.jtl", 6, "requests", 1200},
	{"ckq1019__System-performance-testing-utilizing-JMeter__results.jtl", 0, "latency_max_ms", 159},
	{"flood-io__loadtest__jmeter.jtl", 0, "latency_max_ms", 80},
	{"hebroms__testesCarga__results.jtl", 0, "latency_max_ms", 1599},
	{"karthiklingasamy__Pandas__result.jtl", 0, "latency_max_ms", 2183},
	{"karthiklingasamy__Pandas__result.jtl", 1, "latency_max_ms", 2395},
	{"Gwayaboy__mslearn-tailspin-spacegame-web-deploy__Results.xml", 0, "requests", 300},
	{"QAInsights__PerfAction__CSVSample.jtl", 0, "requests", 12},
	{"luckysahani__Load-Balancer-using-nginx-with-JMeter-Testing__log.jtl", 0, "requests", 1664},
	{"suryakant-karale__Taurus-Repo__result.jtl", 0, "requests", 110},
}

// refusedFixtures hold nothing tailgate can judge, and say why.
var refusedFixtures = map[string]string{
	"varuns2903__http-server__ab.log":                 "apr_socket_recv",
	"matichons__k6-loadtest__login.json":              "browser test",
	"matichons__k6-loadtest__test_result.json":        "browser test",
	"MM12583__K6_Script_Automated_Test__summary.json": "browser test",
	"guths__k6-centrifugo-protobuf-poc__summary.json": "WebSocket test",
}

// TestFixturesMatchTheirOwnFigures imports every shared fixture and checks
// at least one of its numbers against the figure the file itself states.
func TestFixturesMatchTheirOwnFigures(t *testing.T) {
	t.Parallel()
	root := importertest.FixturesDir(t, ".")
	files, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]figure{}
	for _, f := range ownFigures {
		byFile[f.file] = append(byFile[f.file], f)
	}
	var imported, checked, refused int
	for _, path := range files {
		name := filepath.Base(path)
		im, err := importer.Read(path, "")
		if why, ok := refusedFixtures[name]; ok {
			if reason, typed := importertest.Rejection(err); !typed || !strings.Contains(reason, why) {
				t.Errorf("%s: %v, want a refusal saying %q", name, err, why)
			}
			refused++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		imported++
		figs := byFile[name]
		if filepath.Base(filepath.Dir(path)) == "vegeta-results-gob" {
			figs = append(figs, figure{name, 0, "requests", float64(countGob(t, path))})
		}
		if len(figs) == 0 {
			t.Errorf("%s: no figure of the file's own to check it against", name)
		}
		for _, f := range figs {
			if f.run >= len(im.Runs) {
				t.Errorf("%s: %d runs, want run %d", name, len(im.Runs), f.run)
				continue
			}
			run := im.Runs[f.run]
			got, ok := float64(run.Requests.Total), true
			if f.key != "requests" {
				got, ok = run.Metrics[f.key]
			}
			if !ok || !near(got, f.value, f.key) {
				t.Errorf("%s run %d: %s = %v (present %v), the file says %v", name, f.run, f.key, got, ok, f.value)
			}
			checked++
		}
	}
	t.Logf("%d fixtures imported, %d figures checked, %d refused as expected", imported, checked, refused)
}

// near compares a count exactly and a latency to histogram precision.
func near(got, want float64, key string) bool {
	if key == "requests" {
		return got == want
	}
	return math.Abs(got-want) <= 0.002*want+0.001
}

// countGob counts the results of a vegeta gob stream with a decoder of
// its own (gob matches fields by name).
func countGob(t *testing.T, path string) int {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	dec := gob.NewDecoder(fh)
	n := 0
	for {
		var r struct{ Code uint16 }
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return n
		} else if err != nil {
			t.Fatalf("%s: result %d: %v", path, n+1, err)
		}
		n++
	}
}
