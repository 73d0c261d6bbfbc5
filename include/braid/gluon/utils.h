#pragma once
/// Gluon's utilities for data parallelism (MXNet's gluon.utils).
///
///   auto xs = gluon::utils::split_and_load(x, {cpu(0), cpu(1)});   // one slice per context
///   double norm = gluon::utils::clip_global_norm(grads, 1.0);
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::gluon::utils {

/// `data` split into `num_slice` slices along `batch_axis`. With even_split the size must divide
/// (else an error says so); without, the first slices take one sample more, as MXNet.
std::vector<NDArray> split_data(const NDArray& data, int num_slice, int batch_axis = 0, bool even_split = true);

/// split_data into one slice per context, each copied to its context (a single context gets
/// `data` itself on that context).
std::vector<NDArray> split_and_load(const NDArray& data, const std::vector<Context>& ctx_list, int batch_axis = 0,
                                    bool even_split = true);

/// Scales `arrays` in place so that the 2-norm of all of them together is at most max_norm;
/// returns that norm before scaling. A non-finite norm leaves the arrays alone and, when
/// check_isfinite, is reported on stderr (MXNet warns).
double clip_global_norm(std::vector<NDArray>& arrays, double max_norm, bool check_isfinite = true);

}  // namespace braid::gluon::utils
