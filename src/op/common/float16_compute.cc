#include "float16_compute.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "braid/base/convert.h"
#include "braid/storage/storage.h"

namespace braid::op::detail {
namespace {

bool is_16bit(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

bool any_16bit(std::initializer_list<const std::vector<TBlob>*> lists) {
  for (const auto* list : lists)
    for (const TBlob& b : *list)
      if (is_16bit(b.dtype)) return true;
  return false;
}

void convert(const TBlob& from, const TBlob& to, Context ctx, const char* op) {
#if BRAID_CUDA_KERNELS
  if (ctx.dev_type == DeviceType::GPU) return convert_gpu(from, to, op);
#endif
  convert_elements(from.dptr, from.dtype, to.dptr, to.dtype, from.size());
}

// The float32 copies of one call's 16-bit arrays, one per distinct array (an output written in
// place over an input shares the input's copy); given back to the pool at the end of the call.
// On a GPU the kernels queued on the copies run after the call returns: a block given back is
// only handed out again to work queued after it on the same stream, or waiting for it.
class Float32Copies {
 public:
  Float32Copies(Context ctx, const char* op) : ctx_(ctx), op_(op) {}
  ~Float32Copies() {
    for (const StorageHandle& h : held_) Storage::get().free(h);
  }
  Float32Copies(const Float32Copies&) = delete;
  Float32Copies& operator=(const Float32Copies&) = delete;

  /// The array the kernel sees in place of `b`: `b` itself unless it is 16-bit; with `load`,
  /// holding b's values.
  TBlob operator()(const TBlob& b, bool load) {
    if (!is_16bit(b.dtype) || b.dptr == nullptr) return b;
    for (const auto& [original, copy] : copies_)
      if (original.dptr == b.dptr && original.shape == b.shape) return copy;
    const StorageHandle h = Storage::get().alloc(static_cast<size_t>(b.size()) * sizeof(float), ctx_);
    held_.push_back(h);
    TBlob copy{h.ptr, b.shape, DType::Float32};
    if (load) convert(b, copy, ctx_, op_);
    copies_.emplace_back(b, copy);
    return copy;
  }
  std::vector<TBlob> operator()(const std::vector<TBlob>& blobs, bool load) {
    std::vector<TBlob> out;
    for (const TBlob& b : blobs) out.push_back((*this)(b, load));
    return out;
  }
  /// Rounds the kernel's result back into `b` (nothing when `b` is not 16-bit).
  void store(const TBlob& b) {
    if (!is_16bit(b.dtype) || b.dptr == nullptr) return;
    for (const auto& [original, copy] : copies_)
      if (original.dptr == b.dptr && original.shape == b.shape) return convert(copy, b, ctx_, op_);
  }

 private:
  Context ctx_;
  const char* op_;
  std::vector<std::pair<TBlob, TBlob>> copies_;
  std::vector<StorageHandle> held_;
};

void prepare(Context ctx, const char* op) {
#if BRAID_CUDA_KERNELS
  if (ctx.dev_type == DeviceType::GPU) refuse_graph_capture(op);
#endif
}

ForwardKernel in_float32(const OpDef& def, ForwardKernel inner) {
  return [inner = std::move(inner), name = def.name, mutates_aux = def.mutates_aux, mutated = def.mutate_inputs](
             const OpContext& oc, const std::any& param, const ForwardArgs& a) {
    if (!any_16bit({&a.inputs, &a.outputs, &a.aux})) return inner(oc, param, a);
    prepare(oc.ctx, name.c_str());
    Float32Copies copies(oc.ctx, name.c_str());
    ForwardArgs f{copies(a.inputs, true), {}, a.req, copies(a.aux, true)};
    for (size_t i = 0; i < a.outputs.size(); ++i) f.outputs.push_back(copies(a.outputs[i], a.req[i] == OpReq::Add));
    inner(oc, param, f);
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (a.req[i] != OpReq::Null) copies.store(a.outputs[i]);
    if (mutates_aux && oc.is_train)
      for (const TBlob& b : a.aux) copies.store(b);
    for (int i : mutated(param)) copies.store(a.inputs[static_cast<size_t>(i)]);
  };
}

BackwardKernel in_float32(const OpDef& def, BackwardKernel inner) {
  return
      [inner = std::move(inner), name = def.name](const OpContext& oc, const std::any& param, const BackwardArgs& a) {
        if (!any_16bit({&a.out_grads, &a.inputs, &a.outputs, &a.aux, &a.in_grads})) return inner(oc, param, a);
        prepare(oc.ctx, name.c_str());
        Float32Copies copies(oc.ctx, name.c_str());
        BackwardArgs b{
            copies(a.out_grads, true), copies(a.inputs, true), copies(a.outputs, true), copies(a.aux, true), {}, a.req};
        for (size_t i = 0; i < a.in_grads.size(); ++i)
          b.in_grads.push_back(copies(a.in_grads[i], a.req[i] == OpReq::Add));
        inner(oc, param, b);
        for (size_t i = 0; i < a.in_grads.size(); ++i)
          if (a.req[i] != OpReq::Null) copies.store(a.in_grads[i]);
      };
}

// Operators whose kernels take 16-bit arrays as they are on every device, known by name: the
// multi-precision updates and the finiteness checks (other kernels say so themselves:
// Kernels::takes_16bit).
bool handles_16bit_by_name(const std::string& op) {
  return op == "all_finite" || op == "multi_all_finite" || op.rfind("mp_", 0) == 0 ||
         op.find("_mp_") != std::string::npos;
}

void wrap(const OpDef& def, Kernels& k) {
  if (k.takes_16bit || handles_16bit_by_name(def.name)) return;
  if (k.forward) k.forward = in_float32(def, std::move(k.forward));
  if (k.backward) k.backward = in_float32(def, std::move(k.backward));
}

}  // namespace

void compute_16bit_in_float32(Registry& r) {
  std::set<const OpDef*> done;  // aliases name the same definition
  for (const std::string& name : r.names()) {
    OpDef& def = r.at(name);
    if (!done.insert(&def).second) continue;
    wrap(def, def.cpu);
    wrap(def, def.gpu);
  }
}

}  // namespace braid::op::detail
