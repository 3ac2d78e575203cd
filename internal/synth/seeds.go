package synth

import (
	"strconv"
	"strings"
	"time"
)

// The seed stories: an agent tunes EAGLE-3 speculative decoding on a
// remote GPU host and runs its benchmark scripts over ssh with the wrong
// flags three times. Each time argparse prints the usage that names the
// right flag, and a later call runs the script correctly.

const host = "root@10.1.230.174"

func ssh(cmd string) string { return "ssh " + host + " '" + cmd + "'" }

func bash(text, cmd, desc, out string, exit int, think, dur time.Duration) Step {
	return Step{
		Text: text, Tool: "bash",
		Input:  []KV{{"command", cmd}, {"description", desc}},
		Output: out, Exit: exit, Think: think, Duration: dur, Tokens: 40 + len(cmd)/3,
	}
}

const eagleUsage = `usage: benchmark_eagle3.py [-h] [--server-url SERVER_URL]
                           [--max-tokens MAX_TOKENS] [--num-runs NUM_RUNS]
                           [--warmup WARMUP]
`

const parallelUsage = `usage: benchmark_parallel.py [-h] [--server-url SERVER_URL]
                             [--max-tokens MAX_TOKENS]
                             [--concurrency CONCURRENCY [CONCURRENCY ...]]
                             [--requests-per-level REQUESTS_PER_LEVEL]
                             [--warmup-requests WARMUP_REQUESTS]
`

// eagleHead is the first 30 lines of the benchmark script.
const eagleHead = `#!/usr/bin/env python3
"""Single-stream decode throughput for an SGLang server (EAGLE-3 on or off)."""
import argparse
import json
import statistics
import time

import requests

PROMPTS = [
    "Explain the difference between a process and a thread in three paragraphs.",
    "Write a Python function that merges two sorted lists without using sort().",
    "Summarize the causes of the 2008 financial crisis for a high-school student.",
    "Describe how speculative decoding speeds up autoregressive generation.",
    "List ten practical tips for writing maintainable shell scripts.",
]


def run_one(url: str, prompt: str, max_tokens: int) -> tuple[int, float]:
    payload = {
        "text": prompt,
        "sampling_params": {"max_new_tokens": max_tokens, "temperature": 0},
    }
    start = time.perf_counter()
    resp = requests.post(f"{url}/generate", json=payload, timeout=600)
    resp.raise_for_status()
    elapsed = time.perf_counter() - start
    tokens = resp.json()["meta_info"]["completion_tokens"]
    return tokens, elapsed
`

// eagleRun prints what benchmark_eagle3.py prints for the given per-run
// throughputs.
func eagleRun(url string, maxTokens, warmup int, rates []string, average, accept string) string {
	var b strings.Builder
	b.WriteString("Benchmarking " + url + " (max_tokens=" + strconv.Itoa(maxTokens) + ", runs=" + strconv.Itoa(len(rates)) + ", warmup=" + strconv.Itoa(warmup) + ")\n")
	if warmup > 0 {
		b.WriteString("Warmup done.\n")
	}
	for i, r := range rates {
		b.WriteString("Run " + strconv.Itoa(i+1) + ": " + strconv.Itoa(maxTokens) + " tokens, " + r + "\n")
	}
	b.WriteString("Average: " + average + " tok/s\n")
	if accept != "" {
		b.WriteString(accept + "\n")
	}
	return b.String()
}

const sweep = `Server: http://localhost:30000  max_tokens=200  requests_per_level=20
Concurrency | Requests | Total tok/s | Per-req tok/s | Mean latency (s) | P99 latency (s)
------------+----------+-------------+---------------+------------------+----------------
          1 |       20 |        87.1 |          87.1 |             2.30 |            2.41
          2 |       20 |       160.4 |          80.2 |             2.49 |            2.63
          4 |       20 |       268.9 |          67.2 |             2.97 |            3.20
          8 |       20 |       402.6 |          50.3 |             3.97 |            4.35
         16 |       20 |       551.8 |          34.5 |             5.80 |            6.52
         32 |       20 |       690.3 |          21.6 |             9.27 |           10.44
         64 |       20 |       775.0 |          12.1 |            16.52 |           18.90
Peak: 775.0 tok/s at concurrency 64
`

