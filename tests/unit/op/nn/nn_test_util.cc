#include <gtest/gtest.h>

#include "unit/op/nn/nn_test_util.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "braid/ndarray/invoke.h"
#include "braid/op/registry.h"

namespace braid::test::nn_ops {
namespace {

// Host buffers of one dtype holding double values.
struct Buffer {
  DType dtype;
  std::vector<float> f;
  std::vector<double> d;
  Buffer(DType t, const Values& v) : dtype(t) {
    if (t == DType::Float32)
      f.assign(v.begin(), v.end());
    else
      d = v;
  }
  op::TBlob blob(const Shape& s) {
    return {dtype == DType::Float32 ? static_cast<void*>(f.data()) : static_cast<void*>(d.data()), s, dtype};
  }
  Values values() const { return dtype == DType::Float32 ? Values(f.begin(), f.end()) : d; }
};

std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

// Finishes every pushed operation before the process exits: an operation still running while
// static destructors run can use libraries (oneDNN's primitive cache) already torn down and hang.
class WaitAllAtEnd : public ::testing::Environment {
 public:
  void TearDown() override {
    try {
      nd::waitall();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "a pushed operation failed: " << e.what();
    }
  }
};
[[maybe_unused]] ::testing::Environment* const kWaitAllAtEnd = ::testing::AddGlobalTestEnvironment(new WaitAllAtEnd);

}  // namespace

OpResult run_op(const OpCall& call) {
  const op::OpDef& def = op::Registry::get().find(call.op);
  std::any param = def.parse(call.attrs);
  const size_t nargs = def.list_arguments(param).size(), naux = def.list_aux(param).size();
  BRAID_CHECK(call.shapes.size() == nargs + naux && call.values.size() == call.shapes.size(), "run_op(", call.op,
              "): expected ", nargs + naux, " inputs");
  std::vector<Shape> in(call.shapes.begin(), call.shapes.begin() + static_cast<long>(nargs));
  std::vector<Shape> aux(call.shapes.begin() + static_cast<long>(nargs), call.shapes.end());
  OpResult r;
  r.out_shapes.resize(static_cast<size_t>(def.num_outputs(param)));
  BRAID_CHECK(def.infer_shape(param, in, r.out_shapes, aux), "run_op(", call.op, "): shapes not inferred");
  for (size_t i = 0; i < nargs; ++i)
    BRAID_CHECK(in[i] == call.shapes[i], "run_op(", call.op, "): input ", i, " needs shape ", in[i]);

  std::vector<Buffer> ins, outs;
  for (size_t i = 0; i < call.values.size(); ++i) ins.emplace_back(call.dtype, call.values[i]);
  op::ForwardArgs fa;
  for (size_t i = 0; i < ins.size(); ++i) (i < nargs ? fa.inputs : fa.aux).push_back(ins[i].blob(call.shapes[i]));
  for (const auto& s : r.out_shapes) outs.emplace_back(call.dtype, Values(static_cast<size_t>(s.size()), 0.0));
  for (size_t k = 0; k < outs.size(); ++k) fa.outputs.push_back(outs[k].blob(r.out_shapes[k]));
  fa.req.assign(outs.size(), op::OpReq::Write);
  std::mt19937_64 rng(call.seed);
  op::OpContext ctx{call.is_train, cpu(), &rng};
  def.cpu.forward(ctx, param, fa);
  for (auto& o : outs) r.outputs.push_back(o.values());
  for (size_t i = nargs; i < ins.size(); ++i) r.aux.push_back(ins[i].values());
  if (call.out_grads.empty()) return r;

  BRAID_CHECK(def.cpu.backward, "run_op(", call.op, "): no backward");
  op::BackwardArgs ba;
  ba.inputs = fa.inputs;
  ba.aux = fa.aux;
  ba.outputs = fa.outputs;
  std::vector<Buffer> ogs, grads;
  for (size_t k = 0; k < outs.size(); ++k)
    ogs.emplace_back(call.dtype, k < call.out_grads.size() ? call.out_grads[k] : Values{});
  for (size_t k = 0; k < outs.size(); ++k)
    ba.out_grads.push_back(ogs[k].values().empty() ? op::TBlob{nullptr, r.out_shapes[k], call.dtype}
                                                   : ogs[k].blob(r.out_shapes[k]));
  for (size_t i = 0; i < nargs; ++i) {
    grads.emplace_back(call.dtype, Values(static_cast<size_t>(call.shapes[i].size()), 0.5));
    ba.in_grads.push_back(grads[i].blob(call.shapes[i]));
  }
  ba.req = call.grad_req.empty() ? std::vector<op::OpReq>(nargs, op::OpReq::Write) : call.grad_req;
  std::mt19937_64 rng2(call.seed);
  op::OpContext ctx2{call.is_train, cpu(), &rng2};
  def.cpu.backward(ctx2, param, ba);
  for (auto& g : grads) r.grads.push_back(g.values());
  return r;
}

NDArray make_array(const Shape& shape, const Values& values, DType dtype) {
  NDArray a(shape, cpu(), dtype);
  a.wait_to_write();
  BRAID_TYPE_SWITCH(dtype, T, "make_array", {
    for (size_t i = 0; i < values.size(); ++i) a.data<T>()[i] = static_cast<T>(values[i]);
  });
  return a;
}

Values values_of(const NDArray& a) { return a.to_vector<double>(); }

::testing::AssertionResult all_close(const Values& actual, const Values& expected, double rtol, double atol) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << " vs expected " << expected.size();
  std::ostringstream bad;
  int n_bad = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double tol = atol + rtol * std::abs(expected[i]);
    if (!(std::abs(actual[i] - expected[i]) <= tol)) {
      if (n_bad++ < 5) bad << " [" << i << "] " << actual[i] << " vs " << expected[i] << ";";
    }
  }
  if (n_bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << n_bad << " of " << actual.size() << " differ:" << bad.str();
}

