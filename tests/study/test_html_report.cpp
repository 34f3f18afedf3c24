// report.html's writer (host/report/html_report.cpp): md tables become HTML tables with their
// headings and notes, CSV (items) becomes one table, figures are inlined, text is escaped.
#include <string>

#include <gtest/gtest.h>

#include "report/html_report.hpp"

namespace judgestat {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

HtmlStudy one_analysis(const std::string& md, const std::string& csv) {
  HtmlStudy study{"A <study>", "", "s.json", "0.1.0", {{"jb", {{"jb.csv", "ab12"}}}}, {{"seed", "1"}}, {}};
  study.analyses.push_back({"m1",
                            "metrics",
                            "jb",
                            {"--by=benchmark"},
                            md,
                            csv,
                            {{"fig", "<?xml version=\"1.0\"?>\n<svg width=\"10\"></svg>", ""}},
                            0.5});
  return study;
}

TEST(HtmlReport, MdTablesKeepTheirHeadingsCellsAndNotes) {
  const std::string md =
      "Accuracy (§3.1): per judge\n| judge | estimate | 95% CI |\n|---|---|---|\n| a | 0.7086 | (0.66, 0.76) |\n"
      "| b | -0.1 | (-0.2, 0.0) |\n\nnote: p < 0.05 & more\n\n**Sweep**\n\n| t | acc |\n|---|---|\n| 0.5 | 0.8 |\n";
  const std::string html = html_report(one_analysis(md, ""));
  EXPECT_NE(html.find("<h3>Accuracy (§3.1): per judge</h3>"), std::string::npos);
  EXPECT_NE(html.find("<h3>Sweep</h3>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>a</td><td class=\"n\">0.7086</td><td>(0.66, 0.76)</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">-0.1</td>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"note\">note: p &lt; 0.05 &amp; more</p>"), std::string::npos);
  EXPECT_EQ(count(html, "<table>"), 2u + 2u);  // the two tables, the footer's inputs and times
  EXPECT_NE(html.find("<title>A &lt;study&gt;</title>"), std::string::npos);
  // The figure inline, without its XML declaration.
  EXPECT_NE(html.find("<figure>\n<svg width=\"10\"></svg>"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  // Provenance: the input's digest, the settings, the seconds.
  EXPECT_NE(html.find("<td>ab12</td>"), std::string::npos);
  EXPECT_NE(html.find("; seed 1"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"n\">0.50</td>"), std::string::npos);
  EXPECT_EQ(html, html_report(one_analysis(md, "")));  // equal studies, equal bytes
}

TEST(HtmlReport, CsvBecomesOneTableWithQuotedFields) {
  const std::string html = html_report(one_analysis("", "item,gold\n\"x,1\",A\n\"say \"\"hi\"\"\",B\n"));
  EXPECT_NE(html.find("<tr><td>x,1</td><td>A</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>say &quot;hi&quot;</td><td>B</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<th>item</th><th>gold</th>"), std::string::npos);
}

}  // namespace
}  // namespace judgestat
