#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "braid/base/env.h"
#include "braid/base/error.h"

namespace braid::kv::ps {
namespace {

std::string required(const char* name, const char* what) {
  auto v = env_str({name});
  BRAID_CHECK(v && !v->empty(), "parameter server: ", name, " is not set; it gives ", what,
              " (braid launch sets it; see docs/distributed.md)");
  return *v;
}

int positive_int(const char* name, const char* what, int min) {
  const std::string text = required(name, what);
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  BRAID_CHECK(*end == '\0' && v >= min && v < (1 << 30), "parameter server: ", name, "='", text,
              "' is not a whole number of at least ", min, "; it gives ", what);
  return static_cast<int>(v);
}

double seconds(const char* name, double fallback) {
  auto v = env_str({name});
  if (!v) return fallback;
  char* end = nullptr;
  const double s = std::strtod(v->c_str(), &end);
  BRAID_CHECK(*end == '\0' && s >= 0, "parameter server: ", name, "='", *v, "' is not a number of seconds");
  return s;
}

// The first line of the file BRAID_PS_SECRET_FILE names (readable by its owner only, as ssh
// wants of a key).
std::string secret_from_file(const std::string& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  BRAID_CHECK(fd >= 0, "parameter server: cannot open BRAID_PS_SECRET_FILE='", file, "': ", std::strerror(errno));
  std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* f) {
    close(*f);
    delete f;
  });
  struct stat st {};
  constexpr off_t kMaxSecretBytes = 4096;
  BRAID_CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode), "parameter server: BRAID_PS_SECRET_FILE='", file,
              "' is not a regular file");
  BRAID_CHECK((st.st_mode & 077) == 0, "parameter server: BRAID_PS_SECRET_FILE='", file,
              "' can be read by other users (mode ", std::oct, (st.st_mode & 0777), "); make it private: chmod 600 ",
              file);
  BRAID_CHECK(st.st_size <= kMaxSecretBytes, "parameter server: BRAID_PS_SECRET_FILE='", file, "' is ", st.st_size,
              " bytes; a secret file holds one line of at most ", kMaxSecretBytes, " bytes");
  std::string text(static_cast<size_t>(st.st_size), '\0');
  const ssize_t n = read(fd, text.data(), text.size());
  BRAID_CHECK(n == static_cast<ssize_t>(text.size()), "parameter server: cannot read BRAID_PS_SECRET_FILE='", file,
              "'");
  text = text.substr(0, text.find('\n'));
  BRAID_CHECK(!text.empty(), "parameter server: BRAID_PS_SECRET_FILE='", file, "' is empty; write the secret in it");
  return text;
}

}  // namespace

std::string secret_from_env() {
  const auto value = env_str({"BRAID_PS_SECRET"});
  const auto file = env_str({"BRAID_PS_SECRET_FILE"});
  if (!file || file->empty()) return value.value_or("");
  const std::string secret = secret_from_file(*file);
  BRAID_CHECK(!value || *value == secret, "parameter server: BRAID_PS_SECRET and the file BRAID_PS_SECRET_FILE='",
              *file, "' give different secrets; set one of them");
  return secret;
}

const char* role_name(Role role) {
  switch (role) {
    case Role::Scheduler:
      return "scheduler";
    case Role::Server:
      return "server";
    case Role::Worker:
      return "worker";
  }
  return "?";
}

std::optional<Role> role_from_name(const std::string& name) {
  for (Role r : {Role::Scheduler, Role::Server, Role::Worker})
    if (name == role_name(r)) return r;
  return std::nullopt;
}

bool Config::in_job() { return env_str({"DMLC_ROLE"}).has_value(); }

Config Config::from_env() {
  Config c;
  const std::string role = required("DMLC_ROLE", "this process's role: scheduler, server or worker");
  const std::optional<Role> parsed = role_from_name(role);
  BRAID_CHECK(parsed, "parameter server: DMLC_ROLE='", role, "' is not a role; valid: scheduler, server, worker");
  c.role = *parsed;
  c.root_uri = required("DMLC_PS_ROOT_URI", "the scheduler's IP address");
  c.root_port = positive_int("DMLC_PS_ROOT_PORT", "the scheduler's port", 1);
  BRAID_CHECK(c.root_port < 65536, "parameter server: DMLC_PS_ROOT_PORT=", c.root_port, " is not a TCP port");
  c.num_servers = positive_int("DMLC_NUM_SERVER", "the number of servers", 1);
  c.num_workers = positive_int("DMLC_NUM_WORKER", "the number of workers", 1);
  if (c.role == Role::Scheduler) {
    c.host = c.root_uri;
  } else if (auto host = env_str({"DMLC_NODE_HOST"}); host && !host->empty()) {
    c.host = *host;
  } else if (auto iface = env_str({"DMLC_INTERFACE"}); iface && !iface->empty()) {
    c.host = interface_address(*iface);
  } else {
    c.host = first_network_address();
  }
  if (c.role != Role::Scheduler && env_str({"DMLC_PORT"})) {
    c.node_port = positive_int("DMLC_PORT", "the port this node listens on", 1);
    BRAID_CHECK(c.node_port < 65536, "parameter server: DMLC_PORT=", c.node_port, " is not a TCP port");
  }
  c.verbose = static_cast<int>(env_int({"PS_VERBOSE"}, 0));
  c.heartbeat_interval_s = seconds("PS_HEARTBEAT_INTERVAL", c.heartbeat_interval_s);
  c.heartbeat_timeout_s = seconds("PS_HEARTBEAT_TIMEOUT", c.heartbeat_timeout_s);
  BRAID_CHECK(c.heartbeat_interval_s == 0 || c.heartbeat_timeout_s > c.heartbeat_interval_s,
              "parameter server: PS_HEARTBEAT_TIMEOUT (", c.heartbeat_timeout_s,
              " s) must be longer than PS_HEARTBEAT_INTERVAL (", c.heartbeat_interval_s, " s)");
  c.connect_timeout_s = seconds("BRAID_PS_CONNECT_TIMEOUT", c.connect_timeout_s);
  BRAID_CHECK(c.connect_timeout_s > 0, "parameter server: BRAID_PS_CONNECT_TIMEOUT must be more than 0 seconds");
  c.secret = secret_from_env();
  return c;
}

namespace {

struct Interface {
  std::string name, address;
  bool loopback;
};

std::vector<Interface> ipv4_interfaces() {
  ifaddrs* list = nullptr;
  BRAID_CHECK(getifaddrs(&list) == 0, "parameter server: cannot list the network interfaces");
  std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> guard(list, freeifaddrs);
  std::vector<Interface> found;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    found.push_back({a->ifa_name, text, (a->ifa_flags & IFF_LOOPBACK) != 0});
  }
  return found;
}

}  // namespace

std::string interface_address(const std::string& name) {
  std::string names;
  for (const auto& i : ipv4_interfaces()) {
    if (i.name == name) return i.address;
    names += (names.empty() ? "" : ", ") + i.name;
  }
  throw Error(cat("parameter server: DMLC_INTERFACE='", name, "' has no IPv4 address; interfaces with one: ", names));
}

std::string first_network_address() {
  for (const auto& i : ipv4_interfaces())
    if (!i.loopback) return i.address;
  return "127.0.0.1";
}

}  // namespace braid::kv::ps
