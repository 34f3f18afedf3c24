// The study's report.html (docs/study.md): one self-contained page (inline CSS and SVG, no
// script, nothing fetched) with a section per analysis — its tables (estimate and CI per cell,
// as the text tables lay them out), its figures, the notes and validity lines — and a
// provenance footer. Readable on a laptop screen and printable.
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
};

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
