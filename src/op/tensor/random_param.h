#pragma once
// Internal: the parameter of the sampling ops (_random_uniform, _random_normal, _random_randint)
// and its checks, shared by their CPU (random.cc) and GPU (random.cu) kernels.
#include <string>

#include "braid/base/dtype.h"
#include "braid/base/error.h"
#include "braid/base/shape.h"
#include "braid/op/registry.h"

namespace braid::op::detail {

struct SampleParam {
  Shape shape;
  DType dtype = DType::Float32;
  double a = 0, b = 1;  // low/high or loc/scale
};

/// Throws naming the op where its parameters describe no distribution.
inline void check_sample_param(const std::string& op, const SampleParam& p) {
  if (op == "_random_normal")
    BRAID_CHECK(p.b > 0, "operator _random_normal: scale must be positive, got ", p.b);
  else
    BRAID_CHECK(p.a < p.b, "operator ", op, ": low (", p.a, ") must be below high (", p.b, ")");
}

/// The samplers of random_samplers.cc, registered by register_random_ops.
void register_random_sampler_ops(Registry& r);

}  // namespace braid::op::detail
