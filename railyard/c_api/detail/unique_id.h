// railyard_unique_id_t: where rank 0 of a job listens and the job's key, as
// text in the id's bytes ("railyard-id-1 <address> <key>"), and the
// listeners that railyard_get_unique_id opened in this process, kept until
// rank 0 of their job takes its own. Internal.
#pragma once

#include <string>

#include "railyard/c_api/railyard.h"
#include "railyard/rstream/listener.h"

namespace railyard::c_api {

struct UniqueId {
  std::string address;  // "tcp://host:port"
  std::string job_key;
};

// Opens a listener on this host (RAILYARD_UNIQUE_ID_HOST, or its first
// interface that is up) and returns the id that names it. Throws
// ConfigError for a bad RAILYARD_UNIQUE_ID_HOST, Error when it cannot listen.
[[nodiscard]] railyard_unique_id_t make_unique_id();
// Throws ConfigError when `id` is not one make_unique_id made.
[[nodiscard]] UniqueId parse_unique_id(const railyard_unique_id_t& id);
// The listener of `id`, when this process made it and no rank took it yet.
// Throws ConfigError otherwise: rank 0 must run in the process that made
// the id.
[[nodiscard]] rstream::Listener take_listener(const UniqueId& id);

}  // namespace railyard::c_api
