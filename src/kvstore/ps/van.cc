#include "van.h"

#include <cstdio>

#include "inproc_van.h"

namespace braid::kv::ps {

void Van::set_log_prefix(std::string prefix) {
  std::lock_guard<std::mutex> lock(log_mu_);
  prefix_ = std::move(prefix);
}

void Van::log(const std::string& text) const {
  std::lock_guard<std::mutex> lock(log_mu_);
  const std::string line = "[" + prefix_ + "] " + text + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

std::unique_ptr<Van> make_van(Transport transport, std::string log_prefix, int verbose) {
  if (transport == Transport::InProcess) return std::make_unique<InProcessVan>(std::move(log_prefix), verbose);
  return make_zmq_van(std::move(log_prefix), verbose);
}

}  // namespace braid::kv::ps
