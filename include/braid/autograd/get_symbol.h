#pragma once
/// MXNet's autograd.get_symbol: the recorded computation behind an array, as a Symbol. Variables
/// (arrays with attach_grad) become variables var<i>, other arrays the operators read variables
/// null<i>, numbered by one counter in the order the graph reaches them (as MXNet), and each
/// recorded operator a node node_<i> with the attributes it was called with.
///
///   x.attach_grad();
///   { autograd::RecordScope rec; y = x * x + x; }
///   Symbol s = autograd::get_symbol(y);  // s.list_arguments() == {"var0"}
#include "braid/ndarray/ndarray.h"
#include "braid/symbol/symbol.h"

namespace braid::autograd {

/// Throws when `head` was not recorded, or when its graph passes through a node whose inside
/// the tape does not hold (a hybridized block's graph, a custom Function).
Symbol get_symbol(const NDArray& head);

}  // namespace braid::autograd
