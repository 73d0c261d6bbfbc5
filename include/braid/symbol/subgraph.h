#pragma once
/// Subgraphs of the control-flow operators (mx.sym.contrib.foreach, while_loop, cond): the body a
/// Python function built while an AttrScope named it (`__subgraph_name__`), cut from whatever it
/// reads that was computed outside.
#include <string>
#include <utility>
#include <vector>

#include "braid/symbol/symbol.h"

namespace braid::symbol {

struct CutSubgraph {
  /// The body: its nodes that carry `__subgraph_name__ = scope` (and the variables they read),
  /// every output of a node from outside the scope replaced by a new variable.
  Symbol graph;
  /// Per new variable: its name and the outside output it stands for.
  std::vector<std::pair<std::string, Symbol>> cut;
};

/// Cuts the nodes of `graph` made in the scope named `scope` from the nodes made outside it.
CutSubgraph cut_subgraph(const Symbol& graph, const std::string& scope);

}  // namespace braid::symbol
