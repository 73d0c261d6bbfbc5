#pragma once
/// Random arrays under one global seed (MXNet's mx.random). Sampling runs on the engine in push
/// order, so a seed reproduces the same numbers with the naive and the threaded engine.
#include <cstdint>

#include "braid/ndarray/ndarray.h"

namespace braid::nd {

/// Reseeds the generator of every context (MXNet's mx.random.seed).
void seed(uint64_t seed);
/// Reseeds only the generator of `ctx`, with a stream that depends on the device type but not
/// on the device id (MXNet's mx.random.seed(s, ctx=...)).
void seed(uint64_t seed, Context ctx);

NDArray random_uniform(double low, double high, const Shape& shape, Context ctx = cpu(), DType dtype = DType::Float32);
NDArray random_normal(double loc, double scale, const Shape& shape, Context ctx = cpu(), DType dtype = DType::Float32);
/// Integers in [low, high).
NDArray random_randint(int64_t low, int64_t high, const Shape& shape, Context ctx = cpu(), DType dtype = DType::Int32);

}  // namespace braid::nd
