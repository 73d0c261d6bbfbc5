// CUDA kernels of the creation and copy operators of init.cc: _zeros, _ones, _full, _arange
// (every dtype), _copyto (alias _copy, identity) and Cast between any two dtypes, forward and backward;
// and reset_arrays (reset_arrays.cc), which zeros its inputs.
#include <optional>

#include "amp_cast.h"
#include "braid/base/convert.h"
#include "init_param.h"
#include "op/common/cuda_dtype.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/common/float16_compute.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

// ---- fills: the value converted once on the host, its bits repeated on the device ----

template <class Bits>
__global__ void fill_bits(Bits* out, Bits value, int64_t n) {
  BRAID_GRID_STRIDE_LOOP(i, n) { out[i] = value; }
}

template <class Bits>
void fill_as(const TBlob& out, const void* value) {
  Bits v;
  memcpy(&v, value, sizeof v);
  const int64_t n = out.size();
  fill_bits<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(static_cast<Bits*>(out.dptr), v, n);
}

// Every output element set to `v` as the CPU's fill converts it (convert_elements from double).
void fill_gpu(const TBlob& out, double v, const char* op) {
  if (out.size() == 0) return;
  unsigned char bits[8];
  convert_elements(&v, DType::Float64, bits, out.dtype, 1);
  switch (dtype_size(out.dtype)) {
    case 1:
      fill_as<uint8_t>(out, bits);
      break;
    case 2:
      fill_as<uint16_t>(out, bits);
      break;
    case 4:
      fill_as<uint32_t>(out, bits);
      break;
    default:
      fill_as<uint64_t>(out, bits);
      break;
  }
  cuda::finish(op);
}

// `fixed` is the value of _zeros and _ones; _full's is its attribute.
Kernels fill_kernels(const std::string& name, std::optional<double> fixed) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [name, fixed](const OpContext&, const std::any& p, const ForwardArgs& a) {
    fill_gpu(a.outputs[0], fixed ? *fixed : param<InitParam>(p).value, name.c_str());
  };
  return k;
}

// ---- _arange ----

template <class T>
__global__ void arange_kernel(T* out, int64_t n, ArangeParam p) {
  BRAID_GRID_STRIDE_LOOP(i, n) { out[i] = p.at<T>(i); }
}

Kernels arange_kernels() {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const int64_t n = a.outputs[0].size();
    BRAID_TYPE_SWITCH(a.outputs[0].dtype, T, "_arange", {
      arange_kernel<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(a.outputs[0].ptr<T>(), n,
                                                                                        param<ArangeParam>(pa));
    });
    cuda::finish("_arange");
  };
  return k;
}

// ---- conversions, as convert_elements does them: 16-bit floats through float, bool as 0/1 ----

template <class S, class D>
__global__ void convert_kernel(const S* in, D* out, int64_t n) {
  BRAID_GRID_STRIDE_LOOP(i, n) { out[i] = cuda::store_value<D>(cuda::load_value(in[i])); }
}

bool on_device(const void* p) {
  cudaPointerAttributes attrs;
  return cudaPointerGetAttributes(&attrs, p) == cudaSuccess && attrs.type == cudaMemoryTypeDevice;
}

}  // namespace

// A symbolic executor copying a value between a CPU and a GPU context runs _copyto on the GPU
// with one side in host memory: a plain copy handles it (cudaMemcpyDefault), a conversion not.
void convert_gpu(const TBlob& from, const TBlob& to, const char* op) {
  const int64_t n = from.size();
  if (n == 0) return;
  if (from.dtype == to.dtype) {
    if (from.dptr != to.dptr)
      cudaMemcpyAsync(to.dptr, from.dptr, static_cast<size_t>(n) * dtype_size(from.dtype), cudaMemcpyDefault,
                      cuda::stream());
  } else {
    BRAID_CHECK(on_device(from.dptr) && on_device(to.dptr), "operator ", op, ": converting ", dtype_name(from.dtype),
                " to ", dtype_name(to.dtype), " between a CPU and a GPU is not supported; convert on the CPU");
    cuda::with_device_type(from.dtype, op, [&](auto s) {
      cuda::with_device_type(to.dtype, op, [&](auto d) {
        using S = decltype(s);
        using D = decltype(d);
        convert_kernel<S, D><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            static_cast<const S*>(from.dptr), static_cast<D*>(to.dptr), n);
      });
    });
  }
  cuda::finish(op);
}

namespace {

template <class T>
__global__ void add_one(T* d, int64_t n) {
  BRAID_GRID_STRIDE_LOOP(i, n) { d[i] = cuda::store_value<T>(cuda::load_value(d[i]) + 1); }
}

// d += 1 for every element (make_loss's gradient added).
void add_one_gpu(const TBlob& d, const char* op) {
  const int64_t n = d.size();
  if (n == 0) return;
  cuda::with_device_type(d.dtype, op, [&](auto t) {
    using T = decltype(t);
    add_one<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(static_cast<T*>(d.dptr), n);
  });
  cuda::finish(op);
}

// d += g, g converted to d's dtype first as the CPU does (16-bit floats added through float).
template <class S, class D>
__global__ void accumulate(const S* g, D* d, int64_t n) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const D converted = cuda::store_value<D>(cuda::load_value(g[i]));
    d[i] = cuda::store_value<D>(cuda::load_value(d[i]) + cuda::load_value(converted));
  }
}

Kernels convert_kernels(const std::string& name) {
  Kernels k;
  k.takes_16bit = true;
  k.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) {
    convert_gpu(a.inputs[0], a.outputs[0], name.c_str());
  };
  k.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) {
    const TBlob &g = a.out_grads[0], &d = a.in_grads[0];
    if (a.req[0] == OpReq::Null) return;
    if (a.req[0] == OpReq::Write) return convert_gpu(g, d, name.c_str());
    BRAID_CHECK(on_device(g.dptr) && on_device(d.dptr), name,
                ": accumulating a gradient between a CPU and a GPU is not supported");
    const int64_t n = d.size();
    cuda::with_device_type(g.dtype, name.c_str(), [&](auto gs) {
      cuda::with_device_type(d.dtype, name.c_str(), [&](auto ds) {
        using S = decltype(gs);
        using D = decltype(ds);
        accumulate<S, D><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
            static_cast<const S*>(g.dptr), static_cast<D*>(d.dptr), n);
      });
    });
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_init_gpu_kernels(Registry& r) {
  r.at("_zeros").gpu = fill_kernels("_zeros", 0.0);
  r.at("_ones").gpu = fill_kernels("_ones", 1.0);
  r.at("_full").gpu = fill_kernels("_full", std::nullopt);
  r.at("_arange").gpu = arange_kernels();
  r.at("_copyto").gpu = convert_kernels("_copyto");
  r.at("Cast").gpu = convert_kernels("Cast");
  r.at("amp_cast").gpu = convert_kernels("amp_cast");
  Kernels& loss = r.at("make_loss").gpu;  // passes data through; its gradient is ones
  loss.forward = r.at("make_loss").cpu.forward;
  loss.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Write) fill_gpu(a.in_grads[0], 1.0, "make_loss");
    if (a.req[0] == OpReq::Add) add_one_gpu(a.in_grads[0], "make_loss");
  };
  r.at("amp_multicast").gpu = pairwise(convert_kernels("amp_multicast"));
  Kernels& reset = r.at("reset_arrays").gpu;  // zeros its inputs in place, any dtype
  reset.takes_16bit = true;
  reset.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    for (const TBlob& b : a.inputs) fill_zero_gpu(b);
  };
}

}  // namespace braid::op::detail
