// The list syntax of the flags ("a,b,c"), parsed into the library's values; errors are UsageErrors
// naming the flag. The library itself takes vectors, never comma-joined text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/budget_engine.hpp"

namespace judgestat {

/// "a,b,,c" -> {a, b, c}: empty entries dropped, no trimming (record filters, judge lists, labels).
std::vector<std::string> split_list(const std::string& text);
/// "a, b,,c" -> {a, b, "", c}: entries trimmed, empty ones kept so that a check can name them.
std::vector<std::string> split_trimmed(const std::string& text);
/// "a,b,,c" -> {a, b, "", c}: split at every comma, nothing trimmed or dropped ("" -> none).
std::vector<std::string> split_exact(const std::string& text);
/// "0,1,3" -> {0, 1, 3}: UsageError naming `option` for anything but non-negative integers.
std::vector<int> parse_device_list(const std::string& text, const std::string& option = "--devices");
/// The same for the entries (split_exact of the text).
std::vector<int> parse_device_list(const std::vector<std::string>& entries, const std::string& option);
/// --grid "0.5,0.6,…": threshold_grid() of the entries, its errors naming --grid.
ThresholdGrid parse_grid(const std::string& text);
/// The same for the entries (split_trimmed of the text; none is one empty entry).
ThresholdGrid parse_grid(std::vector<std::string> entries);
/// --k "48,96,192": UsageError for anything but positive integers.
std::vector<uint32_t> parse_k_list(const std::string& text);
/// The same for the entries (split_trimmed of the text; none is one empty entry).
std::vector<uint32_t> parse_k_list(std::vector<std::string> entries);

}  // namespace judgestat
