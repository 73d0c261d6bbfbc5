#pragma once
// Internal: the shared state behind NDArray handles: memory and its engine variable.
#include <memory>

#include "braid/engine/engine.h"
#include "braid/storage/storage.h"

namespace braid::detail {

struct Chunk {
  StorageHandle storage;
  engine::VarHandle var = nullptr;
  std::shared_ptr<void> owner;  // of borrowed memory (NDArray::borrowed); null when Storage's

  Chunk(size_t bytes, Context ctx) : storage(Storage::get().alloc(bytes, ctx)), var(engine::Engine::get().new_var()) {}
  Chunk(StorageHandle borrowed, std::shared_ptr<void> owner)
      : storage(borrowed), var(engine::Engine::get().new_var()), owner(std::move(owner)) {}
  /// Frees (or gives back) the memory once every pending operation on it is done.
  ~Chunk() {
    StorageHandle h = storage;
    if (owner)
      engine::Engine::get().delete_var([o = std::move(owner)]() mutable { o.reset(); }, h.ctx, var);
    else
      engine::Engine::get().delete_var([h] { Storage::get().free(h); }, h.ctx, var);
  }
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;
};

}  // namespace braid::detail
