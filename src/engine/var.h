#pragma once
// Internal: the dependency variable shared by both engines and the error bookkeeping.
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "braid/engine/engine.h"

namespace braid::engine {

/// An error raised by an operation, shared by every variable it reached and seen by the engine's
/// list of errors; clearing it at one wait clears it everywhere, so each error is thrown once
/// (MXNet). It lives as long as a variable carries it: an error on arrays a program has dropped
/// (or overwritten since) is not thrown by a later wait_for_all.
using ErrorRef = std::shared_ptr<std::exception_ptr>;

namespace detail {
struct OprBlock;
}

struct Var {
  std::mutex mu;
  /// Operations waiting for this variable, in push order; `second` is true for a write.
  std::deque<std::pair<detail::OprBlock*, bool>> pending;
  int running_reads = 0;
  bool running_write = false;
  ErrorRef error;  // set by a failed (or skipped) write, cleared by a successful one

  /// The live error on this variable, or nullptr.
  std::exception_ptr live_error() const { return error && *error ? *error : nullptr; }
};

namespace detail {

/// Sorted, deduplicated read and write sets; a variable in both is only written.
void normalize_deps(std::span<const VarHandle> reads, std::span<const VarHandle> writes, std::vector<Var*>& out_reads,
                    std::vector<Var*>& out_writes);

/// Error bookkeeping common to both engines.
class ErrorList {
 public:
  /// Records an error raised by an operation and returns the reference to store on variables.
  /// The list keeps the error itself only for an operation that writes no variable.
  ErrorRef add(std::exception_ptr e, bool writes_nothing);
  /// Re-throws the first live error and clears them all.
  void rethrow_and_clear();

 private:
  std::mutex mu_;
  std::vector<std::weak_ptr<std::exception_ptr>> errors_;
  std::vector<ErrorRef> unwritten_;  // errors of operations that write no variable
};

/// The live error of the first of `reads` that carries one (the operation is then skipped and
/// passes it on), or null.
ErrorRef inherited_error(const std::vector<Var*>& reads);
/// Stores an operation's outcome on what it wrote: `error`, or null for a good value.
void mark_writes(const std::vector<Var*>& writes, const ErrorRef& error);

/// Runs `fn` unless one of `reads` carries an error (then `fn` is skipped and that error
/// propagates); stores the outcome on `writes`. `always_run` is for waits and deletions.
void execute(const Fn& fn, const std::vector<Var*>& reads, const std::vector<Var*>& writes, bool always_run,
             ErrorList& errors);

}  // namespace detail
}  // namespace braid::engine
