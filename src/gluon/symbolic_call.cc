// Block::call_symbolic and the placeholders of a symbolic call (see symbolic_call.h).
#include "braid/gluon/symbolic_call.h"

#include "braid/base/error.h"
#include "braid/gluon/block.h"
#include "graph_tracer.h"

namespace braid::gluon {

Symbol Block::call_symbolic(const std::vector<Symbol>& inputs) {
  std::vector<symbol::Entry> entries;
  for (const auto& s : inputs) {
    BRAID_CHECK(s.outputs().size() == 1, "block ", prefix(), ": each input Symbol must have one output; got ",
                s.outputs().size(), " (pass the outputs one by one)");
    entries.push_back(s.outputs()[0]);
  }
  detail::GraphTracer tracer(entries, prefix(), names_first_op_fwd());
  std::vector<NDArray> out = forward(tracer.tokens());
  return tracer.finish(out);
}

namespace symbolic {

namespace {
detail::GraphTracer& tracer() {
  detail::GraphTracer* t = detail::GraphTracer::current();
  BRAID_CHECK(t && t->symbolic(), "no block is being called on Symbols on this thread");
  return *t;
}
}  // namespace

bool active() {
  detail::GraphTracer* t = detail::GraphTracer::current();
  return t && t->symbolic();
}

Symbol symbol_of(const NDArray& placeholder) {
  return Symbol(std::vector<symbol::Entry>{tracer().entry_of(placeholder)});
}

std::vector<NDArray> placeholders_of(const Symbol& s) {
  std::vector<NDArray> out;
  for (const auto& e : s.outputs()) out.push_back(tracer().token_for(e));
  return out;
}

}  // namespace symbolic
}  // namespace braid::gluon
