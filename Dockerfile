# The tailgate container image, for CI systems other than GitHub Actions:
#   docker run --network host -v "$PWD:/work" -w /work IMAGE check -c tailgate.yml
# See docs/container.md.
#
# GO_IMAGE lets a machine without registry access build from a local Go
# image (bench/container/build-and-run.sh makes one); VERSION is printed
# by `tailgate version`.
ARG GO_IMAGE=golang:1.26

FROM ${GO_IMAGE} AS build
# The local base image has no PATH, HOME or GOPATH; on the official image
# these settings change nothing that matters.
ENV PATH=/usr/local/go/bin:/bin:/usr/bin \
    HOME=/root \
    GOPATH=/go \
    GOFLAGS=-mod=readonly \
    CGO_ENABLED=0
WORKDIR /src
# Modules first, as their own layer: it is rebuilt only when go.mod or
# go.sum change, not on every source edit.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN go build -trimpath \
      -ldflags "-s -w -X github.com/tailgate-ci/tailgate/internal/cli.Version=${VERSION}" \
      -o /out/usr/local/bin/tailgate ./cmd/tailgate \
 && mkdir -p /out/tmp && chmod 1777 /out/tmp

# Nothing but the static binary, the CA bundle (the GitHub API is called
# over HTTPS) and a world-writable /tmp, so that `tailgate demo` can keep
# its per-machine baseline under any --user.
FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/ /
# On PATH so that the entrypoint is the bare name `tailgate` and the demo
# re-executes the same file (os.Executable reads /proc/self/exe).
ENV PATH=/usr/local/bin \
    XDG_CACHE_HOME=/tmp/.cache
ENTRYPOINT ["tailgate"]
