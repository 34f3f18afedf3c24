// report.html's writer (host/report/html_report.cpp): a summary per analysis first (issue 31),
// md tables become HTML tables with their headings and notes in collapsed families, CSV (items)
// becomes one table, figures are inlined with captions, text is escaped.
#include <string>
#include <vector>

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
  // A bold heading opens a collapsed family of tables; the plain line before a table stays its heading.
  EXPECT_NE(html.find("<details class=\"family\"><summary>Sweep (1 table)</summary>"), std::string::npos);
  EXPECT_EQ(html.find("<details open"), std::string::npos);
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

// A metrics result as docs/statistics.md §4 writes it, by hand: two judges, one scoped row.
Json metrics_result() {
  auto row = [](const char* name, const char* judge, Json order, double est, double lo, double hi) {
    return Json{{"name", name},         {"judge", judge},       {"reference", nullptr}, {"of", nullptr},
                {"benchmark", nullptr}, {"condition", nullptr}, {"order", order},       {"variant", nullptr},
                {"estimate", est},      {"ci", {lo, hi}},       {"label", nullptr},     {"position", nullptr}};
  };
  Json statistics =
      Json::array({row("acc", "a", 0, 0.924, 0.8804, 0.9603), row("pa", "a", nullptr, 0.9, 0.85, 0.95),
                   row("kappa", "a", nullptr, 0.62341, 0.55119, 0.70111), row("acc", "b", 0, 0.5, 0.41, 0.596)});
  Json scoped = row("acc", "b", 0, 0.1, 0.0, 0.2);
  scoped["benchmark"] = "math";  // a per-benchmark row: in the details, not the summary
  statistics.push_back(scoped);
  Json diff = row("diff", "b", nullptr, -0.4, -0.5, -0.31);
  diff["of"] = "pa";
  diff["reference"] = "a";
  statistics.push_back(diff);
  return {{"statistics", statistics},
          {"validity",
           {{{"judge", "a"}, {"records", 10}, {"invalid", 0}}, {{"judge", "b"}, {"records", 10}, {"invalid", 3}}}},
          {"notes", {"only 12 clusters: intervals may be too narrow"}}};
}

TEST(HtmlSummary, MetricsJudgesAsRowsHeadlinesAsColumnsInCapLayout) {
  const HtmlSummary summary = analysis_summary("metrics", metrics_result());
  ASSERT_EQ(summary.rows.size(), 3u);  // header, a, b
  EXPECT_EQ(summary.rows[0], (std::vector<std::string>{"judge", "acc [order 0]", "pa", "kappa", "Δpa vs a"}));
  // Shares in percent with one decimal, CI ends in whole points (CAP's 92.4 (88,96)); κ as it is.
  EXPECT_EQ(summary.rows[1],
            (std::vector<std::string>{"a", "92.4 (88,96)", "90.0 (85,95)", "0.623 (0.551,0.701)", ""}));
  EXPECT_EQ(summary.rows[2], (std::vector<std::string>{"b", "50.0 (41,60)", "", "", "-40.0 (-50,-31)"}));
  EXPECT_EQ(summary.notes, (std::vector<std::string>{"only 12 clusters: intervals may be too narrow",
                                                     "b: 3 of 10 records invalid, left out"}));
}

TEST(HtmlSummary, CascadeRulesAndBudgetDrawsAsRows) {
  const Json stat = {{"name", "cascade_acc"}, {"benchmark", nullptr}, {"estimate", 0.8125}, {"ci", {0.75, 0.875}}};
  const Json cascade = {
      {"rules",
       {{{"rule", "lower_bound"}, {"per_stratum", false}, {"heldout", {{"statistics", Json::array({stat})}}}}}}};
  const HtmlSummary rules = analysis_summary("cascade", cascade);
  ASSERT_EQ(rules.rows.size(), 2u);
  EXPECT_EQ(rules.rows[1], (std::vector<std::string>{"lower_bound", "81.2 (75,88)"}));
  const Json budget = {
      {"budget", {{{"k", 48}, {"rule", "point"}, {"loss_share", 0.25}, {"delta_q", {-0.05, 0.01, 0.03}}}}}};
  const HtmlSummary draws = analysis_summary("budget", budget);
  ASSERT_EQ(draws.rows.size(), 2u);
  EXPECT_EQ(draws.rows[1], (std::vector<std::string>{"k = 48, point", "25.0", "1.0 (-5,3)"}));
  // budget --compare: per k the power and the difference's median with its two quantiles.
  const Json compare = {
      {"budget",
       Json::array({{{"k", 50}, {"power", 0.8}, {"wrong_sign", 0.01}, {"d_median", 0.05}, {"d_q", {-0.02, 0.12}}}})}};
  const HtmlSummary power = analysis_summary("budget", compare);
  ASSERT_EQ(power.rows.size(), 2u);
  EXPECT_EQ(power.rows[1], (std::vector<std::string>{"k = 50", "80.0", "1.0", "5.0 (-2,12)"}));
  EXPECT_TRUE(analysis_summary("items", Json::object()).rows.empty());
}

TEST(HtmlReport, SummaryThenCaptionedFiguresThenCollapsedTables) {
  HtmlStudy study = one_analysis("**Accuracy**\n\n| judge | acc |\n|---|---|\n| a | 0.9 |\n", "");
  study.analyses[0].result = metrics_result();
  study.analyses[0].plots = {
      {"metrics_forest", "<svg><rect/><text x=\"1\">Accuracy &amp; CI per judge</text></svg>", ""}};
  const std::string html = html_report(study);
  const size_t summary = html.find("<td class=\"n\">92.4 (88,96)</td>"), figure = html.find("<figure>"),
               details = html.find("<details class=\"family\"><summary>Accuracy (1 table)</summary>");
  ASSERT_NE(summary, std::string::npos);
  ASSERT_NE(figure, std::string::npos);
  ASSERT_NE(details, std::string::npos);
  EXPECT_LT(summary, figure);
  EXPECT_LT(figure, details);
  EXPECT_NE(html.find("<figcaption>Accuracy &amp; CI per judge</figcaption>"), std::string::npos);
  EXPECT_NE(html.find("<li>b: 3 of 10 records invalid, left out</li>"), std::string::npos);
  // No 78 rem cap on the body (tables take the window); printed, the details are left out.
  const std::string body_rule =
      html.substr(html.find("body {"), html.find('}', html.find("body {")) - html.find("body {"));
  EXPECT_EQ(body_rule.find("max-width"), std::string::npos);
  EXPECT_NE(html.find("nav, details.family, footer table { display: none; }"), std::string::npos);
}

TEST(HtmlReport, FigureCaptionFallsBackToTheNameInWords) {
  EXPECT_EQ(figure_caption({"budget_delta_hist", "<svg></svg>", ""}), "budget delta hist");
  EXPECT_EQ(figure_caption({"x", "<svg><text>a &lt; b</text></svg>", ""}), "a < b");
}

}  // namespace
}  // namespace judgestat
