#pragma once
/// While Block::call_symbolic runs on a thread, the arrays a forward sees are placeholders for
/// graph entries. A forward written in another language (Python) translates them with these
/// functions: it is called with the Symbols and its Symbols become placeholders again.
#include "braid/ndarray/ndarray.h"
#include "braid/symbol/symbol.h"

namespace braid::gluon::symbolic {

/// Whether the calling thread is inside Block::call_symbolic.
bool active();
/// The Symbol a placeholder stands for.
Symbol symbol_of(const NDArray& placeholder);
/// A placeholder standing for `s` (one output each).
std::vector<NDArray> placeholders_of(const Symbol& s);

}  // namespace braid::gluon::symbolic