const specV2Log = `[2026-03-09 16:41:07 TP0] Decode batch. #running-req: 1, #token: 412, token usage: 0.00, accept len: 1.00, gen throughput (token/s): 0.00
[2026-03-09 16:41:07 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/root/sglang/python/sglang/srt/managers/scheduler.py", line 2712, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/root/sglang/python/sglang/srt/speculative/eagle_worker_v2.py", line 402, in forward_batch_generation
    if batch.batch_size() > self.spec_disable_batch_threshold:
AttributeError: 'EAGLEWorkerV2' object has no attribute 'spec_disable_batch_threshold'
[2026-03-09 16:41:07] Received sigquit from a child process. It usually means the child failed.
`

// Seeds returns the seed stories as one session.
func Seeds() *Session {
	s := &Session{
		ID:    "7d3c5b1e-2f4a-4c8e-9b6d-0a1e2f3c4d5e",
		Title: "EAGLE-3 speculative decoding on Kimi-K2.5: accept rate and throughput",
		Cwd:   "/home/dev/eagle3-spec",
		Model: "claude-opus-4-5-20251101",
		Start: time.Date(2026, 3, 9, 13, 40, 0, 0, time.UTC),
	}
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	py := "~/ml-env/bin/python3 "
	eagle := func(args string) string { return ssh(py + "/tmp/benchmark_eagle3.py " + args) }
	parallel := func(args string) string { return ssh(py + "/tmp/benchmark_parallel.py " + args + " 2>&1") }

	s.Steps = []Step{
		{Prompt: "The EAGLE-3 accept rate is stuck around 19% and we get ~54 tok/s against a 90 tok/s baseline. Find out why."},
		bash("First a baseline measurement with the current draft config.",
			eagle("--server-url http://localhost:8000 --max-tokens 500 --num-runs 5 --warmup 1"),
			"Benchmark current EAGLE-3 server",
			eagleRun("http://localhost:8000", 500, 1, []string{"9.31s, 53.7 tok/s", "9.18s, 54.5 tok/s", "9.25s, 54.1 tok/s", "9.22s, 54.2 tok/s", "9.20s, 54.3 tok/s"}, "54.2", "Accept length: 1.38, accept rate: 19.1%"),
			0, sec(14), sec(52)),
		{Tool: "grep", Text: "Let me check which hidden-state layers the draft model is configured to read.",
			Input:  []KV{{"pattern", "eagle_aux_hidden_state_layer_ids"}, {"path", "/home/dev/eagle3-spec"}},
			Output: "/home/dev/eagle3-spec/configs/kimi-k25-eagle3.json:14:  \"eagle_aux_hidden_state_layer_ids\": [-1, 2, 30],\n",
			Think:  sec(9), Duration: ms(180), Tokens: 60},
		{Tool: "read", Input: []KV{{"file_path", "/home/dev/eagle3-spec/training/capture_hidden_states.py"}},
			Output: "# Captures hidden states for EAGLE-3 draft training.\n# Layers 3, 31 and 59 are the outputs of transformer layers 2, 30 and 58.\nCAPTURE_LAYERS = [3, 31, 59]\n\n\ndef capture(model, batch):\n    outs = model(batch, output_hidden_states=True).hidden_states\n    return torch.cat([outs[i] for i in CAPTURE_LAYERS], dim=-1)\n",
			Think:  sec(6), Duration: ms(90), Tokens: 45},
		{Tool: "edit", Text: "The training data never included the embedding output: the layer ids must be [2, 30, 58], not [-1, 2, 30].",
			Input:  []KV{{"file_path", "/home/dev/eagle3-spec/configs/kimi-k25-eagle3.json"}, {"old_string", `"eagle_aux_hidden_state_layer_ids": [-1, 2, 30]`}, {"new_string", `"eagle_aux_hidden_state_layer_ids": [2, 30, 58]`}},
			Output: "    14→  \"eagle_aux_hidden_state_layer_ids\": [2, 30, 58],\n",
			Think:  sec(21), Duration: ms(120), Tokens: 180},
		bash("", "scp configs/kimi-k25-eagle3.json "+host+":/root/eagle3-draft/config.json", "Copy fixed draft config to GPU host", "", 0, sec(5), sec(2)),
		bash("Restart the debug server with the corrected config.",
			ssh("pkill -f sglang.launch_server; sleep 5; cd /root && nohup "+py+"-m sglang.launch_server --model-path /models/Kimi-K2.5-INT4 --speculative-algorithm EAGLE3 --speculative-draft-model-path /root/eagle3-draft --tp 8 --port 8000 --disable-cuda-graph > /tmp/sglang_debug.log 2>&1 &"),
			"Restart debug server", "", 0, sec(8), sec(7)),
		bash("", ssh(`sleep 240; curl -s -o /dev/null -w "%{http_code}" localhost:8000/health`), "Wait for server health", "200", 0, sec(4), sec(243)),
		bash("", ssh(`grep -E "accept (len|rate)" /tmp/sglang_debug.log | tail -3`), "Check accept rate in debug log",
			"[2026-03-09 14:09:51 TP0] Decode batch. #running-req: 1, #token: 1211, accept len: 2.39, accept rate: 0.47\n[2026-03-09 14:09:53 TP0] Decode batch. #running-req: 1, #token: 1320, accept len: 2.41, accept rate: 0.47\n[2026-03-09 14:09:55 TP0] Decode batch. #running-req: 1, #token: 1428, accept len: 2.40, accept rate: 0.47\n",
			0, sec(6), sec(1)),
		bash("Accept rate is up from 19% to 47%. Now remove the debug logging.",
			ssh(`sed -i "/EAGLE_DEBUG/d" /root/sglang/python/sglang/srt/speculative/eagle_worker.py`), "Remove debug logging (1/3)", "", 0, sec(12), ms(400)),
		bash("", ssh(`sed -i "/EAGLE_DEBUG/d" /root/sglang/python/sglang/srt/models/kimi_k25_eagle3.py`), "Remove debug logging (2/3)", "", 0, sec(3), ms(400)),
		bash("", ssh(`sed -i "/EAGLE_DEBUG/d" /root/sglang/python/sglang/srt/speculative/eagle_utils.py`), "Remove debug logging (3/3)", "", 0, sec(3), ms(400)),
		bash("Restart in production mode, with CUDA graphs.",
			ssh("pkill -f sglang.launch_server; sleep 5; cd /root && nohup "+py+"-m sglang.launch_server --model-path /models/Kimi-K2.5-INT4 --speculative-algorithm EAGLE3 --speculative-draft-model-path /root/eagle3-draft --tp 8 --port 8000 > /tmp/sglang_prod.log 2>&1 &"),
			"Restart production server", "", 0, sec(9), sec(7)),
		bash("", ssh(`sleep 600; curl -s localhost:8000/health || echo "not ready"`), "Wait for server", "not ready\n", 0, sec(3), sec(601)),
		bash("CUDA graph capture is slow for this model; waiting longer.", ssh(`sleep 240; curl -s -o /dev/null -w "%{http_code}" localhost:8000/health`), "Wait for server", "200", 0, sec(5), sec(241)),
		bash("Server is up. Let me check the benchmark script is still there.", ssh("ls -la /tmp/benchmark_eagle3.py"), "Check benchmark script exists",
			"-rw-r--r-- 1 root root 3184 Mar  9 11:02 /tmp/benchmark_eagle3.py\n", 0, sec(6), ms(900)),
		bash("", ssh("head -30 /tmp/benchmark_eagle3.py"), "Read benchmark script header", eagleHead, 0, sec(4), ms(800)),
		// Seed 1 (msg 4597): --num-prompts for --num-runs.
		bash("Let me run the benchmark:", eagle("--server-url http://localhost:8000 --max-tokens 500 --num-prompts 5 --warmup 1"),
			"Benchmark EAGLE-3 after fix", eagleUsage+"benchmark_eagle3.py: error: unrecognized arguments: --num-prompts 5\n", 2, sec(7), ms(1400)),
		bash("", eagle("--server-url http://localhost:8000 --max-tokens 500 --num-runs 5 --warmup 1"), "Benchmark EAGLE-3 after fix",
			eagleRun("http://localhost:8000", 500, 1, []string{"7.04s, 71.0 tok/s", "7.02s, 71.2 tok/s", "7.03s, 71.1 tok/s", "7.05s, 70.9 tok/s", "7.01s, 71.3 tok/s"}, "71.1", "Accept length: 2.40, accept rate: 47.0%"),
			0, sec(5), sec(41)),
		bash("", "git status --short", "Check working tree", " M configs/kimi-k25-eagle3.json\n", 0, sec(11), ms(60)),

		// Seed 2 (msgs 5196-5201): three wrong flags, then the script is read.
		{Prompt: "Now try the custom allreduce on PCIe instead of NCCL and benchmark it on port 30000."},
		bash("", ssh("pkill -f sglang.launch_server; sleep 5; cd /root && nohup "+py+"-m sglang.launch_server --model-path /models/Kimi-K2.5-INT4 --tp 8 --port 30000 --enable-custom-all-reduce > /tmp/sglang_car.log 2>&1 &"),
			"Launch server with custom allreduce", "", 0, sec(18), sec(7)),
		bash("", ssh(`sleep 660; curl -s -o /dev/null -w "%{http_code}" localhost:30000/health`), "Wait for server", "200", 0, sec(3), sec(662)),
		bash("", ssh("ls -la --time-style=long-iso /tmp/benchmark_eagle3.py"), "Check benchmark script",
			"-rw-r--r-- 1 root root 3184 2026-03-09 11:02 /tmp/benchmark_eagle3.py\n", 0, sec(4), ms(700)),
		bash("", ssh("/root/ml-env/bin/python3 /tmp/benchmark_eagle3.py --port 30000 --num-prompts 5 --output-len 256"),
			"Benchmark custom allreduce", eagleUsage+"benchmark_eagle3.py: error: unrecognized arguments: --port 30000 --num-prompts 5 --output-len 256\n", 2, sec(5), ms(1300)),
		bash("", ssh("head -30 /tmp/benchmark_eagle3.py"), "Read benchmark script arguments", eagleHead, 0, sec(6), ms(800)),
		bash("", ssh("/root/ml-env/bin/python3 /tmp/benchmark_eagle3.py --server-url http://localhost:30000 --max-tokens 256 --num-runs 5"),
			"Benchmark custom allreduce",
			eagleRun("http://localhost:30000", 256, 0, []string{"6.78s, 37.8 tok/s", "6.71s, 38.2 tok/s", "6.74s, 38.0 tok/s", "6.73s, 38.0 tok/s", "6.75s, 37.9 tok/s"}, "38.0", ""),
			0, sec(9), sec(35)),

		// Seed 3 (msg 5643): --num-requests for --requests-per-level.
		{Prompt: "The spec_v2 + topk=1 server crashed on the first decode request. Fix it and benchmark."},
		bash("", ssh("tail -8 /tmp/sglang_specv2.log"), "Read crash log", specV2Log, 0, sec(15), ms(600)),
		bash("", ssh("sed -n 160,185p /root/sglang/python/sglang/srt/speculative/eagle_worker_v2.py"), "Read EAGLEWorkerV2.__init__",
			"    def __init__(self, server_args, gpu_id, tp_rank, target_worker):\n        self.server_args = server_args\n        self.topk = server_args.speculative_eagle_topk\n        self.init_cuda_graphs()  # line 172: may raise and be caught upstream\n        self.spec_disable_batch_threshold = server_args.speculative_disable_batch_threshold  # line 181\n",
			0, sec(10), ms(500)),
		{Tool: "write", Text: "init_cuda_graphs() can raise before line 181 runs. Move the attribute to the top of __init__.",
			Input: []KV{{"file_path", "/home/dev/eagle3-spec/patches/eagle_worker_v2_init_order.patch"}, {"content", "--- a/python/sglang/srt/speculative/eagle_worker_v2.py\n+++ b/python/sglang/srt/speculative/eagle_worker_v2.py\n@@ -161,2 +161,3 @@\n     def __init__(self, server_args, gpu_id, tp_rank, target_worker):\n+        self.spec_disable_batch_threshold = server_args.speculative_disable_batch_threshold\n         self.server_args = server_args\n"}},
			Think: sec(34), Duration: ms(100), Tokens: 420},
		bash("", "scp patches/eagle_worker_v2_init_order.patch "+host+":/tmp/", "Copy patch", "", 0, sec(4), sec(1)),
		bash("", ssh("cd /root/sglang && git apply /tmp/eagle_worker_v2_init_order.patch"), "Apply patch", "", 0, sec(3), ms(300)),
		bash("", ssh("pkill -f sglang.launch_server; sleep 5; cd /root && SGLANG_ENABLE_SPEC_V2=True nohup "+py+"-m sglang.launch_server --model-path /models/Kimi-K2.5-INT4 --speculative-algorithm EAGLE3 --speculative-draft-model-path /root/eagle3-draft --speculative-eagle-topk 1 --speculative-num-steps 2 --tp 8 --port 30000 > /tmp/sglang_specv2.log 2>&1 &"),
			"Restart spec_v2 server", "", 0, sec(6), sec(7)),
		bash("", ssh(`sleep 420; curl -s localhost:30000/generate -d '"'"'{"text": "Hello", "sampling_params": {"max_new_tokens": 16}}'"'"'`), "Smoke test",
			`{"text":" I'm a large language model. How can I help you today?","meta_info":{"id":"4f1c","finish_reason":{"type":"length","length":16},"prompt_tokens":2,"completion_tokens":16}}`, 0, sec(5), sec(423)),
		bash("", ssh("ls /tmp/benchmark_parallel.py"), "Check parallel benchmark script", "/tmp/benchmark_parallel.py\n", 0, sec(5), ms(500)),
		{Tool: "todo", Input: []KV{{"todos", []obj{
			{{"content", "Fix EAGLEWorkerV2 init order"}, {"status", "completed"}, {"activeForm", "Fixing EAGLEWorkerV2 init order"}},
			{{"content", "Restart server with spec_v2 + topk=1"}, {"status", "completed"}, {"activeForm", "Restarting server"}},
			{{"content", "Benchmark C=1 and the concurrency sweep"}, {"status", "in_progress"}, {"activeForm", "Benchmarking"}},
		}}}, Think: sec(4), Duration: ms(30), Tokens: 120},
		bash("Good, script exists. Quick check at concurrency 1 before the full sweep.", parallel("--concurrency 1 --num-requests 5 --max-tokens 200"),
			"Benchmark spec_v2 at C=1", parallelUsage+"benchmark_parallel.py: error: unrecognized arguments: --num-requests 5\n", 2, sec(8), ms(1500)),
		bash("", parallel("--concurrency 1 --requests-per-level 5 --max-tokens 200"), "Benchmark spec_v2 at C=1",
			"Server: http://localhost:30000  max_tokens=200  warmup_requests=2\n=== Concurrency 1 ===\nRequests: 5/5 ok, wall time 11.52s\nThroughput: 86.8 tok/s (1000 tokens)\nLatency: mean 2.30s, p50 2.29s, p99 2.41s\nTTFT: mean 61.2 ms\n",
			0, sec(6), sec(14)),
		bash("86.8 tok/s at C=1, still below the 92.7 tok/s baseline but far better than topk=4. Now the full sweep.",
			parallel("--concurrency 1 2 4 8 16 32 64 --requests-per-level 20 --max-tokens 200"), "Concurrency sweep", sweep, 0, sec(12), sec(312)),
		bash("", ssh(`grep -n "error:" /tmp/sglang_specv2.log | tail -5`), "Look for errors in server log",
			"88:[2026-03-09 17:02:14] error: client disconnected before response was sent (request 9c1e)\n131:[2026-03-09 17:05:40] error: client disconnected before response was sent (request 1d07)\n", 0, sec(9), ms(300)),
		{Tool: "bash", Input: []KV{{"command", ssh("grep -c Traceback /tmp/sglang_specv2.log")}, {"description", "Check for new crashes"}},
			NoMatch: true, Output: "0\n", Think: sec(4), Duration: ms(300), Tokens: 30},
		{Tool: "grep", Input: []KV{{"pattern", "spec_disable_batch_threshold"}, {"path", "/home/dev/eagle3-spec/notes"}}, NoMatch: true, Think: sec(5), Duration: ms(100), Tokens: 30},
	}
	return s
}
