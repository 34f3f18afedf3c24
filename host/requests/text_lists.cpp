#include "requests/text_lists.hpp"

#include <stdexcept>

#include "judgestat/records.hpp"
#include "requests/request_flags.hpp"

namespace judgestat {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    if (end > start) out.push_back(text.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> split_trimmed(const std::string& text) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t first = part.find_first_not_of(" \t");
    const size_t last = part.find_last_not_of(" \t");
    parts.push_back(first == std::string::npos ? std::string() : part.substr(first, last - first + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::vector<std::string> split_exact(const std::string& text) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::vector<int> parse_device_list(const std::string& text, const std::string& option) {
  std::vector<std::string> entries = split_exact(text);
  if (entries.empty()) entries.push_back("");  // "" is not a device number: said as for any entry
  return parse_device_list(entries, option);
}

std::vector<int> parse_device_list(const std::vector<std::string>& entries, const std::string& option) {
  std::vector<int> devices;
  for (const std::string& part : entries) {
    const bool digits = !part.empty() && part.size() <= 6 && part.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) throw UsageError(option + ": '" + part + "' is not a device number (expected e.g. 0,1,2,3)");
    devices.push_back(std::stoi(part));
  }
  return devices;
}

ThresholdGrid parse_grid(const std::string& text) { return parse_grid(split_trimmed(text)); }

ThresholdGrid parse_grid(std::vector<std::string> values) {
  if (values.empty()) values.push_back("");  // "" is not a number: said as for any entry
  return with_flag_names({{"grid", "--grid"}}, [&] { return threshold_grid(values); });
}

std::vector<uint32_t> parse_k_list(const std::string& text) { return parse_k_list(split_trimmed(text)); }

std::vector<uint32_t> parse_k_list(std::vector<std::string> parts) {
  std::vector<uint32_t> ks;
  if (parts.empty()) parts.push_back("");
  for (const std::string& part : parts) {
    const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long long value = digits && part.size() <= 10 ? std::stoull(part) : 0;
    if (value == 0 || value > UINT32_MAX)
      throw UsageError("--k: '" + part + "' is not a positive whole number of labelled items (e.g. --k 48,96)");
    ks.push_back(static_cast<uint32_t>(value));
  }
  return ks;
}

}  // namespace judgestat
