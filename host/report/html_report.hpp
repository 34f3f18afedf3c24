// The study's report.html (docs/study.md): one self-contained page (inline CSS and SVG, a small
// inline script that sorts tables, nothing fetched) with a section per analysis — first its
// summary (the headline statistics per judge, the notes that change a conclusion) and its
// figures with captions, then every table in collapsed sections by family — and a provenance
// footer. Readable from 1,000 px wide; printed, it gives the summaries and figures.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "judgestat/report.hpp"

namespace judgestat {

struct HtmlAnalysis {
  std::string name, analysis, input;
  std::vector<std::string> options;  // the CLI flags it ran with
  std::string md;                    // tables(report, "md"): tables, headings and notes
  std::string csv;                   // used when md is empty (items: its CSV as one table)
  std::vector<PlotFile> plots;
  double seconds = 0;  // time to compute it (when it was computed)
  Json result;         // its result JSON (docs/statistics.md §4), which the summary reads
};

/// The summary an analysis's section opens with: rows[0] is the header (judges, rules or
/// budgets as rows, headline statistics as columns, cells "estimate (lo,hi)" with shares in
/// percent points as CAP prints them, "92.4 (88,96)"); empty when the analysis has none. Notes:
/// the result's notes and the judges with invalid records.
struct HtmlSummary {
  std::string caption;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
};
HtmlSummary analysis_summary(const std::string& command, const Json& result);

/// What a figure shows, in words, for its caption: the SVG's title (its first <text>), else the
/// figure's name with '_' as spaces.
std::string figure_caption(const PlotFile& plot);

struct HtmlInput {
  std::string name;
  std::vector<std::pair<std::string, std::string>> files;  // path, SHA-256
};

struct HtmlStudy {
  std::string title, description, study_path, version;
  std::vector<HtmlInput> inputs;
  std::vector<std::pair<std::string, std::string>> settings;  // name, value: seed, replicates, CI, backend …
  std::vector<HtmlAnalysis> analyses;
  std::vector<std::string> notes;  // the run's own notes (a cache entry recomputed, files kept aside)
};

/// The page. Equal studies give equal bytes.
std::string html_report(const HtmlStudy& study);

/// `text` with &, <, >, " escaped for HTML.
std::string html_escape(const std::string& text);

}  // namespace judgestat
