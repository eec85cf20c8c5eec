package stud

import (
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Domain is ErrorInfo's domain for every refusal of the Stud Engine.
const Domain = "stud.v1"

// Refusal is a refused call as a program reads it: the status code, the ErrorInfo
// reason (a stud.v1.ErrorReason name) and metadata, and RetryInfo's delay if any.
type Refusal struct {
	Code       codes.Code
	Message    string
	Reason     string
	Metadata   map[string]string
	RetryAfter string // RetryInfo's retry_delay ("" when there is none)
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s (%s): %s", r.Code, r.Reason, r.Message)
}

// RefusalOf reads the Stud Engine refusal in err, or returns nil when err carries no
// ErrorInfo of domain stud.v1 (a transport failure, for instance).
func RefusalOf(err error) *Refusal {
	st, ok := status.FromError(err)
	if !ok {
		return nil
	}
	var refusal *Refusal
	retry := ""
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() == Domain {
				refusal = &Refusal{Code: st.Code(), Message: st.Message(), Reason: d.GetReason(),
					Metadata: d.GetMetadata()}
			}
		case *errdetails.RetryInfo:
			delay := d.GetRetryDelay()
			retry = (time.Duration(delay.GetSeconds())*time.Second +
				time.Duration(delay.GetNanos())).String()
		}
	}
	if refusal != nil {
		refusal.RetryAfter = retry
	}
	return refusal
}
