module github.com/tailgate-ci/tailgate/bench/bcryptlogin/app

go 1.26.0

require golang.org/x/crypto v0.59.0
