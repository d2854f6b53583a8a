#!/usr/bin/env bash
# build-and-run.sh builds tailgate's container image on this machine and runs
# it, without a Docker engine or a registry: buildah builds the Dockerfile
# from a Go base image made locally from the machine's toolchain, and runs
# the image with chroot isolation on the host network (as docker run
# --network host). See docs/container.md and
# ../shared/research/container-here.md.
#
# It checks, inside the image:
#   (a) tailgate version             the entrypoint binary runs from PATH
#   (b) tailgate demo --mode check   the binary re-executes itself as the demo
#                                    service and keeps its baseline in /tmp,
#                                    as an unprivileged user
#   (b2) tailgate demo               the default A/B demo (two services, 4 pairs)
#   (c) tailgate run / check         against a service on the HOST's loopback,
#                                    with the working directory mounted
#
# Usage: bench/container/build-and-run.sh        (as root; installs what is missing)
# Env:   IMAGE (default localhost/tailgate:dev), GO_BASE (localhost/golang-local:1.26),
#        KEEP_CACHE=1 keeps the untagged build layers (with vfs storage each
#        build leaves ~1 GB of them; by default they are pruned at the end).
set -euo pipefail
shopt -s inherit_errexit

IMAGE=${IMAGE:-localhost/tailgate:dev}
GO_BASE=${GO_BASE:-localhost/golang-local:1.26}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILDAH=(buildah --storage-driver vfs)
RUN=(run --isolation chroot --network host)

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'build-and-run: %s\n' "$*" >&2; exit 1; }

# timed NAME CMD... runs CMD and records how long it took.
TIMINGS=()
timed() {
	local name=$1 start end
	shift
	log "$name: $*"
	start=$(date +%s.%N)
	"$@"
	end=$(date +%s.%N)
	TIMINGS+=("$(printf '%-34s %6.1f s' "$name" "$(echo "$end - $start" | bc)")")
	log "${TIMINGS[-1]}"
}

install_tools() {
	local missing=()
	command -v buildah >/dev/null || missing+=(buildah)
	command -v podman >/dev/null || missing+=(podman)
	dpkg -s busybox-static >/dev/null 2>&1 || missing+=(busybox-static) # copied into the Go base image: must be static
	command -v bc >/dev/null || missing+=(bc)
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}: run as root or install them"
	log "installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# make_go_base imports the host's Go toolchain, busybox and CA bundle as an
# image, so that the build stage needs nothing from a registry.
make_go_base() {
	if "${BUILDAH[@]}" inspect --type image "$GO_BASE" >/dev/null 2>&1; then
		log "Go base image $GO_BASE already present"
		return 0
	fi
	local r tarball
	r=$(mktemp -d) tarball=$(mktemp --suffix .tar)
	mkdir -p "$r/bin" "$r/usr/local" "$r/tmp" "$r/etc/ssl/certs"
	chmod 1777 "$r/tmp"
	cp /bin/busybox "$r/bin/"
	for c in sh ls cat mkdir cp rm env chmod; do ln -s busybox "$r/bin/$c"; done
	cp -a "$(go env GOROOT)" "$r/usr/local/go"
	cp /etc/ssl/certs/ca-certificates.crt "$r/etc/ssl/certs/"
	tar -C "$r" -cf "$tarball" .
	podman --storage-driver vfs import "$tarball" "$GO_BASE" >/dev/null
	rm -rf "$r" "$tarball"
}

build_image() {
	local version
	version=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo dev)
	"${BUILDAH[@]}" bud --isolation chroot --network host --pull-never --layers --force-rm \
		--build-arg GO_IMAGE="$GO_BASE" --build-arg VERSION="$version" \
		-t "$IMAGE" "$ROOT"
}

# new_container sets C to a fresh working container of the image (not in a
# subshell, so that cleanup knows every container).
CONTAINERS=()
C=
new_container() {
	C=$("${BUILDAH[@]}" from --pull-never "$IMAGE")
	CONTAINERS+=("$C")
}

TMP=$(mktemp -d)
SERVER_PID=
remove_containers() {
	local c
	for c in "${CONTAINERS[@]}"; do "${BUILDAH[@]}" rm "$c" >/dev/null 2>&1 || true; done
	CONTAINERS=()
}
cleanup() {
	remove_containers
	if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
	rm -rf "$TMP"
	# Seen once on this machine while builds ran: the host's /dev/null became a
	# regular file, which breaks every later `>/dev/null` and git's config
	# reads. Put the device back if that happened.
	if [ ! -c /dev/null ]; then
		echo "warning: /dev/null was not a character device; restoring it" >&2
		rm -f /dev/null && mknod -m 666 /dev/null c 1 3
	fi
}
trap cleanup EXIT

check_image_config() {
	local entry path size
	entry=$("${BUILDAH[@]}" inspect --type image --format '{{range .OCIv1.Config.Entrypoint}}<{{.}}>{{end}}' "$IMAGE")
	[ "$entry" = '<tailgate>' ] || die "image entrypoint is $entry, want <tailgate>"
	size=$("${BUILDAH[@]}" images --format '{{.Size}}' "$IMAGE" | head -n1)
	log "image $IMAGE: entrypoint $entry, size $size"
	SIZE=$size
}

