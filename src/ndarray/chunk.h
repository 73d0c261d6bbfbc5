#pragma once
// Internal: the shared state behind NDArray handles: memory and its engine variable.
#include "braid/engine/engine.h"
#include "braid/storage/storage.h"

namespace braid::detail {

struct Chunk {
  StorageHandle storage;
  engine::VarHandle var = nullptr;

  Chunk(size_t bytes, Context ctx) : storage(Storage::get().alloc(bytes, ctx)), var(engine::Engine::get().new_var()) {}
  /// Frees the memory once every pending operation on it is done.
  ~Chunk() {
    StorageHandle h = storage;
    engine::Engine::get().delete_var([h] { Storage::get().free(h); }, h.ctx, var);
  }
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;
};

}  // namespace braid::detail
