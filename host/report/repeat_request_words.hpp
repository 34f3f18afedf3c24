// What the repeats writers say of one compared request (judgestat/repeats.hpp RepeatRequest): the
// coordinates it holds fixed, for the "Per request" table, the figures' tooltips and their CSVs.
#pragma once
#include <string>

#include "judgestat/repeats.hpp"
#include "report/plot_axes.hpp"

namespace judgestat {

/// "order 0, variant plain": what the request holds fixed ("" when nothing).
inline std::string fixed_coordinates(const RepeatRequest& r) {
  std::string words = r.order >= 0 ? "order " + std::to_string(r.order) : "";
  if (!r.variant.empty()) words += (words.empty() ? "" : ", ") + std::string("variant ") + r.variant;
  return words;
}

/// "i1, order 0, variant plain": the item and what is held fixed (a figure's tooltip).
inline std::string request_words(const RepeatRequest& r) {
  const std::string fixed = fixed_coordinates(r);
  return r.item + (fixed.empty() ? "" : ", " + fixed);
}

/// "judge,family,item,order,variant" of a figure's CSV row (order empty for rotations).
inline std::string request_csv_fields(const RepeatRequest& r) {
  return csv_field(r.judge) + "," + r.family + "," + csv_field(r.item) + "," +
         (r.order >= 0 ? std::to_string(r.order) : "") + "," + csv_field(r.variant);
}

}  // namespace judgestat
