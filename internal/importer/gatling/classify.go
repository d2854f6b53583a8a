package gatling

import (
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// koClasses classes KO messages: Gatling's checks on the status read
// "status.find.is(200), but actually found 500"; transport failures name
// the exceptions of Netty and the JDK.
var koClasses = importer.MessageClasses{
	Status:  func(msg string) bool { return strings.HasPrefix(strings.ToLower(msg), "status.") },
	Timeout: []string{"timeout"},
	Connection: []string{
		"connectexception", "connection refused", "connection reset", "closedchannelexception",
		"prematurecloseexception", "unknownhostexception", "sslexception", "sslhandshake",
		"no route to host", "broken pipe", "socketexception", "channel closed", "connection closed",
	},
}
