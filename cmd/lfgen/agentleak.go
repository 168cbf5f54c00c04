// agentleak (lfgen agentleak) writes large AgentLeak inputs for benchmarks.
//
//	go run ./cmd/lfgen agentleak -repeat 300 -o big.jsonl
//	    repeats the conformance traces (from $LF_SHARED or ../shared, else
//	    the demo project's traces) 300 times (-src names other files);
//	go run ./cmd/lfgen agentleak -repeat 10 -unique -vaults vaults.yaml -o traces.jsonl
//	    the same, each repetition under its own scenario ids (suffix __rN), and
//	    the sources' vault files, renamed alike, in one vault file (the
//	    issue 10 benchmark: 18,760 events, about 2,200 vaults, 500 KB);
//	go run ./cmd/lfgen agentleak -synthetic 10000 -traces 20000 -o syn.jsonl -vaults syn-vaults.yaml
//	    writes a vault with 10,000 field values and traces quoting some.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/lfcli/lf/pkg/agentleak"
)

func agentleakCmd(args []string) {
	fs := flag.NewFlagSet("agentleak", flag.ExitOnError)
	repeat := fs.Int("repeat", 100, "how many times to repeat the source traces")
	out := fs.String("o", "", "output JSONL `FILE` (required)")
	synthetic := fs.Int("synthetic", 0, "write a synthetic vault with `N` values instead of repeating traces")
	traces := fs.Int("traces", 10000, "synthetic traces to write")
	vaults := fs.String("vaults", "", "vault `FILE` to write (-synthetic, -unique)")
	unique := fs.Bool("unique", false, "give each repetition its own scenario ids and write the renamed vaults to -vaults")
	fs.Parse(args)
	if *out == "" {
		fmt.Fprintln(os.Stderr, "lfgen agentleak: -o FILE is required")
		os.Exit(2)
	}
	if *unique && *synthetic == 0 && *vaults == "" {
		fmt.Fprintln(os.Stderr, "lfgen agentleak: -unique needs -vaults FILE")
		os.Exit(2)
	}
	if err := writeAgentleak(*out, *repeat, *synthetic, *traces, *vaults, *unique, fs.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "lfgen agentleak:", err)
		os.Exit(1)
	}
}

func writeAgentleak(out string, repeat, synthetic, traces int, vaultsOut string, unique bool, src []string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if synthetic > 0 {
		if vaultsOut == "" {
			return fmt.Errorf("-synthetic needs -vaults FILE")
		}
		v, t, events := agentleak.SyntheticVaultSet(synthetic, traces, 1)
		if err := os.WriteFile(vaultsOut, v, 0o644); err != nil {
			return err
		}
		if _, err := w.Write(t); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %d traces (%d events, %d bytes) and a vault of %d values\n", traces, events, len(t), synthetic)
		return w.Flush()
	}
	if len(src) == 0 {
		src = agentleakSources()
	}
	var data [][]byte
	for _, s := range src {
		b, err := os.ReadFile(s)
		if err != nil {
			return err
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		data = append(data, b)
	}
	var vaultData [][]byte
	if unique {
		for _, s := range src {
			if v, err := os.ReadFile(filepath.Join(filepath.Dir(s), "vaults.yaml")); err == nil {
				vaultData = append(vaultData, bytes.TrimPrefix(v, []byte("vaults:\n")))
			}
		}
	}
	var vb bytes.Buffer
	vb.WriteString("vaults:\n")
	var n int64
	for i := 0; i < repeat; i++ {
		suffix := []byte(fmt.Sprintf("${1}__r%d\"", i))
		for _, v := range vaultData {
			vb.Write(vaultKey.ReplaceAll(v, suffix))
		}
		for _, b := range data {
			if unique {
				b = scenarioKey.ReplaceAll(b, suffix)
			}
			m, err := w.Write(b)
			if err != nil {
				return err
			}
			n += int64(m)
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %d bytes from %d source file(s) repeated %d times\n", n, len(src), repeat)
	if unique {
		if err := os.WriteFile(vaultsOut, vb.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %d bytes of vaults to %s\n", vb.Len(), vaultsOut)
	}
	return w.Flush()
}

// scenarioKey and vaultKey find a trace's scenario id (on each JSONL line)
// and a vault's key (in the usual vault file layout).
var (
	scenarioKey = regexp.MustCompile(`("scenario_id":\s*"[^"]*)"`)
	vaultKey    = regexp.MustCompile(`(?m)^(  - key: "[^"]*)"`)
)

func agentleakSources() []string {
	shared := os.Getenv("LF_SHARED")
	if shared == "" {
		shared = "../shared"
	}
	m, _ := filepath.Glob(filepath.Join(shared, "conformance", "agentleak", "*", "traces.jsonl"))
	if len(m) > 0 {
		return m
	}
	return []string{"project/agentleak/traces.jsonl"}
}
