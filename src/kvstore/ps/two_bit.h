#pragma once
// Internal: MXNet's 2-bit gradient compression (set_gradient_compression({type: 2bit,
// threshold: t})). The worker adds each gradient to the key's residual; where the residual
// reaches +t it sends code 11 (+t) and subtracts t, where it reaches -t it sends 10 (-t) and adds
// t, else 00 (0). Sixteen codes fill one float32's four bytes, the first value in the two highest
// bits of the first byte, exactly MXNet's layout, so that the server decodes what MXNet sends.
#include <cstdint>

namespace braid::kv::ps::two_bit {

/// Bytes of the codes of `n` values: four per sixteen values, rounded up.
inline int64_t code_bytes(int64_t n) { return (n + 15) / 16 * 4; }

/// residual += grad; writes the codes of `n` values into `codes` (code_bytes(n) bytes) and takes
/// what they carry off the residual.
void quantize(const float* grad, float* residual, int64_t n, float threshold, uint8_t* codes);
/// out[i] += the value coded for element i (+threshold, -threshold or 0).
void add_decoded(const uint8_t* codes, int64_t n, float threshold, float* out);

}  // namespace braid::kv::ps::two_bit
