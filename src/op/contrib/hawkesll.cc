// contrib.hawkesll(mu, alpha, beta, state, lags, marks, valid_length, max_time): the log-likelihood
// of N sequences of marked events under a K-mark Hawkes process with exponential kernels, as
// MXNet's. Per sequence i, events j < valid_length[i] arrive at t += lags[i, j] with mark
// c = marks[i, j]; the intensity of mark c is mu[i, c] + alpha[c] beta[c] phi_c e^{-beta[c] d},
// d the time since mark c's last event and phi_c its state, which becomes 1 + phi_c e^{-beta[c] d}.
// The log-likelihood sums log intensity minus the compensators up to max_time[i]; the outputs are
// it (N,) and the states decayed to max_time (N, K), the input of the sequences' next stretch.
// Gradients: mu, alpha and beta (from both outputs); the state and the event data get zeros.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr const char* kHawkes = "_contrib_hawkesll";
enum Input { kMu, kAlpha, kBeta, kState, kLags, kMarks, kValidLength, kMaxTime };

struct Sizes {
  int64_t n, t, k;
};

Sizes sizes_of(const TBlob& mu, const TBlob& lags) { return {lags.shape[0], lags.shape[1], mu.shape[1]}; }

// Sequence i's marks as indices and its number of events, checked.
template <class T>
std::vector<int64_t> sequence_marks(const std::vector<TBlob>& in, const Sizes& s, int64_t i, int64_t& events) {
  const double valid = static_cast<double>(in[kValidLength].ptr<T>()[i]);
  BRAID_CHECK(valid >= 0 && valid <= static_cast<double>(s.t), "operator ", kHawkes, ": valid_length[", i,
              "] = ", valid, " is not within [0, ", s.t, "], the length of lags");
  events = static_cast<int64_t>(std::ceil(valid));
  std::vector<int64_t> marks(static_cast<size_t>(events));
  const TBlob& m = in[kMarks];
  BRAID_TYPE_SWITCH(m.dtype, M, kHawkes, {
    for (int64_t j = 0; j < events; ++j) marks[static_cast<size_t>(j)] = static_cast<int64_t>(m.ptr<M>()[i * s.t + j]);
  });
  for (int64_t j = 0; j < events; ++j)
    BRAID_CHECK(marks[static_cast<size_t>(j)] >= 0 && marks[static_cast<size_t>(j)] < s.k, "operator ", kHawkes,
                ": marks[", i, ", ", j, "] = ", marks[static_cast<size_t>(j)], " is not a mark in [0, ", s.k, ")");
  return marks;
}

// One sequence's pass over its events, the compensators up to max_time included: calls
// event(c, d, ed, phi) before each state update and end(m, d, ed, phi) for each mark at the end.
template <class T, class Event, class End>
void walk_sequence(const std::vector<TBlob>& in, const Sizes& s, int64_t i, std::vector<T>& phi, Event event, End end) {
  int64_t events = 0;
  const std::vector<int64_t> marks = sequence_marks<T>(in, s, i, events);
  const T *beta = in[kBeta].ptr<T>(), *lags = in[kLags].ptr<T>() + i * s.t;
  std::vector<T> last(static_cast<size_t>(s.k), T(0));
  T t = 0;
  for (int64_t j = 0; j < events; ++j) {
    const auto c = static_cast<size_t>(marks[static_cast<size_t>(j)]);
    t += lags[j];
    const T d = t - last[c], ed = std::exp(-beta[c] * d);
    event(c, d, ed, phi[c]);
    phi[c] = 1 + phi[c] * ed;
    last[c] = t;
  }
  const T max_time = in[kMaxTime].ptr<T>()[i];
  for (size_t m = 0; m < static_cast<size_t>(s.k); ++m) {
    const T d = max_time - last[m], ed = std::exp(-beta[m] * d);
    end(m, d, ed, phi[m]);
    phi[m] *= ed;
  }
}

template <class T>
std::vector<T> initial_state(const TBlob& state, const Sizes& s, int64_t i) {
  const T* p = state.ptr<T>() + i * s.k;
  return std::vector<T>(p, p + s.k);
}

void check_shapes(const std::vector<Shape>& in) {
  const Shape &mu = in[kMu], &lags = in[kLags];
  BRAID_CHECK(mu.ndim() == 2 && lags.ndim() == 2, "operator ", kHawkes, ": mu must be (N, K) and lags (N, T); got ", mu,
              " and ", lags);
  const int64_t n = lags[0], t = lags[1], k = mu[1];
  const std::pair<Input, Shape> expected[] = {
      {kMu, Shape({n, k})},    {kAlpha, Shape({k})},       {kBeta, Shape({k})},   {kState, Shape({n, k})},
      {kMarks, Shape({n, t})}, {kValidLength, Shape({n})}, {kMaxTime, Shape({n})}};
  const char* names[] = {"mu", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"};
  for (const auto& [input, shape] : expected)
    BRAID_CHECK(in[input] == shape, "operator ", kHawkes, ": ", names[input], " must have shape ", shape,
                " (N sequences of T events, K marks); got ", in[input]);
}

}  // namespace

