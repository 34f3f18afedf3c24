#include "report/html_report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace judgestat {
namespace {

// Readable from 1,000 px wide, printable: text lines keep a readable measure, tables take the
// window's width, wrap their text cells and scroll inside their own box with the first column
// fixed when still too wide (no column is ever hidden); printed, the summaries and figures only.
const char* const kStyle = R"(
:root { --ink: #1f2328; --muted: #59636e; --rule: #d1d9e0; --band: #f6f8fa; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1.5rem 2rem 3rem; color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header, p, nav, .notes { max-width: 78rem; }
h1 { font-size: 1.7rem; margin: 0 0 .3rem; }
h2 { font-size: 1.3rem; margin: 2.2rem 0 .3rem; padding-top: .6rem; border-top: 2px solid var(--rule); }
h3 { font-size: 1.02rem; margin: 1.3rem 0 .4rem; }
p { margin: .35rem 0; }
.lead { color: var(--muted); }
.meta, .note, .notes, footer { color: var(--muted); font-size: .88rem; }
.notes { margin: .2rem 0 .6rem; padding-left: 1.2rem; }
.meta code, footer code { font-size: .82rem; }
nav ol { columns: 2; margin: .5rem 0 0; padding-left: 1.4rem; }
a { color: var(--accent); text-decoration: none; }
.scroll { overflow-x: auto; max-width: 100%; margin: .3rem 0 .6rem; }
table { border-collapse: collapse; font-size: .84rem; font-variant-numeric: tabular-nums; }
th, td { padding: .22rem .45rem; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
td.n { text-align: right; overflow-wrap: normal; }
th { background: var(--band); border-bottom: 2px solid var(--rule); cursor: pointer; }
th:first-child, td:first-child { position: sticky; left: 0; background: #fff; max-width: 18rem; }
th:first-child { background: var(--band); }
tbody tr:nth-child(even) td { background: #fbfcfd; }
.summary caption { caption-side: top; text-align: left; color: var(--muted); font-size: .82rem; padding: .2rem 0; }
details.family { margin: .3rem 0; border: 1px solid var(--rule); border-radius: 4px; padding: .2rem .6rem; }
details.family > summary { cursor: pointer; font-weight: 600; padding: .2rem 0; }
figure { margin: 1rem 0; max-width: 60rem; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: .85rem; }
footer { margin-top: 3rem; border-top: 2px solid var(--rule); padding-top: .8rem; }
footer table { font-size: .8rem; }
@page { size: A4; margin: 12mm; }
@media print {
  body { padding: 0; font-size: 10px; }
  .scroll { overflow: visible; }
  th:first-child, td:first-child { position: static; }
  tr, figure { break-inside: avoid; }
  h2 { break-after: avoid; }
  nav, details.family, footer table { display: none; }
  .summary table { font-size: 8px; }
  .summary td { white-space: nowrap; padding: .1rem .3rem; }
  /* Two figures side by side on A4's 186 mm: a study's dozens of figures in half the pages. */
  figure { display: inline-block; vertical-align: top; width: 90mm; max-width: 90mm; margin: .2rem 1mm; }
  figcaption { font-size: 8px; }
}
)";

// Sorts a table by the clicked header: numbers by value (the estimate of "0.7 (0.6, 0.8)"),
// text in order; a second click reverses. No table's data leaves the page.
const char* const kScript = R"(
document.addEventListener('click', function (e) {
  var th = e.target.closest('th'); if (!th) return;
  var table = th.closest('table'), body = table.tBodies[0]; if (!body) return;
  var col = Array.prototype.indexOf.call(th.parentNode.children, th);
  var down = th.getAttribute('data-sorted') !== 'up';
  Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute('data-sorted'); });
  th.setAttribute('data-sorted', down ? 'up' : 'down');
  var key = function (row) { var t = (row.cells[col] || {}).textContent || ''; var v = parseFloat(t.replace('\u2212', '-'));
    return isNaN(v) ? t : v; };
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) { var x = key(a), y = key(b); var o = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0)
    : (typeof x === 'number' ? -1 : 1); return down ? o : -o; });
  rows.forEach(function (r) { body.appendChild(r); });
});
)";

bool looks_numeric(const std::string& cell) {
  size_t i = 0;
  if (i < cell.size() && (cell[i] == '-' || cell[i] == '+')) ++i;
  return i < cell.size() && (std::isdigit(static_cast<unsigned char>(cell[i])) || cell[i] == '.');
}

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(' ') - begin + 1);
}

