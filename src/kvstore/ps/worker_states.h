#pragma once
// Internal: a worker's view of the servers' optimizer states. Each server saves the states of
// its part of each key (server_states.h); the worker joins them into whole keys' states, and
// cuts whole keys' states into the servers' parts when they are loaded.
#include <functional>
#include <string>
#include <vector>

#include "key_exchange.h"
#include "message.h"

namespace braid::kv::ps {

/// The key an optimizer state's name "<index>_<state>" belongs to; throws for none.
using KeyOfState = std::function<const KeyState&(const std::string& name)>;

/// The servers' images (replies[s] from server s), each key's parts put together in the key's
/// shape; each update count the largest any server holds.
std::string join_server_states(const std::vector<Message>& replies, const KeyOfState& key_of_state);
/// An image of whole keys' states cut into each server's part, in rows of the key's width as the
/// server's optimizer sees them; every server gets every update count.
std::vector<std::string> split_states_by_server(const std::string& bytes, int num_servers,
                                                const KeyOfState& key_of_state);

}  // namespace braid::kv::ps