void register_hawkesll_op(Registry& r) {
  OpDef d;
  d.name = kHawkes;
  d.doc = "Log-likelihood of marked event sequences under a multivariate Hawkes process with exponential kernels.";
  d.parse = no_params(kHawkes);
  d.list_arguments = args({"lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.list_outputs = args({"output", "out_state"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!all_known(in)) return false;
    check_shapes(in);
    merge_shape(out[0], Shape({in[kLags][0]}), kHawkes, "log-likelihood");
    merge_shape(out[1], in[kState], kHawkes, "state output");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    const DType marks = in[kMarks] == kDTypeUnknown ? DType::Int32 : in[kMarks];
    std::vector<DType> real(in);
    real.erase(real.begin() + kMarks);
    std::vector<DType> none;
    infer_same_type(kHawkes, real, out, none);
    real.insert(real.begin() + kMarks, marks);
    in = real;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const Sizes s = sizes_of(a.inputs[kMu], a.inputs[kLags]);
    BRAID_REAL_TYPE_SWITCH(a.inputs[kMu].dtype, T, kHawkes, {
      const T *mu = a.inputs[kMu].ptr<T>(), *alpha = a.inputs[kAlpha].ptr<T>(), *beta = a.inputs[kBeta].ptr<T>();
      std::vector<T> ll(static_cast<size_t>(s.n)), states(static_cast<size_t>(s.n * s.k));
      for (int64_t i = 0; i < s.n; ++i) {
        const T* mu_i = mu + i * s.k;
        std::vector<T> phi = initial_state<T>(a.inputs[kState], s, i);
        T sum = 0;
        walk_sequence<T>(
            a.inputs, s, i, phi,
            [&](size_t c, T d, T ed, T state) {
              sum += std::log(mu_i[c] + alpha[c] * beta[c] * state * ed) - (mu_i[c] * d + alpha[c] * state * (1 - ed));
            },
            [&](size_t m, T d, T ed, T state) { sum -= mu_i[m] * d + alpha[m] * state * (1 - ed); });
        ll[static_cast<size_t>(i)] = sum;
        std::copy(phi.begin(), phi.end(), states.begin() + i * s.k);
      }
      write_each(a.outputs[0].ptr<T>(), a.req[0], s.n, [&ll](int64_t i) { return ll[static_cast<size_t>(i)]; });
      write_each(a.outputs[1].ptr<T>(), a.req[1], s.n * s.k,
                 [&states](int64_t i) { return states[static_cast<size_t>(i)]; });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    for (int k = kState; k <= kMaxTime; ++k)  // no gradient for the state and the event data
      if (a.req[static_cast<size_t>(k)] == OpReq::Write)
        std::memset(a.in_grads[static_cast<size_t>(k)].dptr, 0,
                    static_cast<size_t>(a.in_grads[static_cast<size_t>(k)].size()) *
                        dtype_size(a.in_grads[static_cast<size_t>(k)].dtype));
    const Sizes s = sizes_of(a.inputs[kMu], a.inputs[kLags]);
    BRAID_REAL_TYPE_SWITCH(a.inputs[kMu].dtype, T, kHawkes, {
      const T *mu = a.inputs[kMu].ptr<T>(), *alpha = a.inputs[kAlpha].ptr<T>(), *beta = a.inputs[kBeta].ptr<T>();
      const T* g_ll = a.out_grads[0].dptr ? a.out_grads[0].ptr<T>() : nullptr;
      const T* g_state = a.out_grads.size() > 1 && a.out_grads[1].dptr ? a.out_grads[1].ptr<T>() : nullptr;
      const auto k = static_cast<size_t>(s.k);
      std::vector<T> grad_mu(static_cast<size_t>(s.n * s.k)), grad_alpha(k), grad_beta(k);
      for (int64_t i = 0; i < s.n; ++i) {
        const T* mu_i = mu + i * s.k;
        const T head = g_ll ? g_ll[i] : T(0);
        std::vector<T> phi = initial_state<T>(a.inputs[kState], s, i), dphi(k, T(0));  // dphi: d phi / d beta
        std::vector<T> mug(k, T(0)), alphag(k, T(0)), betag(k, T(0));
        walk_sequence<T>(
            a.inputs, s, i, phi,
            [&](size_t c, T d, T ed, T state) {
              const T lda = mu_i[c] + alpha[c] * beta[c] * state * ed;
              mug[c] += 1 / lda - d;
              alphag[c] += beta[c] * state * ed / lda - state * (1 - ed);
              betag[c] += alpha[c] * ed * (state * (1 - beta[c] * d) + beta[c] * dphi[c]) / lda -
                          alpha[c] * (dphi[c] * (1 - ed) + state * d * ed);
              dphi[c] = ed * (dphi[c] - d * state);
            },
            [&](size_t m, T d, T ed, T state) {
              mug[m] -= d;
              alphag[m] -= state * (1 - ed);
              betag[m] -= alpha[m] * (dphi[m] * (1 - ed) + state * d * ed);
              // the state output ed * state, through beta
              const T g = g_state ? g_state[static_cast<size_t>(i) * k + m] : T(0);
              grad_beta[m] += g * ed * (dphi[m] - d * state);
            });
        for (size_t c = 0; c < k; ++c) {
          grad_mu[static_cast<size_t>(i) * k + c] = head * mug[c];
          grad_alpha[c] += head * alphag[c];
          grad_beta[c] += head * betag[c];
        }
      }
      const std::vector<T>* grads[] = {&grad_mu, &grad_alpha, &grad_beta};
      for (int in = kMu; in <= kBeta; ++in)
        if (a.req[static_cast<size_t>(in)] != OpReq::Null)
          write_each(a.in_grads[static_cast<size_t>(in)].ptr<T>(), a.req[static_cast<size_t>(in)],
                     static_cast<int64_t>(grads[in]->size()),
                     [g = grads[in]](int64_t j) { return (*g)[static_cast<size_t>(j)]; });
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
