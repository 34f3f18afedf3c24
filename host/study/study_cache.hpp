// A study's cache entries (DIR/cache/KEY.json) and the checks an entry passes before it is
// reused: its digest matches its contents and it holds only what entry_text writes. An entry
// holds the result and the report's render state, never tables or figures: they are rendered
// from the report read back from the result (report/report_from_json.hpp), whose to_json must
// give the result again, so they cannot disagree with it (docs/study.md, "The cache").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/report.hpp"

namespace judgestat::study {

/// One analysis's outputs as the cache holds them.
struct CacheEntry {
  std::string key;
  AnalysisResult result;
  double seconds = 0;
};

/// The entries' format; part of the key, so an entry an older format wrote is simply not found.
/// 2: tables and figures left out where they are rendered from the result; 3: profile's too;
/// 4: cascade's too, so no entry holds tables or figures.
constexpr int kEntryFormat = 4;

/// The longest analysis and figure names: a folder name (NAME_MAX, 255 bytes) and a figure's
/// file with its suffixes (FIGURE.svg.tmp-XXXXXX, 15 bytes more).
constexpr size_t kMaxNameBytes = 255;
constexpr size_t kMaxFigureNameBytes = 240;

/// The largest entry file read_entry reads (256 MiB, far above any real entry): a larger one
/// is refused, and recomputed with a note, before it is read into memory.
constexpr uintmax_t kMaxEntryBytes = uintmax_t{256} << 20;

/// Letters, digits, '.', '_' and '-', not "." or "..", 1 to max_bytes bytes: a name that is one
/// file or folder inside DIR and nothing else.
bool is_plain_file_name(const std::string& name, size_t max_bytes);

/// Why `svg` is not a figure as the plot writer makes it (an element or attribute outside its
/// vocabulary: script, style, foreignObject, an event attribute, a reference or url(...)), or ""
/// when it is one. The cache no longer needs it (figures are rendered, never read from an
/// entry); the tests hold the plot writer's figures to it.
std::string foreign_svg_markup(const std::string& svg);

/// The entry as written to the cache: its fields, the result's render state (when it has one)
/// as "render", and "digest", the SHA-256 of the rest.
std::string entry_text(const CacheEntry& entry, const std::string& name, const std::string& command);

/// The SHA-256 that entry_text stores for a parsed entry (its "digest" left out).
std::string entry_digest(Json entry);

enum class EntryState { kMissing, kValid, kRejected };

/// Reads the entry at `path` for `key` of the analysis `command`: kMissing when absent or for
/// another key, kRejected with `why` when it fails a check (unreadable, another format, digest
/// mismatch, a field entry_text does not write, a result its report cannot be read back from,
/// larger than kMaxEntryBytes, nested deeper than kMaxJsonDepth, or rendering figures whose
/// names are not plain file names or repeat).
EntryState read_entry(const std::string& path, const std::string& key, const std::string& command, CacheEntry& entry,
                      std::string& why);

/// Whether a file name in DIR/cache is a cache entry's (64 lowercase hex digits, ".json") or the
/// temporary file of one.
bool is_entry_file_name(const std::string& name);

}  // namespace judgestat::study
