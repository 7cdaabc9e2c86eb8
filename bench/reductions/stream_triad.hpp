// STREAM's triad a[i] = b[i] + s * c[i]: the bandwidth limit a kernel is measured against.
#pragma once

#include <cstdint>

// Bytes moved per second by the triad over n doubles per array (three arrays: two read, one
// written; write-allocate traffic is not counted, as STREAM does not), median of `runs`.
double stream_triad_bytes_per_second(std::int64_t n, int runs);
