// The line protocol every peer worker speaks with bench/run.py, one request a line on stdin and one
// reply a line on stdout, so the driver can keep one process per peer alive and alternate peers
// sample by sample:
//
//   info                                   -> one line: versions, kernels, threads
//   prepare <workload> <dtype> <dims...> <output file>
//                                          -> ok | unsupported <why> | error <message>
//      (makes the inputs, computes once, writes every output row-major to the file for the check,
//       then settles: PreparedCase::settle)
//   time <min seconds>                     -> <seconds per call> <calls>
//      (repeats the prepared computation until min seconds passed: one sample)
//   release                                -> ok   (frees the inputs)
//   quit
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bench {

struct CaseRequest {
  std::string workload;  // W1, W3a, W4sum0, W7, W8mlp, ... (bench/driver/workloads.py)
  std::string dtype;     // f32 or f64
  std::vector<std::int64_t> dims;
};

struct PreparedCase {
  std::function<void()> run;                          // one evaluation: what is timed
  std::function<void(std::FILE*)> write_outputs;      // after run: each output, row-major
  // Optional, after the outputs are written: brings the computation to its steady state before
  // the first sample (tensorjit: its second tier, docs/codegen.md "Tiers").
  std::function<void()> settle;
};

// Returns nullopt when this peer does not implement the case; may set `why` to say so.
using Preparer = std::function<std::optional<PreparedCase>(const CaseRequest& request, std::string& why)>;

// Serves requests until quit or end of input; returns the process exit code.
int serve(const std::string& info, const Preparer& prepare);

}  // namespace bench
