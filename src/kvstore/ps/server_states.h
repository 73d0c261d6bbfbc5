#pragma once
// Internal: a server's optimizer states, as the workers see them. The server's optimizer updates
// each slice of a key (key_value.h) under an index of its own: the key's index for the key's
// first slice on the server, an alias of it for the others (Optimizer::alias_index). The workers
// save and load one state per key and server: its slices' states joined by rows, in order.
#include <cstdint>
#include <string>
#include <vector>

#include "braid/base/shape.h"

namespace braid::kv::ps {

/// One slice of a key on this server, as the server's optimizer updates it.
struct SliceIndex {
  int64_t key = 0;
  int index = 0;  // the optimizer's index for the slice
  Shape shape;    // its shape as the optimizer sees it: rows of the key's width
};

/// The optimizer's save_states() `image`, each key's slices' states joined into one named after
/// the key, its update counts those of its slices' (the largest). `slices`: by key, then by
/// position in the key. Throws when some of a key's slices have a state and others none yet.
std::string states_by_key(const std::string& image, const std::vector<SliceIndex>& slices);
/// The reverse: an image named after the keys, each key's states cut into its slices'.
std::string states_by_slice(const std::string& image, const std::vector<SliceIndex>& slices);

}  // namespace braid::kv::ps
