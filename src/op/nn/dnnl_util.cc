#include "dnnl_util.h"

#include <omp.h>

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

thread_local Scratch t_scratch;     // reordered arguments, one slot per argument
thread_local Scratch t_scratchpad;  // the primitives' own temporary memory

}  // namespace

dnnl::engine& dnnl_engine() {
  static auto* eng = new dnnl::engine(dnnl::engine::kind::cpu, 0);  // never destroyed: kernels may run during exit
  return *eng;
}

dnnl::stream& dnnl_stream() {
  thread_local dnnl::stream s(dnnl_engine());
  return s;
}

const dnnl::primitive_attr& user_scratchpad() {
  static const auto* attr = [] {
    auto* a = new dnnl::primitive_attr();  // never destroyed: kernels may run during exit
    a->set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }();
  return *attr;
}

namespace {

// oneDNN creates its global state (primitive cache, CPU feature tables, JIT buffers) lazily as
// function-local statics, destroyed at exit in reverse order of creation. The engine drains its
// pending operations in its own static destructor; if oneDNN's statics were created after the
// engine (at the first kernel), they would be gone while that drain still runs kernels. Creating
// them here, during static initialisation and so before the engine, makes them outlive it.
// On one OpenMP thread: a team here would give the main thread a pool of OpenMP threads of its
// own, and with more OpenMP threads than cores libgomp stops spinning between parallel regions:
// every region of the engine's kernels would then wait for its threads to be woken (150 us per
// region measured on a 2-core VM, a quarter of LeNet's training time).
[[maybe_unused]] const bool g_dnnl_globals_created = [] {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  auto md = plain_md({1}, dnnl::memory::format_tag::a);
  dnnl::eltwise_forward::primitive_desc pd({dnnl::prop_kind::forward_training, dnnl::algorithm::eltwise_relu, md, 0.0f},
                                           dnnl_engine());
  float value = 1.0f;
  dnnl::memory mem(md, dnnl_engine(), &value);
  dnnl::eltwise_forward(pd).execute(dnnl_stream(), {{DNNL_ARG_SRC, mem}, {DNNL_ARG_DST, mem}});
  dnnl_stream().wait();
  omp_set_num_threads(threads);
  return dnnl::get_primitive_cache_capacity() >= 0;
}();

}  // namespace

void execute(const dnnl::primitive& prim, std::unordered_map<int, dnnl::memory>& args) {
  const dnnl_memory_desc_t* md = dnnl_primitive_desc_query_md(prim.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
  if (md != nullptr && md->ndims > 0) {
    dnnl::memory::desc desc(*md);
    args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(desc, dnnl_engine(), t_scratchpad.get(0, desc.get_size()));
  }
  prim.execute(dnnl_stream(), args);
}

dnnl::memory::desc plain_md(const dnnl::memory::dims& dims, dnnl::memory::format_tag tag) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag);
}

DnnlExec::DnnlExec(dnnl::primitive prim, std::vector<Arg> args) : prim_(std::move(prim)), args_(std::move(args)) {
  for (const auto& a : args_) {
    if (a.user == a.inner) {
      reorders_.emplace_back(false, dnnl::reorder());
      continue;
    }
    auto& eng = dnnl_engine();
    auto pd = a.output ? dnnl::reorder::primitive_desc(eng, a.inner, eng, a.user, user_scratchpad())
                       : dnnl::reorder::primitive_desc(eng, a.user, eng, a.inner, user_scratchpad());
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
      std::unordered_map<int, dnnl::memory> rargs{{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}};
      execute(reorders_[i].second, rargs);
    }
    margs.emplace(a.id, inner);
  }
  execute(prim_, margs);
  for (auto& [i, user] : back) {
    std::unordered_map<int, dnnl::memory> rargs{{DNNL_ARG_FROM, margs.at(args_[i].id)}, {DNNL_ARG_TO, user}};
    execute(reorders_[i].second, rargs);
  }
  s.wait();
}

}  // namespace braid::op::detail
