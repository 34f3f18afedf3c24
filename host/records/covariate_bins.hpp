// Bins of a numeric covariate (docs/statistics.md §8.3): `--bins K` (K quantile bins of the values)
// or `--bins E0,E1,…,EK` (edges, `inf` and `-inf` allowed). Bins follow numpy.histogram: every bin is
// half-open [a, b) except the last, which is closed [a, b], so each value falls in exactly one bin.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace judgestat {

/// A parsed `--bins`: a count of quantile bins, or the edges themselves.
struct BinSpec {
  int count = 0;              // > 0: quantile bins
  std::vector<double> edges;  // else: strictly increasing edges, at least two
};

/// Parses "K" or "E0,E1,…"; UsageError naming `flag` for a count below 1, a non-number, fewer
/// than two edges, or edges not strictly increasing.
BinSpec parse_bins(const std::string& text, const std::string& flag);

/// The edges of `spec` over `values` (no NaN): the given edges, or for K quantile bins the type-7
/// quantiles at 0, 1/K, …, 1 of the values with repeated edges merged (numpy.quantile, then
/// np.unique). One value (or all equal) gives the single edge pair [v, v].
std::vector<double> bin_edges(const BinSpec& spec, std::vector<double> values);

/// The bin of x among `edges` (numpy.histogram: [e_k, e_k+1), the last one closed), or -1 when x
/// lies outside them.
int32_t bin_of(const std::vector<double>& edges, double x);

/// Bin k as text: "[a, b)" or, for the last bin, "[a, b]"; numbers in their shortest form.
std::string bin_text(const std::vector<double>& edges, int32_t k);

/// x in its shortest round-trip form ("200", "0.5", "inf", "-inf").
std::string number_text(double x);

}  // namespace judgestat
