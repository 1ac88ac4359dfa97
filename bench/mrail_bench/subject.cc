#include "subject.h"

#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "communicator_transport.h"
#include "host_cpus.h"
#include "mrail_transport.h"
#include "ofi_mrail_transport.h"
#include "rails_transport.h"
#include "railyard/rail/provider_defaults.h"
#include "railyard/rail/rail_options.h"
#include "rma_transport.h"
#include "tools/support/forked_peer.h"
#include "tools/support/network_namespace.h"

namespace railyard::bench {
namespace {

// How long a subject's processes get to exit after both reported.
constexpr std::chrono::seconds kExitGrace{10};

using tools::ForkedPeer;
using tools::Pipe;

std::unique_ptr<BenchTransport> make_transport(const Subject& subject,
                                               const std::vector<std::string>& rails,
                                               const MeasureSettings& settings, bool initiator) {
  std::uint64_t largest = 1;
  for (const auto size : settings.sizes) {
    largest = std::max(largest, size);
  }
  const std::size_t slots = settings.slots();
  switch (subject.kind) {
    case Subject::Kind::kRawRail:
      return std::make_unique<RailsTransport>(std::vector<std::string>{rails.front()}, largest,
                                              slots);
    case Subject::Kind::kParallelRails:
      return std::make_unique<RailsTransport>(rails, largest, slots);
    case Subject::Kind::kRailyard: {
      mrail::Options options = mrail::Options::from_environment();
      options.rails = rails;
      options.policies = mrail::PolicyTable::parse("--policies", subject.policy_table);
      if (settings.rma != RmaMode::kNone) {
        return std::make_unique<RmaTransport>(std::move(options), settings.rma, largest, slots);
      }
      return std::make_unique<MrailTransport>(std::move(options), largest, slots);
    }
    case Subject::Kind::kCommunicator:
      return std::make_unique<CommunicatorTransport>(initiator, rails, subject.policy_table,
                                                     largest, slots, settings.timeout);
    case Subject::Kind::kOfiMrail: {
      // Read by the provider when libfabric loads: this process has not
      // called libfabric yet.
      const std::string addresses = fmt::format("{}", fmt::join(rails, ","));
      ::setenv("FI_OFI_MRAIL_ADDR", addresses.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
      return std::make_unique<OfiMrailTransport>(rail::default_provider() + ";ofi_mrail",
                                                 subject.tagged, largest, slots);
    }
    case Subject::Kind::kOpenMpi:
      break;
  }
  throw std::runtime_error("subject " + subject.name + " does not run in-process");
}

// In the forked subject, before it touches libfabric: the provider its rails
// open, with the settings railyard gives that provider when it is the
// default (the library applied the parent's default's when it loaded).
void use_provider(const std::string& provider) {
  // NOLINTBEGIN(concurrency-mt-unsafe): a fresh child of one thread
  ::setenv("RAILYARD_PROVIDER", provider.c_str(), 1);
  for (const auto& setting : rail::provider_defaults_for(provider)) {
    ::setenv(setting.variable, setting.value, 0);
  }
  // NOLINTEND(concurrency-mt-unsafe)
}

// In the forked subject, first thing: the one CPU it may run on.
void bind_to(const std::optional<unsigned>& cpu) {
  if (!cpu) {
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(*cpu, &set);
  if (::sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw std::runtime_error(fmt::format("sched_setaffinity to CPU {} failed: {}", *cpu,
                                         std::generic_category().message(errno)));
  }
}

std::string placement(const std::optional<unsigned>& cpu) {
  return cpu ? fmt::format(", bound to CPU {}", *cpu) : std::string();
}

nlohmann::json to_json(const std::vector<Measurement>& rows, const std::vector<RailBytes>& rails) {
  nlohmann::json out;
  out["cpus"] = own_cpus();
  out["rows"] = nlohmann::json::array();
  for (const auto& row : rows) {
    out["rows"].push_back({row.size, row.latency_us, row.bandwidth_mbps});
  }
  out["rails"] = nlohmann::json::array();
  for (const auto& rail : rails) {
    out["rails"].push_back({rail.name, rail.sent, rail.received});
  }
  return out;
}

const char* what_runs(const Subject& subject) {
  switch (subject.kind) {
    case Subject::Kind::kRawRail:
      return "one libfabric RDM endpoint on the first rail, tagged messages";
    case Subject::Kind::kParallelRails:
      return "one libfabric RDM endpoint per rail, message i of a window on rail i mod rails";
    case Subject::Kind::kRailyard:
      return "railyard's multi-rail endpoint";
    case Subject::Kind::kCommunicator:
      return "railyard's Communicator, two ranks joined by root rendezvous";
    case Subject::Kind::kOfiMrail:
      return subject.tagged ? "libfabric's ofi_mrail, tagged endpoint"
                            : "libfabric's ofi_mrail, untagged endpoint";
    case Subject::Kind::kOpenMpi:
      break;
  }
  return "mpirun";
}

}  // namespace

bool is_baseline(Subject::Kind kind) noexcept {
  return kind == Subject::Kind::kRawRail || kind == Subject::Kind::kParallelRails ||
         kind == Subject::Kind::kOfiMrail || kind == Subject::Kind::kOpenMpi;
}

std::string launch_of(const Subject& subject, const Hosts& hosts) {
  const std::string provider =
      subject.provider.empty() ? rail::default_provider() : subject.provider;
  std::string environment;
  if (subject.kind == Subject::Kind::kOfiMrail) {
    environment =
        fmt::format("FI_PROVIDER='{};ofi_mrail' FI_OFI_MRAIL_ADDR=<the host's rails>", provider);
  } else {
    environment = fmt::format("RAILYARD_PROVIDER='{}'", provider);
    for (const auto& setting : rail::provider_defaults_for(provider)) {
      environment += fmt::format(" {}={}", setting.variable, setting.value);
    }
    if (subject.kind == Subject::Kind::kRailyard || subject.kind == Subject::Kind::kCommunicator) {
      environment += fmt::format(" FI_OFI_MRAIL_CONFIG='{}'", subject.policy_table);
    }
    for (const auto& [variable, value] : subject.environment) {
      environment += fmt::format(" {}='{}'", variable, value);
    }
  }
  if (hosts.netns_a.empty() && hosts.netns_b.empty()) {
    return fmt::format(
        "{}; two processes forked by railyard-mrail-bench on this host (rails [{}]{}; rails "
        "[{}]{}); {}",
        what_runs(subject), fmt::join(hosts.rails_a, ","), placement(hosts.cpu_a),
        fmt::join(hosts.rails_b, ","), placement(hosts.cpu_b), environment);
  }
  return fmt::format(
      "{}; one process forked by railyard-mrail-bench into netns {} (rails [{}]{}), one into "
      "netns {} (rails [{}]{}); {}",
      what_runs(subject), hosts.netns_a, fmt::join(hosts.rails_a, ","), placement(hosts.cpu_a),
      hosts.netns_b, fmt::join(hosts.rails_b, ","), placement(hosts.cpu_b), environment);
}

SubjectResult run_subject(const Subject& subject, const Hosts& hosts,
                          const MeasureSettings& settings, std::chrono::seconds limit) {
  SubjectResult result;
  result.name = subject.name;
  result.kind = subject.kind;
  result.launch = launch_of(subject, hosts);
  int link[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link) != 0) {
    throw std::runtime_error("socketpair failed");
  }
  const auto side = [&](bool initiator) {
    return [&, initiator](Pipe& parent) {
      ::close(link[initiator ? 1 : 0]);
      const Pipe peer(link[initiator ? 0 : 1]);
      try {
        bind_to(initiator ? hosts.cpu_a : hosts.cpu_b);
        tools::enter_network_namespace(initiator ? hosts.netns_a : hosts.netns_b);
        if (!subject.provider.empty()) {
          use_provider(subject.provider);
        }
        for (const auto& [variable, value] : subject.environment) {
          ::setenv(variable.c_str(), value.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
        }
        auto transport =
            make_transport(subject, initiator ? hosts.rails_a : hosts.rails_b, settings, initiator);
        // The initiator speaks first, so the exchange cannot deadlock.
        if (initiator) {
          peer.send(transport->address());
          transport->connect(peer.receive(settings.timeout));
        } else {
          transport->connect(peer.receive(settings.timeout));
          peer.send(transport->address());
        }
        const auto rows = measure(*transport, initiator, settings);
        const auto report = to_json(rows, transport->rail_bytes()).dump();
        // The transport leaves before the report goes: once the parent has
        // both reports it kills the processes, and a peer killed in the
        // middle of its orderly leave (a Communicator's closing barrier and
        // goodbye) is reported, rightly, as lost.
        transport.reset();
        parent.send_text(report);
      } catch (const std::exception& e) {
        parent.send_text(nlohmann::json{{"error", e.what()}}.dump());
      }
    };
  };
  ForkedPeer server(side(false));
  ForkedPeer client(side(true));
  ::close(link[0]);
  ::close(link[1]);
  try {
    const auto answer = nlohmann::json::parse(client.pipe().receive_text(limit));
    if (answer.contains("error")) {
      result.error = answer["error"].get<std::string>();
      // The server's account usually says more (it failed first).
      try {
        const auto other =
            nlohmann::json::parse(server.pipe().receive_text(std::chrono::seconds(2)));
        if (other.contains("error")) {
          result.error = other["error"].get<std::string>() + "; client: " + result.error;
        }
      } catch (const std::exception&) {
      }
      return result;
    }
    for (const auto& row : answer["rows"]) {
      result.rows.push_back(
          Measurement{row[0].get<std::uint64_t>(), row[1].get<double>(), row[2].get<double>()});
    }
    for (const auto& rail : answer["rails"]) {
      result.rails.push_back(RailBytes{rail[0].get<std::string>(), rail[1].get<std::uint64_t>(),
                                       rail[2].get<std::uint64_t>()});
    }
    // What each rail delivered is counted where it arrived: the server's
    // rail i pairs with the client's rail i. Rendezvous data, pulled by the
    // receiver, shows up only there.
    const auto served = nlohmann::json::parse(server.pipe().receive_text(std::chrono::seconds(10)));
    if (served.contains("rails") && served["rails"].size() == result.rails.size()) {
      for (std::size_t i = 0; i < result.rails.size(); ++i) {
        result.rails[i].received = served["rails"][i][2].get<std::uint64_t>();
      }
    }
    // Where each process ran, as it saw it: a binding that did not hold
    // fails the subject rather than pass for a bound result.
    for (const auto& [report, process, cpu] :
         {std::tuple{&answer, "host a's process", hosts.cpu_a},
          std::tuple{&served, "host b's process", hosts.cpu_b}}) {
      const auto why = binding_mismatch(process, report->value("cpus", std::string("?")), cpu);
      if (!why.empty()) {
        result.error = why;
        result.rows.clear();
      }
    }
  } catch (const std::exception& e) {
    result.error =
        fmt::format("no result within {} s ({}); the subject was stopped", limit.count(), e.what());
  }
  // Both reported after closing their transports, so they exit at once; a
  // profiler (valgrind --trace-children) writes its output as they do, which
  // a kill would lose. One that does not exit in time is killed.
  if (result.error.empty()) {
    (void)server.wait(kExitGrace);
    (void)client.wait(kExitGrace);
  }
  return result;  // ForkedPeer's destructor kills whatever still runs
}

}  // namespace railyard::bench