std::optional<std::map<std::string, Values>> run_torch(const std::string& script,
                                                       const std::map<std::string, std::pair<Shape, Values>>& arrays) {
  static const bool has_torch = std::system("/usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1") == 0;
  if (!has_torch) return std::nullopt;
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "braid_torch_XXXXXX").string();
  BRAID_CHECK(mkdtemp(tmpl.data()) != nullptr, "cannot create a temporary folder");
  const fs::path dir(tmpl);
  for (const auto& [name, arr] : arrays) {
    std::ofstream(dir / (name + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(arr.second.data()), static_cast<std::streamsize>(arr.second.size() * 8));
    std::ofstream shape(dir / (name + ".shape"));
    for (auto d : arr.first.dims()) shape << d << ' ';
  }
  std::ofstream(dir / "script.py") << R"(import os, sys
import numpy as np
import torch
torch.set_default_dtype(torch.float64)
_dir = sys.argv[1]
def load(name):
    with open(os.path.join(_dir, name + '.shape')) as f:
        shape = [int(x) for x in f.read().split()]
    return np.fromfile(os.path.join(_dir, name + '.bin'), dtype=np.float64).reshape(shape)
def save(name, a):
    if isinstance(a, torch.Tensor):
        a = a.detach().cpu().double().numpy()
    np.asarray(a, dtype=np.float64).tofile(os.path.join(_dir, 'out_' + name + '.bin'))
    with open(os.path.join(_dir, 'outputs'), 'a') as f:
        f.write(name + '\n')
)" << script;
  const std::string log = (dir / "log.txt").string();
  const int rc = std::system(("/usr/bin/python3 " + shell_quote((dir / "script.py").string()) + " " +
                              shell_quote(dir.string()) + " >" + shell_quote(log) + " 2>&1")
                                 .c_str());
  std::stringstream out;
  out << std::ifstream(log).rdbuf();
  if (rc != 0) {
    fs::remove_all(dir);
    throw Error(cat("the PyTorch script failed:\n", out.str()));
  }
  std::map<std::string, Values> results;
  std::ifstream names(dir / "outputs");
  for (std::string name; std::getline(names, name);) {
    std::ifstream f(dir / ("out_" + name + ".bin"), std::ios::binary | std::ios::ate);
    Values v(static_cast<size_t>(f.tellg()) / 8);
    f.seekg(0);
    f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 8));
    results[name] = v;
  }
  fs::remove_all(dir);
  return results;
}

Values random_values(size_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Values v(n);
  for (auto& x : v) x = u(g);
  return v;
}

}  // namespace braid::test::nn_ops
