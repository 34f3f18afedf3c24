#include "records/covariate_bins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "judgestat/records.hpp"
#include "records/fields.hpp"
#include "support/quantile.hpp"

namespace judgestat {
namespace {

std::vector<std::string> comma_fields(const std::string& text) {
  std::vector<std::string> out(1);
  for (char ch : text) {
    if (ch == ',')
      out.emplace_back();
    else
      out.back() += ch;
  }
  for (std::string& field : out) field = std::string(loading::trim(field));
  return out;
}

double edge_number(const std::string& field, const std::string& flag) {
  double value;
  if (field == "inf" || field == "+inf") return std::numeric_limits<double>::infinity();
  if (field == "-inf") return -std::numeric_limits<double>::infinity();
  if (!loading::parse_double(field, value) || std::isnan(value))
    throw UsageError(flag + ": '" + field + "' is not a number (give a bin count like 4, or edges like 0,200,500,inf)");
  return value;
}

}  // namespace

BinSpec parse_bins(const std::string& text, const std::string& flag) {
  const std::vector<std::string> fields = comma_fields(text);
  BinSpec spec;
  if (fields.size() == 1) {
    char* end = nullptr;
    const long count = std::strtol(fields[0].c_str(), &end, 10);
    if (fields[0].empty() || *end != '\0' || count < 1 || count > 1000)
      throw UsageError(flag + ": expected a bin count from 1 to 1000 or at least two edges (0,200,500,inf), got '" +
                       text + "'");
    spec.count = static_cast<int>(count);
    return spec;
  }
  for (const std::string& field : fields) spec.edges.push_back(edge_number(field, flag));
  for (size_t k = 1; k < spec.edges.size(); ++k)
    if (!(spec.edges[k] > spec.edges[k - 1]))
      throw UsageError(flag + ": edges must increase, but " + number_text(spec.edges[k]) + " follows " +
                       number_text(spec.edges[k - 1]) + " in '" + text + "'");
  return spec;
}

std::vector<double> bin_edges(const BinSpec& spec, std::vector<double> values) {
  if (spec.count == 0) return spec.edges;
  std::vector<double> edges;
  if (values.empty()) return edges;
  for (int k = 0; k <= spec.count; ++k) {
    std::vector<double> scratch = values;
    const double q = quantile_type7_unsorted(scratch, static_cast<double>(k) / spec.count);
    if (edges.empty() || q > edges.back()) edges.push_back(q);
  }
  if (edges.size() == 1) edges.push_back(edges.front());  // every value equal: one bin [v, v]
  return edges;
}

int32_t bin_of(const std::vector<double>& edges, double x) {
  if (edges.size() < 2 || !(x >= edges.front()) || !(x <= edges.back())) return -1;
  const auto above = std::upper_bound(edges.begin(), edges.end(), x);  // first edge > x
  const auto k = static_cast<int32_t>(above - edges.begin()) - 1;
  const auto last = static_cast<int32_t>(edges.size()) - 2;
  return std::min(k, last);  // x == the last edge: the closed last bin
}

std::string bin_text(const std::vector<double>& edges, int32_t k) {
  const bool last = k + 2 == static_cast<int32_t>(edges.size());
  return "[" + number_text(edges[k]) + ", " + number_text(edges[k + 1]) + (last ? "]" : ")");
}

std::string number_text(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[32];
  if (x == std::floor(x) && std::fabs(x) < 1e15) {  // whole numbers without an exponent: 200, not 2e+02
    std::snprintf(buffer, sizeof buffer, "%.0f", x);
    return buffer;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  return buffer;
}

}  // namespace judgestat
