#include "railyard/c_api/detail/unique_id.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "railyard/bootstrap/bootstrap_options.h"
#include "railyard/bootstrap/root_listen_host.h"
#include "railyard/common/error.h"

namespace railyard::c_api {
namespace {

constexpr const char* kMagic = "railyard-id-1";

// Listeners of ids made here, by job key.
std::mutex listeners_mutex;
std::map<std::string, rstream::Listener>& listeners() {
  static std::map<std::string, rstream::Listener> by_key;
  return by_key;
}

}  // namespace

railyard_unique_id_t make_unique_id() {
  const std::string host = bootstrap::root_listen_host();
  rstream::Listener listener(fmt::format("tcp://{}:0", host));
  UniqueId id{fmt::format("tcp://{}:{}", host, listener.port()), bootstrap::random_job_key()};
  const std::string text = fmt::format("{} {} {}", kMagic, id.address, id.job_key);
  railyard_unique_id_t out{};
  if (text.size() >= sizeof(out.internal)) {
    throw Error(
        fmt::format("the unique id '{}' does not fit in {} bytes", text, sizeof(out.internal)));
  }
  std::memcpy(out.internal, text.data(), text.size());
  const std::scoped_lock lock(listeners_mutex);
  listeners().emplace(id.job_key, std::move(listener));
  return out;
}

UniqueId parse_unique_id(const railyard_unique_id_t& id) {
  const char* end = static_cast<const char*>(std::memchr(id.internal, '\0', sizeof(id.internal)));
  const std::string text(id.internal, end == nullptr ? sizeof(id.internal)
                                                     : static_cast<std::size_t>(end - id.internal));
  std::istringstream fields(text);
  std::string magic;
  UniqueId parsed;
  std::string extra;
  fields >> magic >> parsed.address >> parsed.job_key >> extra;
  if (magic != kMagic || parsed.address.empty() || parsed.job_key.size() != 64 || !extra.empty()) {
    throw ConfigError("the unique id", text.substr(0, 40),
                      "expected the bytes railyard_get_unique_id made, passed on unchanged");
  }
  return parsed;
}

rstream::Listener take_listener(const UniqueId& id) {
  const std::scoped_lock lock(listeners_mutex);
  auto found = listeners().find(id.job_key);
  if (found == listeners().end()) {
    throw ConfigError("the unique id", id.address,
                      "rank 0 must join in the process that made the id with "
                      "railyard_get_unique_id, once (it listens there)");
  }
  rstream::Listener listener = std::move(found->second);
  listeners().erase(found);
  return listener;
}

}  // namespace railyard::c_api
