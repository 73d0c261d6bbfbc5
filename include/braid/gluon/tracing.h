#pragma once
/// The first call of a hybridized block runs its forward once and records the operators it runs
/// into a graph, which later calls replay. Code whose operators depend on more than the inputs'
/// shapes (a Python loop whose length, or a branch whose choice, depends on values) says so
/// here; the block then keeps running its forward instead of a graph.
#include <string>

namespace braid::gluon {

/// Whether the calling thread is recording a hybridized block's graph.
bool tracing();
/// Tells the graph being recorded that it cannot stand for the block (`why` names the cause).
void trace_cannot_replay(const std::string& why);

}  // namespace braid::gluon