// "| a | b \| c |" → {"a", "b | c"}: Table::render writes a '|' inside a cell as \|.
std::vector<std::string> md_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t at = 1; at < line.size(); ++at) {
    if (line[at] == '\\' && at + 1 < line.size() && line[at + 1] == '|') {
      cell += '|';
      ++at;
    } else if (line[at] == '|') {
      cells.push_back(trimmed(cell));
      cell.clear();
    } else {
      cell += line[at];
    }
  }
  if (!trimmed(cell).empty()) cells.push_back(trimmed(cell));
  return cells;
}

void table_html(std::string& out, const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return;
  out += "<div class=\"scroll\"><table>\n<thead><tr>";
  for (const std::string& cell : rows[0]) out += "<th>" + html_escape(cell) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (size_t r = 1; r < rows.size(); ++r) {
    out += "<tr>";
    for (size_t c = 0; c < rows[r].size(); ++c)
      out += std::string(c > 0 && looks_numeric(rows[r][c]) ? "<td class=\"n\">" : "<td>") + html_escape(rows[r][c]) +
             "</td>";
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
}

// Opens a collapsed section for one family of tables (a heading of the md), closing the last.
void open_family(std::string& out, bool& open, const std::string& title, size_t tables) {
  if (open) out += "</details>\n";
  out += "<details class=\"family\"><summary>" + html_escape(title) +
         (tables ? " (" + std::to_string(tables) + (tables == 1 ? " table)" : " tables)") : std::string()) +
         "</summary>\n";
  open = true;
}

// How many tables the md has under each `**title**` or `### title` heading, in order.
std::vector<size_t> tables_per_family(const std::string& md) {
  std::vector<size_t> counts{0};
  bool in_table = false;
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    const std::string text = trimmed(line);
    const bool row = !line.empty() && line[0] == '|';
    if (row && !in_table) ++counts.back();
    in_table = row;
    if (!row && ((text.size() > 4 && text.rfind("**", 0) == 0) || text.rfind("#", 0) == 0)) counts.push_back(0);
  }
  return counts;
}

// The md tables of a report: `| … |` rows become tables, `**title**` and `### title` headings
// open a collapsed family of tables, a plain line right before a table its heading, every other
// line a note.
std::string md_to_html(const std::string& md) {
  std::string out, pending;  // pending: the last plain line, a heading if a table follows
  std::vector<std::vector<std::string>> rows;
  const std::vector<size_t> counts = tables_per_family(md);
  size_t family = 0;
  bool open = false;
  auto flush_note = [&] {
    if (!pending.empty()) out += "<p class=\"note\">" + html_escape(pending) + "</p>\n";
    pending.clear();
  };
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '|') {
      if (rows.empty() && !open) open_family(out, open, "Tables", counts[0]);
      if (rows.empty() && !pending.empty()) {
        out += "<h3>" + html_escape(pending) + "</h3>\n";
        pending.clear();
      }
      if (line.rfind("|---", 0) != 0) rows.push_back(md_cells(line));
      continue;
    }
    table_html(out, rows);
    rows.clear();
    const std::string text = trimmed(line);
    if (text.empty()) continue;
    flush_note();
    const size_t next = std::min(family + 1, counts.size() - 1);
    if (text.size() > 4 && text.rfind("**", 0) == 0 && text.compare(text.size() - 2, 2, "**") == 0)
      open_family(out, open, text.substr(2, text.size() - 4), counts[family = next]);
    else if (text.rfind("#", 0) == 0)
      open_family(out, open, trimmed(text.substr(text.find_first_not_of('#'))), counts[family = next]);
    else
      pending = text;
  }
  table_html(out, rows);
  flush_note();
  if (open) out += "</details>\n";
  return out;
}