# run_version: (a) the entrypoint's name resolves through the image's PATH.
run_version() {
	local out
	new_container
	out=$("${BUILDAH[@]}" "${RUN[@]}" "$C" -- tailgate version)
	echo "$out"
	case $out in "tailgate "*) ;; *) die "tailgate version printed: $out" ;; esac
}

# run_demo: (b) the stored-baseline demo (--mode check), as user nobody, records
# its baseline under /tmp.
run_demo() {
	local mnt
	new_container
	"${BUILDAH[@]}" "${RUN[@]}" --user 65534:65534 "$C" -- tailgate demo --mode check --runs 2 --duration 2s -q
	mnt=$("${BUILDAH[@]}" mount "$C")
	compgen -G "$mnt/tmp/.cache/tailgate/demo-baseline-*.json" >/dev/null || die "the demo left no baseline at /tmp/.cache/tailgate/demo-baseline-<definition>.json"
	"${BUILDAH[@]}" umount "$C" >/dev/null
}

# run_demo_ab: (b2) the default demo, sequential A/B of two services the
# binary starts inside the container, with a small budget: exit 0 (pass or
# inconclusive), never a regression of clean against clean.
run_demo_ab() {
	new_container
	"${BUILDAH[@]}" "${RUN[@]}" --user 65534:65534 "$C" -- tailgate demo --max-blocks 4 -q --report /tmp/ab.json ||
		die "the A/B demo of clean against clean did not exit 0"
}

# start_host_service starts the demo service from a host-built binary on the
# host's loopback: the container must reach it through --network host.
start_host_service() {
	PORT=$((20000 + RANDOM % 20000))
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TMP/tailgate-host" ./cmd/tailgate)
	"$TMP/tailgate-host" demo-serve --addr "127.0.0.1:$PORT" 2>"$TMP/service.log" &
	SERVER_PID=$!
	mkdir -p "$TMP/work"
	cat >"$TMP/work/tailgate.yml" <<YML
# A service that runs on the host, outside the container; no start command.
name: container-check
seed: 1
target:
  url: http://127.0.0.1:$PORT
  ready: {path: /health, timeout: 20s}
dataset:
  reset: {request: {method: POST, path: /reset}}
  verify: {request: {path: /count}, expect: {count: 3}}
drain:
  probe: {path: /stats}
  until: {pending: 0}
  quiet: 200ms
load:
  rate: 50/s
  warmup: 500ms
  duration: 2s
  runs: 2
scenarios:
  - name: lifecycle
    steps:
      - {name: create, method: POST, path: /complaints, json: {title: "c {{seq}}", body: x}, status: 201, save: {id: id}}
      - {name: assign, method: POST, path: "/complaints/{{.id}}/assign", json: {assignee: agent-1}}
      - {name: resolve, method: POST, path: "/complaints/{{.id}}/resolve", expect: {state: RESOLVED}}
YML
}

# in_work runs the image on $TMP/work mounted at /work, as
# docker run --network host -v "$PWD:/work" -w /work IMAGE ... does.
in_work() {
	new_container
	"${BUILDAH[@]}" "${RUN[@]}" --volume "$TMP/work:/work" --workingdir /work "$C" -- tailgate "$@"
}

run_against_host() {
	in_work run -c tailgate.yml -o result.json -q
	[ -s "$TMP/work/result.json" ] || die "result.json was not written to the mounted directory"
	grep -q '"container-check"' "$TMP/work/result.json" || die "result.json does not name the benchmark"
	if grep -Eq '"request_error_pct": *(0\.0*)?[1-9]' "$TMP/work/result.json"; then
		die "requests to the host's service failed: see $TMP/work/result.json"
	fi
	log "result.json on the host: $(wc -c <"$TMP/work/result.json") bytes"
}

check_against_host() {
	in_work baseline record -c tailgate.yml -q
	[ -s "$TMP/work/baselines/container-check.json" ] || die "baseline record wrote no baselines/container-check.json"
	in_work check -c tailgate.yml -q
}

main() {
	local total_start
	total_start=$(date +%s)
	timed "install tools (if missing)" install_tools
	timed "local Go base image" make_go_base
	timed "buildah bud" build_image
	check_image_config
	timed "(a) tailgate version" run_version
	timed "(b) tailgate demo --mode check (user nobody)" run_demo
	timed "(b2) tailgate demo, A/B (user nobody)" run_demo_ab
	timed "host service + host build" start_host_service
	timed "(c) tailgate run vs host" run_against_host
	timed "(c) baseline record + check" check_against_host
	remove_containers
	if [ "${KEEP_CACHE:-0}" != 1 ]; then
		timed "prune untagged build layers" "${BUILDAH[@]}" rmi --prune
	fi
	printf '\nbuild-and-run: all checks passed (%s s in all); image %s, %s\n' "$(($(date +%s) - total_start))" "$IMAGE" "$SIZE"
	printf '%s\n' "${TIMINGS[@]}"
}

main "$@"
