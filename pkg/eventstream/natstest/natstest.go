// Package natstest gives tests a NATS JetStream server and stream names of
// their own.
//
// Tests on this machine share one nats-server (with JetStream), named by
// LF_TEST_NATS (for example nats://127.0.0.1:4222). Stream returns a stream
// name and subject prefix no other test uses and deletes the stream when
// the test ends.
package natstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// EnvVar names the server URL.
const EnvVar = "LF_TEST_NATS"

// HowToStart is the message a test skips with when EnvVar is unset.
const HowToStart = EnvVar + " is not set: NATS JetStream tests skipped. To run them, start a server " +
	"(Debian: apt-get install nats-server; nats-server -js -a 127.0.0.1 -p 4222 -sd /tmp/nats &) and set " +
	EnvVar + "=nats://127.0.0.1:4222, or run .ci/run which does both"

// URL returns the server URL. It skips the test when EnvVar is unset, and
// fails it instead when CI=true.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvVar)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(EnvVar + " is not set but CI=true: CI must run the NATS tests (.ci/run starts the server)")
		}
		t.Skip(HowToStart)
	}
	return u
}

// Stream returns a JetStream context on the server, and a stream name and
// subject prefix unique to this test; the stream (if created) is deleted at
// cleanup.
func Stream(t testing.TB) (js jetstream.JetStream, stream, prefix string) {
	t.Helper()
	nc, err := nats.Connect(URL(t))
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	js, err = jetstream.New(nc)
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	id := hex.EncodeToString(b)
	stream, prefix = "LFT_"+id, "lft_"+id+".events"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		js.DeleteStream(ctx, stream)
		nc.Close()
	})
	return js, stream, prefix
}