// RFC 4180 lines (no line breaks inside fields) into rows.
std::vector<std::vector<std::string>> csv_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> row{""};
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        row.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        row.emplace_back();
      } else {
        row.back() += c;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string anchor(const std::string& name) { return "a-" + name; }

// An SVG for inline use: without an XML declaration.
std::string inline_svg(const std::string& svg) {
  const size_t start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

void summary_html(std::string& out, const HtmlSummary& summary) {
  if (!summary.rows.empty()) {
    out += "<div class=\"scroll summary\"><table>\n<caption>" + html_escape(summary.caption) + "</caption>\n";
    std::string body;
    table_html(body, summary.rows);
    const size_t start = body.find("<thead>"), end = body.rfind("</table>");
    out += body.substr(start, end - start) + "</table></div>\n";
  }
  if (summary.notes.empty()) return;
  out += "<ul class=\"notes\">\n";
  for (const std::string& note : summary.notes) out += "<li>" + html_escape(note) + "</li>\n";
  out += "</ul>\n";
}

void analysis_section(std::string& out, const HtmlAnalysis& a, size_t index) {
  out += "<section id=\"" + html_escape(anchor(a.name)) + "\" data-analysis=\"" + html_escape(a.analysis) + "\">\n";
  out += "<h2>" + std::to_string(index + 1) + ". " + html_escape(a.name) + "</h2>\n";
  std::string options;
  for (const std::string& option : a.options) options += (options.empty() ? "" : " ") + option;
  out += "<p class=\"meta\">judgestat " + html_escape(a.analysis) + " on input <b>" + html_escape(a.input) + "</b>" +
         (options.empty() ? "" : " with <code>" + html_escape(options) + "</code>") + "</p>\n";
  summary_html(out, analysis_summary(a.analysis, a.result));
  for (const PlotFile& plot : a.plots)
    out += "<figure>\n" + inline_svg(plot.svg) + "\n<figcaption>" + html_escape(figure_caption(plot)) +
           "</figcaption>\n</figure>\n";
  if (!a.md.empty()) {
    out += md_to_html(a.md);
  } else {
    const std::vector<std::vector<std::string>> rows = csv_rows(a.csv);
    out += "<details class=\"family\"><summary>Table (" + std::to_string(rows.empty() ? 0 : rows.size() - 1) +
           " rows)</summary>\n";
    table_html(out, rows);
    out += "</details>\n";
  }
  out += "</section>\n";
}

void provenance_footer(std::string& out, const HtmlStudy& study) {
  out += "<footer>\n<h3>Provenance</h3>\n<p>judgestat " + html_escape(study.version) + ", study <code>" +
         html_escape(study.study_path) + "</code>";
  for (const auto& [name, value] : study.settings) out += "; " + html_escape(name) + " " + html_escape(value);
  out += "</p>\n";
  std::vector<std::vector<std::string>> inputs{{"input", "file", "SHA-256"}};
  for (const HtmlInput& input : study.inputs)
    for (const auto& [path, sha256] : input.files) inputs.push_back({input.name, path, sha256});
  table_html(out, inputs);
  std::vector<std::vector<std::string>> times{{"analysis", "command", "input", "seconds"}};
  for (const HtmlAnalysis& a : study.analyses) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f", a.seconds);
    times.push_back({a.name, a.analysis, a.input, seconds});
  }
  table_html(out, times);
  out += "</footer>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string figure_caption(const PlotFile& plot) {
  const size_t open = plot.svg.find("<text");
  const size_t start = open == std::string::npos ? open : plot.svg.find('>', open);
  const size_t end = start == std::string::npos ? start : plot.svg.find("</text>", start);
  std::string title = end == std::string::npos ? "" : plot.svg.substr(start + 1, end - start - 1);
  if (title.find('<') != std::string::npos) title.clear();  // markup inside (<tspan>): not a plain title
  static const std::pair<std::string, std::string> kEntities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& entity : kEntities)
    for (size_t at = title.find(entity.first); at != std::string::npos; at = title.find(entity.first, at + 1))
      title.replace(at, entity.first.size(), entity.second);
  if (!trimmed(title).empty()) return trimmed(title);
  std::string words = plot.name;
  for (char& c : words)
    if (c == '_') c = ' ';
  return words;
}

std::string html_report(const HtmlStudy& study) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + html_escape(study.title) + "</title>\n<style>" + kStyle + "</style>\n<script>" + kScript +
         "</script>\n</head>\n<body>\n";
  out += "<header>\n<h1>" + html_escape(study.title) + "</h1>\n";
  if (!study.description.empty()) out += "<p class=\"lead\">" + html_escape(study.description) + "</p>\n";
  for (const std::string& note : study.notes) out += "<p class=\"note\">note: " + html_escape(note) + "</p>\n";
  out += "<nav><ol>\n";
  for (const HtmlAnalysis& a : study.analyses)
    out += "<li><a href=\"#" + html_escape(anchor(a.name)) + "\">" + html_escape(a.name) + "</a></li>\n";
  out += "</ol></nav>\n</header>\n<main>\n";
  for (size_t a = 0; a < study.analyses.size(); ++a) analysis_section(out, study.analyses[a], a);
  out += "</main>\n";
  provenance_footer(out, study);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace judgestat
