package postgres

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable tells whether err means the server cannot be reached or is
// not accepting work right now (connection refused or lost, server shutting
// down or starting, too many connections), as opposed to a bad statement or
// data; reason says which, in a few words that name no host or secret. The
// pool opens new connections on the next request, so such errors end by
// themselves when the server is back: `lf serve` answers them with 503.
func Unavailable(err error) (reason string, ok bool) {
	if err == nil {
		return "", false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"):
			return "the connection to PostgreSQL failed", true
		case pe.Code == "57P01" || pe.Code == "57P02":
			return "PostgreSQL is shutting down or terminated the connection", true
		case pe.Code == "57P03":
			return "PostgreSQL is starting up and not accepting connections yet", true
		case pe.Code == "53300":
			return "PostgreSQL has too many connections", true
		}
		return "", false
	}
	var ce *pgconn.ConnectError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "PostgreSQL refused the connection (is it running?)", true
	case errors.As(err, &ce):
		return "cannot connect to PostgreSQL", true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return "the connection to PostgreSQL was lost", true
	case pgconn.SafeToRetry(err):
		return "the connection to PostgreSQL is not usable", true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return "the network to PostgreSQL failed", true
	}
	return "", false
}
