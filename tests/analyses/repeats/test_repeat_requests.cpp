// docs/statistics.md §8.5 "Per request" (RepeatsOptions::requests): every compared request with its
// members, on a hand-built file whose rows this test writes out by hand, and on the bundled GSM8K
// rounds (JEV Fig. 19) against the file's own numbers; the per-request figures (JEV Figs. 7c,
// 17–19) draw exactly those rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "judgestat/analysis.hpp"
#include "judgestat/records.hpp"
#include "judgestat/repeats.hpp"
#include "report/plot_axes.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::contains;
using testing_support::cpu_target;
using testing_support::kRoot;
using testing_support::write_temp;

// Item i1 (gold A): repeat 0 and 1 of order 0, and order 1 choosing B. Item i2 (gold B): two
// repeats of order 0, and an invalid order 1. Item i3: one record, so no request of it is compared.
const char* kFile =
    "judge,item,cluster,gold,verdict,order,repeat,p.A,p.B\n"
    "J,i1,c1,A,A,0,0,0.9,0.1\n"
    "J,i1,c1,A,A,0,1,0.8,0.2\n"
    "J,i1,c1,A,B,1,0,0.4,0.6\n"
    "J,i2,c2,B,B,0,0,0.3,0.7\n"
    "J,i2,c2,B,B,0,1,0.2,0.8\n"
    "J,i2,c2,B,X,1,0,,\n"
    "J,i3,c3,B,A,0,0,0.55,0.45\n";

RepeatsReport run_with_requests(const std::string& path) {
  RepeatsOptions options;
  options.requests = true;
  options.bootstrap.replicates = 200;
  return run_repeats(load_item_matrix(path), options, cpu_target(2));
}

void expect_member(const RepeatRequestMember& m, const std::string& member, const std::string& verdict, double q,
                   double p_gold) {
  EXPECT_EQ(m.member, member);
  EXPECT_EQ(m.verdict, verdict);
  if (std::isnan(q)) {
    EXPECT_TRUE(std::isnan(m.q));
    EXPECT_TRUE(std::isnan(m.p_gold));
  } else {
    EXPECT_NEAR(m.q, q, 1e-12);
    EXPECT_NEAR(m.p_gold, p_gold, 1e-12);
  }
}

TEST(RepeatRequests, EachComparedRequestWithItsMembersAndSummaries) {
  const RepeatsReport r = run_with_requests(write_temp("requests.csv", kFile));
  ASSERT_TRUE(r.with_requests);
  ASSERT_EQ(r.requests.size(), 4u);  // repeat: i1 and i2 (order 0); rotation: i1 and i2
  const RepeatRequest& i1_repeat = r.requests[0];
  EXPECT_EQ(i1_repeat.family, "repeat");
  EXPECT_EQ(i1_repeat.item, "i1");
  EXPECT_EQ(i1_repeat.gold, "A");
  EXPECT_EQ(i1_repeat.order, 0);
  EXPECT_TRUE(i1_repeat.all_agree);
  ASSERT_EQ(i1_repeat.members.size(), 2u);
  expect_member(i1_repeat.members[0], "0", "A", 0.9, 0.9);
  expect_member(i1_repeat.members[1], "1", "A", 0.8, 0.8);
  EXPECT_NEAR(i1_repeat.q_mean, (0.9 + 0.8) / 2, 1e-12);
  EXPECT_NEAR(i1_repeat.q_range, 0.9 - 0.8, 1e-12);
  EXPECT_NEAR(i1_repeat.tv_mean, 0.5 * (0.1 + 0.1), 1e-12);

  const RepeatRequest& i2_repeat = r.requests[1];
  EXPECT_EQ(i2_repeat.item, "i2");
  expect_member(i2_repeat.members[0], "0", "B", 0.7, 0.7);
  expect_member(i2_repeat.members[1], "1", "B", 0.8, 0.8);

  const RepeatRequest& i1_rotation = r.requests[2];
  EXPECT_EQ(i1_rotation.family, "rotation");
  EXPECT_EQ(i1_rotation.order, -1);  // the rotation family compares the orders
  EXPECT_FALSE(i1_rotation.all_agree);
  expect_member(i1_rotation.members[0], "0", "A", 0.9, 0.9);
  expect_member(i1_rotation.members[1], "1", "B", 0.6, 0.4);  // p of gold A, though it chose B
  EXPECT_NEAR(i1_rotation.q_mean, (0.9 + 0.6) / 2, 1e-12);
  EXPECT_NEAR(i1_rotation.q_range, 0.9 - 0.6, 1e-12);
  EXPECT_NEAR(i1_rotation.tv_mean, 0.5 * (0.5 + 0.5), 1e-12);

  // An invalid member agrees with nothing and carries no probabilities: one member with
  // probabilities is too few for the confidence's mean and range.
  const RepeatRequest& i2_rotation = r.requests[3];
  EXPECT_FALSE(i2_rotation.all_agree);
  expect_member(i2_rotation.members[1], "1", "invalid", NAN, NAN);
  EXPECT_TRUE(std::isnan(i2_rotation.q_mean));
  EXPECT_TRUE(std::isnan(i2_rotation.q_range));
  EXPECT_TRUE(std::isnan(i2_rotation.tv_mean));
}

