module github.com/tailgate-ci/tailgate/bench/httpbin/app

go 1.26.0

require github.com/mccutchen/go-httpbin/v2 v2.26.0
