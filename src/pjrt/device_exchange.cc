// Publishing and reading the processes' device lists.
#include "pjrt/device_exchange.h"

#include <charconv>
#include <sstream>

#include "pjrt/kv_clique_ids.h"

namespace jft::pjrt {
namespace {

constexpr const char* kHeader = "jax-flagtree devices v1";
constexpr size_t kFields = 9;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == separator) {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

template <typename T>
bool parseNumber(const std::string& text, T& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string encodeDevices(const std::vector<runtime::DeviceInfo>& devices) {
  std::ostringstream out;
  out << kHeader << "\n";
  for (const runtime::DeviceInfo& d : devices) {
    out << d.ordinal << ',' << d.compute_major << ',' << d.compute_minor << ','
        << d.core_count << ',' << d.warp_size << ',' << d.total_memory << ','
        << hexEncode(d.name) << ',' << hexEncode(d.vendor) << ','
        << hexEncode(d.pci_bus_id) << "\n";
  }
  return out.str();
}

StatusOr<std::vector<runtime::DeviceInfo>> decodeDevices(const std::string& text) {
  std::vector<std::string> lines = split(text, '\n');
  if (lines.empty() || lines.front() != kHeader)
    return invalidArgument("a device list must start with '" + std::string(kHeader) +
                           "'");
  std::vector<runtime::DeviceInfo> devices;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty() && i + 1 == lines.size()) break;  // the final newline
    std::vector<std::string> f = split(lines[i], ',');
    const std::string where = "device line " + std::to_string(i);
    if (f.size() != kFields)
      return invalidArgument(where + " has " + std::to_string(f.size()) +
                             " fields, not " + std::to_string(kFields));
    runtime::DeviceInfo d;
    if (!parseNumber(f[0], d.ordinal) || !parseNumber(f[1], d.compute_major) ||
        !parseNumber(f[2], d.compute_minor) || !parseNumber(f[3], d.core_count) ||
        !parseNumber(f[4], d.warp_size) || !parseNumber(f[5], d.total_memory))
      return invalidArgument(where + " holds a malformed number");
    JFT_ASSIGN_OR_RETURN(d.name, hexDecode(f[6]));
    JFT_ASSIGN_OR_RETURN(d.vendor, hexDecode(f[7]));
    JFT_ASSIGN_OR_RETURN(d.pci_bus_id, hexDecode(f[8]));
    devices.push_back(std::move(d));
  }
  return devices;
}

StatusOr<ProcessLayout> exchangeDevices(KvStore& store, int node_id, int num_nodes,
                                        const std::vector<runtime::DeviceInfo>& local,
                                        std::chrono::milliseconds timeout) {
  if (num_nodes < 1 || node_id < 0 || node_id >= num_nodes)
    return invalidArgument("node_id " + std::to_string(node_id) + " is not in [0, " +
                           std::to_string(num_nodes) + ")");
  auto key = [](int node) { return "jax_flagtree/devices/" + std::to_string(node); };
  JFT_RETURN_IF_ERROR(store.put(key(node_id), encodeDevices(local)));
  ProcessLayout layout;
  layout.process_index = node_id;
  layout.devices_per_process.resize(static_cast<size_t>(num_nodes));
  for (int node = 0; node < num_nodes; ++node) {
    if (node == node_id) {
      layout.devices_per_process[static_cast<size_t>(node)] = local;
      continue;
    }
    StatusOr<std::string> text = store.get(key(node), timeout);
    if (!text.isOk())
      return text.status().withContext("process " + std::to_string(node) +
                                       " did not publish its devices");
    StatusOr<std::vector<runtime::DeviceInfo>> devices = decodeDevices(*text);
    if (!devices.isOk())
      return devices.status().withContext("the devices process " + std::to_string(node) +
                                          " published");
    layout.devices_per_process[static_cast<size_t>(node)] = std::move(devices).value();
  }
  return layout;
}

}  // namespace jft::pjrt