TEST(RepeatRequests, OffByDefaultAndTheStatisticsDoNotChange) {
  const std::string path = write_temp("requests.csv", kFile);
  RepeatsOptions options;
  options.bootstrap.replicates = 200;
  const RepeatsReport plain = run_repeats(load_item_matrix(path), options, cpu_target(2));
  EXPECT_FALSE(plain.with_requests);
  EXPECT_TRUE(plain.requests.empty());
  const RepeatsReport with = run_with_requests(path);
  ASSERT_EQ(with.statistics.intervals.size(), plain.statistics.intervals.size());
  for (size_t s = 0; s < plain.statistics.intervals.size(); ++s)
    EXPECT_EQ(with.statistics.intervals[s].estimate, plain.statistics.intervals[s].estimate);
  EXPECT_FALSE(to_json(plain, ReportHead{}).contains("requests"));
  EXPECT_EQ(to_json(with, ReportHead{})["requests"].size(), 4u);
}

// The request's summaries are those the statistics average: the mean of all_agree is
// `<family>_agree`, of q_range `<family>_q_range`, and the pair-weighted mean of tv_mean `<family>_tv`.
TEST(RepeatRequests, TheRowsAverageToTheStatistics) {
  const RepeatsReport r = run_with_requests(kRoot + "/data/examples/repeats.csv");
  for (const std::string family : {"repeat", "variant", "rotation"})
    for (const std::string judge : {"calm", "jittery"}) {
      double range_sum = 0, agree = 0, tv_sum = 0;
      int64_t ranged = 0, requests = 0, tv_pairs = 0;
      for (const RepeatRequest& q : r.requests) {
        if (q.family != family || q.judge != judge) continue;
        ++requests;
        agree += q.all_agree;
        if (std::isfinite(q.q_range)) range_sum += q.q_range, ++ranged;
        int64_t with_probs = 0;
        for (const RepeatRequestMember& m : q.members) with_probs += std::isfinite(m.q);
        const int64_t pairs = with_probs * (with_probs - 1) / 2;
        if (std::isfinite(q.tv_mean)) tv_sum += q.tv_mean * static_cast<double>(pairs), tv_pairs += pairs;
      }
      ASSERT_GT(requests, 0) << judge << " " << family;
      for (size_t s = 0; s < r.statistics.labels.size(); ++s) {
        const StatLabel& l = r.statistics.labels[s];
        if (l.judge != judge || l.benchmark || l.condition || l.variant) continue;
        if (l.name == family + "_q_range") EXPECT_NEAR(r.statistics.intervals[s].estimate, range_sum / ranged, 1e-12);
        if (l.name == family + "_agree") EXPECT_NEAR(r.statistics.intervals[s].estimate, agree / requests, 1e-12);
        if (l.name == family + "_tv") EXPECT_NEAR(r.statistics.intervals[s].estimate, tv_sum / tv_pairs, 1e-12);
      }
    }
}

// JEV Fig. 19's control: each conversation's rounds are its variants; the members' p_gold are the
// file's p.correct, read here without judgestat.
TEST(RepeatRequests, GsmRoundsAreEachConversationsTrajectory) {
  const std::string path = kRoot + "/data/examples/jev_rounds.csv";
  const RepeatsReport r = run_with_requests(path);
  ASSERT_EQ(r.requests.size(), 12u);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // judge,item,cluster,benchmark,gold,verdict,variant,p.correct,…
  size_t rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) f.push_back(cell);
    const size_t conversation = rows / 9, round = rows % 9;
    ++rows;
    const RepeatRequest& q = r.requests.at(conversation);
    EXPECT_EQ(q.item, f[1]);
    EXPECT_EQ(q.family, "variant");
    EXPECT_TRUE(q.all_agree);  // every reply is reference-correct, and JEV says so
    ASSERT_EQ(q.members.size(), 9u);
    EXPECT_EQ(q.members[round].member, f[6]);
    EXPECT_EQ(q.members[round].p_gold, std::stod(f[7]));
  }
  EXPECT_EQ(rows, 108u);  // twelve nine-round conversations, as in the paper
}

const PlotFile* find_plot(const std::vector<PlotFile>& plots, const std::string& name) {
  for (const PlotFile& p : plots)
    if (p.name == name) return &p;
  return nullptr;
}

