#include "dnnl_util.h"

#include <chrono>
#include <cstdlib>

#include "braid/base/error.h"

namespace braid::op::detail {
namespace {

// Grow-only per-thread buffers, one per argument slot, for reordered tensors.
class Scratch {
 public:
  void* get(size_t slot, size_t bytes) {
    if (slot >= bufs_.size()) bufs_.resize(slot + 1);
    auto& b = bufs_[slot];
    if (b.size < bytes) {
      size_t rounded = (bytes + 63) / 64 * 64;
      b.ptr.reset(static_cast<char*>(std::aligned_alloc(64, rounded)));
      BRAID_CHECK(b.ptr, "out of memory allocating ", rounded, " bytes of oneDNN scratch");
      b.size = rounded;
    }
    return b.ptr.get();
  }

 private:
  struct Buf {
    std::unique_ptr<char, decltype(&std::free)> ptr{nullptr, &std::free};
    size_t size = 0;
  };
  std::vector<Buf> bufs_;
};

thread_local Scratch t_scratch;

}  // namespace

dnnl::engine& dnnl_engine() {
  static auto* eng = new dnnl::engine(dnnl::engine::kind::cpu, 0);  // never destroyed: kernels may run during exit
  return *eng;
}

dnnl::stream& dnnl_stream() {
  thread_local dnnl::stream s(dnnl_engine());
  return s;
}

dnnl::memory::desc plain_md(const dnnl::memory::dims& dims, dnnl::memory::format_tag tag) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag);
}

DnnlExec::DnnlExec(dnnl::primitive prim, std::vector<Arg> args)
    : prim_(std::move(prim)), args_(std::move(args)) {
  for (const auto& a : args_) {
    if (a.user == a.inner) {
      reorders_.emplace_back(false, dnnl::reorder());
      continue;
    }
    auto& eng = dnnl_engine();
    auto pd = a.output ? dnnl::reorder::primitive_desc(eng, a.inner, eng, a.user)
                       : dnnl::reorder::primitive_desc(eng, a.user, eng, a.inner);
    reorders_.emplace_back(true, dnnl::reorder(pd));
  }
}

void DnnlExec::run(const std::vector<void*>& ptrs) const {
  auto& eng = dnnl_engine();
  auto& s = dnnl_stream();
  std::unordered_map<int, dnnl::memory> margs;
  std::vector<std::pair<size_t, dnnl::memory>> back;  // outputs to reorder to the user format
  for (size_t i = 0; i < args_.size(); ++i) {
    const Arg& a = args_[i];
    dnnl::memory user(a.user, eng, ptrs[i]);
    if (!reorders_[i].first) {
      margs.emplace(a.id, user);
      continue;
    }
    dnnl::memory inner(a.inner, eng, t_scratch.get(i, a.inner.get_size()));
    if (a.output) {
      back.emplace_back(i, user);
    } else {
      reorders_[i].second.execute(s, user, inner);
    }
    margs.emplace(a.id, inner);
  }
  prim_.execute(s, margs);
  for (auto& [i, user] : back) reorders_[i].second.execute(s, margs.at(args_[i].id), user);
  s.wait();
}

DnnlExec fastest(std::vector<DnnlExec> candidates, const char* op) {
  BRAID_CHECK(!candidates.empty(), "operator ", op, ": oneDNN has no implementation for this geometry");
  if (candidates.size() == 1) return std::move(candidates[0]);
  std::vector<std::vector<float>> bufs;
  std::vector<void*> ptrs;
  for (const auto& a : candidates[0].args())
    ptrs.push_back(bufs.emplace_back(a.user.get_size() / sizeof(float) + 1).data());
  size_t best = 0;
  double best_time = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    candidates[i].run(ptrs);  // warm-up: first touch of buffers and scratch
    double t = 0;
    for (int rep = 0; rep < 3; ++rep) {  // the minimum of a few runs resists noise from other load
      auto t0 = std::chrono::steady_clock::now();
      candidates[i].run(ptrs);
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      t = rep == 0 ? dt : std::min(t, dt);
    }
    if (i == 0 || t < best_time) {
      best = i;
      best_time = t;
    }
  }
  return std::move(candidates[best]);
}

}  // namespace braid::op::detail
