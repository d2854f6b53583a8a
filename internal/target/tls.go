package target

import (
	"crypto/tls"
	"crypto/x509"
	"errors"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// ClientTLS is the TLS configuration of every connection to the target:
// nil (the system's roots) unless target.tls.ca_file adds a CA, which is
// then trusted beside the system's roots.
func ClientTLS(t config.Target) (*tls.Config, error) {
	if t.TLS == nil || t.TLS.CAPEM == "" {
		return nil, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool() // no system roots here: the CA file alone
	}
	if !pool.AppendCertsFromPEM([]byte(t.TLS.CAPEM)) {
		return nil, errors.New("target.tls.ca_file: " + t.TLS.CAFile + " holds no PEM certificate")
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