size_t lines_of(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(RepeatRequests, TheFiguresDrawEveryRequest) {
  const RepeatsReport r = run_with_requests(write_temp("requests.csv", kFile));
  const std::vector<PlotFile> plots = plot_files(r);
  const PlotFile* spread = find_plot(plots, "repeats_variation_spread");
  ASSERT_NE(spread, nullptr);
  // Three requests carry a variation (i2's rotation does not), then each family's mean row.
  EXPECT_TRUE(contains(spread->csv, "request,J,repeat,i1,0,plain," + csv_number(r.requests[0].tv_mean) + ",,\n"))
      << spread->csv;
  EXPECT_TRUE(contains(spread->csv, "request,J,rotation,i1,,plain,0.5,,\n")) << spread->csv;
  EXPECT_EQ(lines_of(spread->csv), 1u + 3u + 2u);
  const PlotFile* range = find_plot(plots, "repeats_confidence_range_J_rotation");
  ASSERT_NE(range, nullptr);
  EXPECT_TRUE(contains(range->csv, "J,rotation,i1,,plain,0.75," + csv_number(r.requests[2].q_range) + ",0\n"))
      << range->csv;
  EXPECT_TRUE(contains(range->svg, "verdict changes (1)"));
  EXPECT_TRUE(contains(range->svg, "verdicts agree (0)"));
  const PlotFile* members = find_plot(plots, "repeats_members_J_repeat");
  ASSERT_NE(members, nullptr);
  EXPECT_EQ(lines_of(members->csv), 1u + 4u);  // the two repeat requests' two members each
  EXPECT_TRUE(contains(members->svg, "probability of the gold label"));
  RepeatsReport without = r;
  without.requests.clear();
  EXPECT_TRUE(repeats_request_plot_files(without).empty());
}

TEST(RepeatRequests, TheRequestFlagAndPlotsTurnThemOn) {
  const std::string path = write_temp("requests.csv", kFile);
  const ItemMatrix matrix = load_item_matrix(path);
  const auto requests_in = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--replicates", "50"});
    const AnalysisResult run = run_analysis({"repeats", args}, matrix, cpu_target(1), ReportHead{});
    return run.json.contains("requests") ? static_cast<int>(run.json["requests"].size()) : -1;
  };
  EXPECT_EQ(requests_in({}), -1);
  EXPECT_EQ(requests_in({"--requests"}), 4);
  // --plots: the per-request figures need the rows, so the JSON carries them too.
  const std::string plots = testing_support::temp_path("request_plots");
  const auto cli =
      testing_support::run_cli("repeats " + path + " --replicates 50 --quiet --format json --plots " + plots);
  ASSERT_EQ(cli.status, 0) << cli.out;
  EXPECT_EQ(Json::parse(cli.out.substr(cli.out.find('{')))["requests"].size(), 4u);
  EXPECT_TRUE(contains(testing_support::read_all(plots + "/repeats_members_J_rotation.csv"), "J,rotation,i1"));
}

// The members figure's axis runs in the members' own order even when the first request lacks the
// first member: judge K's record makes v1 the file's first variant; J's i1 has v2 and v3 only, i2 all three.
TEST(RepeatRequests, MembersAxisRunsInTheMembersOrder) {
  const std::string path = write_temp("requests_members.csv",
                                      "judge,item,cluster,gold,verdict,variant,p.A,p.B\n"
                                      "K,i0,c0,A,A,v1,0.5,0.5\n"
                                      "J,i1,c1,A,A,v2,0.9,0.1\n"
                                      "J,i1,c1,A,A,v3,0.8,0.2\n"
                                      "J,i2,c2,A,A,v1,0.7,0.3\n"
                                      "J,i2,c2,A,A,v2,0.6,0.4\n"
                                      "J,i2,c2,A,B,v3,0.4,0.6\n");
  const RepeatsReport r = run_with_requests(path);
  ASSERT_EQ(r.requests.size(), 2u);  // K has one record: nothing to compare
  EXPECT_EQ(r.requests[0].members[0].member, "v2");
  EXPECT_EQ(r.requests[0].members[0].index, 1);
  const std::vector<PlotFile> plots = plot_files(r);
  const PlotFile* members = find_plot(plots, "repeats_members_J_variant");
  ASSERT_NE(members, nullptr);
  const size_t v1 = members->svg.find(">v1<"), v2 = members->svg.find(">v2<"), v3 = members->svg.find(">v3<");
  ASSERT_NE(v1, std::string::npos);
  EXPECT_LT(v1, v2);  // tick labels are written left to right
  EXPECT_LT(v2, v3);
}

}  // namespace
}  // namespace judgestat
