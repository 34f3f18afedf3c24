// The study folder owns only its files (issue 26, parts 2-4 and 8): a user's files in DIR and
// DIR/cache survive every run, a folder that is not a study's is refused without --force, cache
// entries are checked before reuse, a run replaces DIR in one step under a lock, and study files
// say each key once and name folders that fit.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/study.hpp"
#include "records/sha256.hpp"
#include "report/html_report.hpp"
#include "study/study_cache.hpp"
#include "study/study_folder.hpp"
#include "study/study_support.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

namespace fs = std::filesystem;
using study_testing::fresh_dir;
using study_testing::read_all;
using study_testing::run_into;
using study_testing::tree;
using study_testing::without_run_fields;
using study_testing::without_timing;
using study_testing::write_all;
using testing_support::kRoot;
using testing_support::run_cli;
using testing_support::thrown_message;

const std::string kJudgeBench = kRoot + "/data/judgebench/gpt4o_split.csv";

// Two analyses over one input: metrics (with a figure) and items.
std::string small_study(const std::string& dir, const std::string& extra_settings = "") {
  write_all(dir + "/jb.csv", read_all(kJudgeBench));
  write_all(dir + "/study.json", R"({
    "settings": {"replicates": 100, "backend": "cpu", "threads": 2)" +
                                     extra_settings + R"(},
    "inputs": {"jb": "jb.csv"},
    "analyses": [
      {"name": "acc", "analysis": "metrics", "input": "jb", "judges": ["o1-mini-2024-09-12", "Skywork_Skywork-Reward-Llama-3.1-8B"]},
      {"name": "disagree", "analysis": "items", "input": "jb", "disagree": true}
    ]})");
  return dir + "/study.json";
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(StudyFolder, UsersFilesInTheFolderAndItsCacheSurviveRuns) {
  const std::string dir = fresh_dir("foreign");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  write_all(out + "/cache/notes.txt", "my notes");
  write_all(out + "/thesis.tmp-draft.txt", "chapter 1");
  write_all(out + "/acc/mine.txt", "beside the tables");
  fs::create_directories(out + "/empty-folder-of-mine");
  const StudyOutcome reused = run_into(study, out);
  EXPECT_EQ(reused.reused.size(), 2u);
  // Recomputing everything, and a study without "disagree": its folder goes, the user's files stay.
  write_all(dir + "/acc_only.json", R"({"settings": {"replicates": 100, "backend": "cpu", "threads": 2},
    "inputs": {"jb": "jb.csv"},
    "analyses": [{"name": "acc", "analysis": "metrics", "input": "jb", "judges": ["o1-mini-2024-09-12", "Skywork_Skywork-Reward-Llama-3.1-8B"]}]})");
  run_into(dir + "/acc_only.json", out, /*force=*/true);
  EXPECT_EQ(read_all(out + "/cache/notes.txt"), "my notes");
  EXPECT_EQ(read_all(out + "/thesis.tmp-draft.txt"), "chapter 1");
  EXPECT_EQ(read_all(out + "/acc/mine.txt"), "beside the tables");
  EXPECT_TRUE(fs::is_directory(out + "/empty-folder-of-mine"));
  EXPECT_FALSE(fs::exists(out + "/disagree"));
  // The cache holds the one entry in use and the user's file; the manifest lists the tool's files only.
  std::vector<std::string> cache = names_in(out + "/cache");
  ASSERT_EQ(cache.size(), 2u);
  EXPECT_TRUE(study::is_entry_file_name(cache[0])) << cache[0];
  EXPECT_EQ(cache[1], "notes.txt");
  const Json manifest = Json::parse(read_all(out + "/.judgestat-study.json"));
  std::vector<std::string> listed = manifest["files"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(listed.begin(), listed.end(), "results.json"), listed.end());
  EXPECT_NE(std::find(listed.begin(), listed.end(), "acc/tables.csv"), listed.end());
  EXPECT_NE(std::find(listed.begin(), listed.end(), "cache/" + cache[0]), listed.end());
  for (const std::string& file : listed) EXPECT_TRUE(fs::is_regular_file(out + "/" + file)) << file;
  EXPECT_EQ(std::count(listed.begin(), listed.end(), "cache/notes.txt"), 0);
  // Nothing of the run's own is left beside the folder.
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"acc_only.json", "jb.csv", "out", "study.json"}));
}

TEST(StudyFolder, AFolderThatIsNotAStudysIsRefusedWithoutForce) {
  const std::string dir = fresh_dir("not_study");
  const std::string study = small_study(dir), out = dir + "/out";
  fs::create_directories(out);
  write_all(out + "/paper.tex", "\\section{}");
  const std::string message = thrown_message<UsageError>([&] { run_into(study, out); });
  EXPECT_NE(message.find("not a judgestat study folder"), std::string::npos) << message;
  EXPECT_NE(message.find("--force"), std::string::npos) << message;
  EXPECT_EQ(names_in(out), (std::vector<std::string>{"paper.tex"}));  // refused before anything
  const auto cli = run_cli("run '" + study + "' --out '" + out + "' --quiet");
  EXPECT_EQ(cli.status, 2) << cli.out;
  EXPECT_NE(cli.out.find("not a judgestat study folder"), std::string::npos) << cli.out;
  // --force writes into it and keeps the file; from then on it is a study folder.
  EXPECT_EQ(run_into(study, out, true).computed.size(), 2u);
  EXPECT_EQ(read_all(out + "/paper.tex"), "\\section{}");
  EXPECT_EQ(run_into(study, out).reused.size(), 2u);
  EXPECT_EQ(read_all(out + "/paper.tex"), "\\section{}");
}

TEST(StudyFolder, AFolderFromBeforeManifestsIsAStudyFolder) {
  const std::string dir = fresh_dir("legacy");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  fs::remove(out + "/.judgestat-study.json");  // as an older judgestat left it
  write_all(out + "/acc/mine.svg.txt", "mine");
  EXPECT_EQ(run_into(study, out).reused.size(), 2u);
  EXPECT_EQ(read_all(out + "/acc/mine.svg.txt"), "mine");
}

// The cache entry of the analysis named `name` in `out`, parsed.
std::string entry_path(const std::string& out, const std::string& name) {
  const Json results = Json::parse(read_all(out + "/results.json"));
  for (const Json& analysis : results["analyses"])
    if (analysis["name"] == name) return out + "/cache/" + analysis["key"].get<std::string>() + ".json";
  return "";
}

void rewrite_entry(const std::string& path, const std::function<void(Json&)>& edit, bool resign) {
  Json entry = Json::parse(read_all(path));
  edit(entry);
  if (resign) entry["digest"] = study::entry_digest(entry);
  write_all(path, dump_json(entry) + "\n");
}

TEST(StudyCacheChecks, TamperedEntriesAreRecomputedWithANote) {
  const std::string dir = fresh_dir("tampered");
  small_study(dir);
  // A cascade: its entry, like every entry, holds no figures; one a forger adds is refused by name.
  write_all(dir + "/study.json", R"({"settings": {"replicates": 100, "backend": "cpu", "threads": 2},
    "inputs": {"jb": "jb.csv"},
    "analyses": [
      {"name": "gate", "analysis": "cascade", "input": "jb", "first": "Skywork_Skywork-Reward-Llama-3.1-8B",
       "fallback": "o1-mini-2024-09-12"},
      {"name": "disagree", "analysis": "items", "input": "jb", "disagree": true}]})");
  const std::string study = dir + "/study.json", out = dir + "/out";
  run_into(study, out);
  const std::string results = read_all(out + "/results.json"), report = read_all(out + "/report.html");
  const std::string path = entry_path(out, "gate");
  ASSERT_FALSE(Json::parse(read_all(path)).contains("plots"));
  const Json forged_plot = {{"name", "../../../x"}, {"svg", "<svg><script>alert(1)</script></svg>"}, {"csv", ""}};
  struct Tamper {
    const char* why;  // in the note
    bool resign;      // the digest recomputed, as a forger would
    std::function<void(Json&)> edit;
  };
  const Tamper tampers[] = {
      {"it holds 'plots'", true, [&](Json& e) { e["plots"] = Json::array({forged_plot}); }},
      {"it holds 'text'", true, [](Json& e) { e["text"] = "<script>alert(1)</script>"; }},
      {"digest does not match", false, [](Json& e) { e["result"]["settings"]["seed"] = 123456; }},
  };
  for (const Tamper& tamper : tampers) {
    SCOPED_TRACE(tamper.why);
    rewrite_entry(path, tamper.edit, tamper.resign);
    const StudyOutcome outcome = run_into(study, out);
    EXPECT_EQ(outcome.computed, (std::vector<std::string>{"gate"}));
    ASSERT_EQ(outcome.notes.size(), 1u);
    EXPECT_NE(outcome.notes[0].find(tamper.why), std::string::npos) << outcome.notes[0];
    EXPECT_NE(outcome.notes[0].find("recomputed"), std::string::npos) << outcome.notes[0];
    const Json now = Json::parse(read_all(out + "/results.json"));
    EXPECT_EQ(now["study"]["notes"], Json::array({outcome.notes[0]}));
    EXPECT_EQ(dump_json(without_run_fields(now)["analyses"]),
              dump_json(without_run_fields(Json::parse(results))["analyses"]));
    // The page is the untampered one plus the note under the title.
    const std::string note_html = "<p class=\"note\">note: " + html_escape(outcome.notes[0]) + "</p>\n";
    std::string page = read_all(out + "/report.html");
    const size_t at = page.find(note_html);
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(without_timing(page.erase(at, note_html.size())), without_timing(report));
    EXPECT_EQ(read_all(out + "/report.html").find("alert(1)"), std::string::npos);  // only the page's own script
    for (const std::string& where : {dir, dir + "/..", dir + "/../..", dir + "/out/.."})
      EXPECT_FALSE(fs::exists(where + "/x.svg")) << where;
  }
  // The recomputed entry is whole again: the next run reuses it, with no note.
  const StudyOutcome clean = run_into(study, out);
  EXPECT_EQ(clean.reused.size(), 2u);
  EXPECT_TRUE(clean.notes.empty());
}

TEST(StudyCacheChecks, TheToolsOwnFiguresPassTheMarkupCheckAndForeignMarkupFails) {
  const auto& run = study_testing::bundled_run();
  int figures = 0;
  for (const auto& entry : fs::recursive_directory_iterator(run.dir))
    if (entry.path().extension() == ".svg") {
      EXPECT_EQ(study::foreign_svg_markup(read_all(entry.path())), "") << entry.path();
      ++figures;
    }
  EXPECT_GE(figures, 5);
  const std::string head = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">";
  EXPECT_EQ(study::foreign_svg_markup(
                head + "<rect width=\"1\" height=\"1\" fill=\"#fff\"/><text x=\"1\">a &lt; b</text></svg>"),
            "");
  for (const char* bad : {"<script>x</script>", "<foreignObject><p>x</p></foreignObject>", "<style>*{}</style>",
                          "<rect fill=\"url(http://e.org/a#b)\"/>", "<a href=\"javascript:x\">x</a>",
                          "<rect xlink:href=\"#x\"/>", "<rect onclick=\"x\"/>", "<rect style=\"background:url(x)\"/>",
                          "<!-- x --><rect/>", "<rect width=1/>", "<SCRIPT>x</SCRIPT>", "<rect fill=\"&#117;rl(x)\"/>"})
    EXPECT_NE(study::foreign_svg_markup(head + bad + "</svg>"), "") << bad;
  EXPECT_NE(study::foreign_svg_markup("<html><svg></svg>"), "");
  EXPECT_TRUE(study::is_plain_file_name("cascade_accuracy_fee_mmlu", study::kMaxFigureNameBytes));
  for (const char* bad : {"", ".", "..", "../x", "a/b", "a b", "x\n"})
    EXPECT_FALSE(study::is_plain_file_name(bad, study::kMaxFigureNameBytes)) << bad;
  EXPECT_FALSE(study::is_plain_file_name(std::string(241, 'a'), study::kMaxFigureNameBytes));
}

TEST(StudyCacheChecks, AReusedResultNamesTheInputAsItIsCalledNow) {
  const std::string dir = fresh_dir("renamed");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  fs::rename(dir + "/jb.csv", dir + "/judgebench.csv");
  std::string text = read_all(study);
  text.replace(text.find("\"jb.csv\""), 8, "\"judgebench.csv\"");
  write_all(study, text);
  EXPECT_EQ(run_into(study, out).reused.size(), 2u);
  const std::string results = read_all(out + "/results.json");
  EXPECT_EQ(results.find("/jb.csv"), std::string::npos);
  const Json json = Json::parse(results);
  EXPECT_EQ(json["analyses"][0]["result"]["input"]["path"], dir + "/judgebench.csv");
  EXPECT_EQ(json["analyses"][0]["result"]["argv"][1], dir + "/judgebench.csv");
}

TEST(StudyFolder, AnInterruptedRunLeavesThePreviousCompleteFolder) {
  const std::string dir = fresh_dir("interrupted");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  auto without_cache = [&] {
    auto files = tree(out);
    for (auto it = files.begin(); it != files.end();)
      it = it->first.rfind("cache/", 0) == 0 ? files.erase(it) : std::next(it);
    return files;
  };
  const auto before = without_cache();
  // Another seed changes every output; the run stops when they are all staged, before the swap.
  const std::string reseeded = small_study(dir, R"(, "seed": 9)");
  std::string staged;
  EXPECT_THROW(run_into(reseeded, out, false,
                        [&](const std::string& stage) {
                          staged = stage;
                          EXPECT_TRUE(fs::is_regular_file(stage + "/acc/tables.csv"));
                          throw std::runtime_error("interrupted");
                        }),
               std::runtime_error);
  EXPECT_EQ(without_cache(), before);
  EXPECT_FALSE(fs::exists(staged));
  // A stage a killed run left beside the folder is removed by the next run; the finished
  // analyses' entries are reused.
  fs::create_directories(staged + "/acc");
  write_all(staged + "/.judgestat-staging", "");
  write_all(staged + "/acc/tables.csv", "partial");
  EXPECT_EQ(run_into(reseeded, out).reused.size(), 2u);
  EXPECT_FALSE(fs::exists(staged));
  EXPECT_NE(tree(out)["results.json"], before.at("results.json"));
}

TEST(StudyFolder, APreviousRunLeftBesideByAnInterruptedSwapGivesBackTheUsersFiles) {
  const std::string dir = fresh_dir("half_swapped");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  // As if a run stopped right after swapping: the previous run's folder, with a user's file, beside DIR.
  const std::string old = dir + "/.judgestat-stage-" + sha256_hex("out").substr(0, 12) + "-1-0";
  fs::copy(out, old, fs::copy_options::recursive);
  write_all(old + "/mine.txt", "mine");
  run_into(study, out);
  EXPECT_FALSE(fs::exists(old));
  EXPECT_EQ(read_all(out + "/mine.txt"), "mine");
}

TEST(StudyFolder, ASecondRunIntoTheSameFolderFailsWhileTheFirstWrites) {
  const std::string dir = fresh_dir("concurrent");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  std::promise<void> staged, release;
  std::shared_future<void> released = release.get_future().share();
  auto first = std::async(std::launch::async, [&] {
    return run_into(study, out, false, [&](const std::string&) {
      staged.set_value();
      released.wait();
    });
  });
  staged.get_future().wait();
  const std::string message = thrown_message<UsageError>([&] { run_into(study, out); });
  EXPECT_NE(message.find("another judgestat run is writing this folder"), std::string::npos) << message;
  release.set_value();
  EXPECT_EQ(first.get().reused.size(), 2u);
  EXPECT_EQ(run_into(study, out).reused.size(), 2u);  // the lock is gone with the run
}

TEST(StudyFolder, AFolderHoldingTheWorkingDirectoryIsUpdatedInPlace) {
  const std::string dir = fresh_dir("in_place");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  write_all(out + "/mine.txt", "mine");
  const fs::path cwd = fs::current_path();
  fs::current_path(out);
  std::string error;
  try {
    write_all(dir + "/acc_only.json", R"({"settings": {"replicates": 100, "backend": "cpu", "threads": 2},
      "inputs": {"jb": "jb.csv"}, "analyses": [{"name": "acc", "analysis": "metrics", "input": "jb", "seed": 3}]})");
    run_into(dir + "/acc_only.json", ".");
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  fs::current_path(cwd);
  EXPECT_EQ(error, "");
  EXPECT_EQ(read_all(out + "/mine.txt"), "mine");
  EXPECT_FALSE(fs::exists(out + "/disagree"));
  EXPECT_TRUE(fs::is_regular_file(out + "/acc/tables.csv"));
  EXPECT_EQ(Json::parse(read_all(out + "/results.json"))["analyses"].size(), 1u);
  for (const std::string& name : names_in(out)) EXPECT_EQ(name.find(".judgestat-stage"), std::string::npos) << name;
  EXPECT_EQ(names_in(out + "/cache").size(), 1u);
}

// Runs `study_path` into `out` with the working directory inside it, so that the run commits in place.
std::string run_in_place(const std::string& study_path, const std::string& out, std::vector<std::string>* notes) {
  const fs::path cwd = fs::current_path();
  fs::current_path(out);
  std::string error;
  try {
    const StudyOutcome outcome = run_into(study_path, ".");
    if (notes) *notes = outcome.notes;
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  fs::current_path(cwd);
  return error;
}

TEST(StudyFolder, InPlaceAUsersFileOrLinkWhereAnOutputGoesIsKeptAsideNeverWrittenThrough) {
  const std::string dir = fresh_dir("in_place_clash");
  const std::string study = small_study(dir), out = dir + "/out", elsewhere = dir + "/elsewhere";
  run_into(study, out);
  // The user replaced the analysis folder "acc" by a link elsewhere, and made a plain file named
  // like the new analysis "fresh".
  fs::create_directories(elsewhere);
  write_all(elsewhere + "/theirs.txt", "theirs");
  fs::remove_all(out + "/acc");
  fs::create_directory_symlink(elsewhere, out + "/acc");
  write_all(out + "/fresh", "my plain file");
  write_all(dir + "/two.json", R"({"settings": {"replicates": 100, "backend": "cpu", "threads": 2},
    "inputs": {"jb": "jb.csv"}, "analyses": [
      {"name": "acc", "analysis": "metrics", "input": "jb", "judges": ["o1-mini-2024-09-12"]},
      {"name": "fresh", "analysis": "items", "input": "jb", "disagree": true}]})");
  std::vector<std::string> notes;
  EXPECT_EQ(run_in_place(dir + "/two.json", out, &notes), "");
  // Nothing was written through the link; the link and the file are in kept-by-judgestat-1.
  EXPECT_EQ(names_in(elsewhere), std::vector<std::string>{"theirs.txt"});
  EXPECT_TRUE(fs::is_symlink(out + "/kept-by-judgestat-1/acc"));
  EXPECT_EQ(read_all(out + "/kept-by-judgestat-1/fresh"), "my plain file");
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(out + "/acc")));
  EXPECT_TRUE(fs::is_regular_file(out + "/acc/tables.csv"));
  EXPECT_TRUE(fs::is_regular_file(out + "/fresh/tables.csv"));
  const bool noted = std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("2 file(s) of yours had the name of a new output; kept in") != std::string::npos;
  });
  EXPECT_TRUE(noted);
  for (const std::string& name : names_in(out)) EXPECT_EQ(name.find(".judgestat-stage"), std::string::npos) << name;
}

TEST(StudyFolder, TwoAnalysesWithOneCacheKeyRunAndRerun) {
  const std::string dir = fresh_dir("same_key");
  write_all(dir + "/jb.csv", read_all(kJudgeBench));
  write_all(dir + "/study.json", R"({"settings": {"replicates": 100, "backend": "cpu", "threads": 2},
    "inputs": {"jb": "jb.csv"}, "analyses": [
      {"name": "one", "analysis": "items", "input": "jb", "disagree": true},
      {"name": "two", "analysis": "items", "input": "jb", "disagree": true}]})");
  const std::string out = dir + "/out";
  // The second finds the first's entry already in the cache.
  const StudyOutcome first = run_into(dir + "/study.json", out);
  EXPECT_EQ(first.computed, std::vector<std::string>{"one"});
  EXPECT_EQ(first.reused, std::vector<std::string>{"two"});
  EXPECT_EQ(run_into(dir + "/study.json", out).reused.size(), 2u);
  EXPECT_EQ(names_in(out + "/cache").size(), 1u);  // one entry serves both
  EXPECT_EQ(read_all(out + "/one/tables.csv"), read_all(out + "/two/tables.csv"));
  // In place too.
  EXPECT_EQ(run_in_place(dir + "/study.json", out, nullptr), "");
  EXPECT_EQ(names_in(out + "/cache").size(), 1u);
}

TEST(StudyFolder, TheFolderKeepsItsModeAcrossTheSwap) {
  const std::string dir = fresh_dir("mode");
  const std::string study = small_study(dir), out = dir + "/out";
  fs::create_directories(out);
  fs::permissions(out, fs::perms::owner_all);
  run_into(study, out);
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::mask, fs::perms::owner_all);
  fs::permissions(out, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  run_into(study, out);
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::mask,
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

TEST(StudyFolder, OnlyARegularMarkerFileMakesAFolderAStageToRemove) {
  const std::string dir = fresh_dir("marker_kind");
  const std::string study = small_study(dir), out = dir + "/out";
  run_into(study, out);
  // A user's folder inside DIR named like a stage, whose "marker" is a folder: not the tool's.
  const std::string lookalike = out + "/.judgestat-stage-mine";
  fs::create_directories(lookalike + "/.judgestat-staging");
  write_all(lookalike + "/data.txt", "mine");
  const std::string sibling = dir + "/.judgestat-stage-" + sha256_hex("out").substr(0, 12) + "-7-0";
  fs::create_directories(sibling);
  fs::create_symlink(dir + "/jb.csv", sibling + "/.judgestat-staging");
  write_all(sibling + "/data.txt", "mine too");
  run_into(study, out);
  EXPECT_EQ(read_all(lookalike + "/data.txt"), "mine");
  // The sibling is no stage (its marker is a link): a previous folder whose files are all the user's.
  EXPECT_FALSE(fs::exists(sibling));
  EXPECT_EQ(read_all(out + "/data.txt"), "mine too");
}

std::string study_error(const std::string& dir, const std::string& text) {
  write_all(dir + "/study.json", text);
  return thrown_message<UsageError>([&] { load_study(dir + "/study.json"); });
}

TEST(StudyFileChecks, DuplicateKeysAreErrorsNamingTheKey) {
  const std::string dir = fresh_dir("duplicates");
  const std::string inputs = R"("inputs": {"jb": ")" + kJudgeBench + R"("})";
  EXPECT_NE(study_error(dir, R"({"settings": {"seed": 1, "seed": 2}, )" + inputs +
                                 R"(, "analyses": [{"analysis": "items", "input": "jb"}]})")
                .find("study.json: settings: key 'seed': given twice"),
            std::string::npos);
  EXPECT_NE(study_error(dir, "{" + inputs + R"(, "analyses": [{"analysis": "items", "input": "jb"},
              {"analysis": "metrics", "input": "jb", "judges": "a", "judges": "b"}]})")
                .find("analyses[1]: key 'judges': given twice"),
            std::string::npos);
  EXPECT_NE(study_error(dir, "{" + inputs + R"(, "analyses": [{"analysis": "cascade", "input": "jb", "first": "a",
              "fallback": "b", "fee": {"a": 1, "a": 2}}]})")
                .find("analyses[0].fee: key 'a': given twice"),
            std::string::npos);
  EXPECT_NE(study_error(dir, "{" + inputs + ", " + inputs + R"(, "analyses": []})")
                .find("top level: key 'inputs': given twice"),
            std::string::npos);
}

TEST(StudyFileChecks, SeedAndReplicatesTakeWhatTheCommandLineTakes) {
  const std::string dir = fresh_dir("settings");
  const std::string rest =
      R"(, "inputs": {"jb": ")" + kJudgeBench + R"("}, "analyses": [{"analysis": "metrics", "input": "jb"}]})";
  write_all(dir + "/study.json", R"({"settings": {"seed": 18446744073709551615, "replicates": "300"})" + rest);
  const Study study = load_study(dir + "/study.json");
  EXPECT_EQ(*study.settings.seed, 18446744073709551615ull);
  EXPECT_EQ(*study.settings.replicates, 300u);
  write_all(dir + "/study.json", R"({"settings": {"seed": "0x10"})" + rest);
  EXPECT_EQ(*load_study(dir + "/study.json").settings.seed, 16u);  // as cxxopts reads --seed 0x10
  for (const char* bad : {"-1", "1.5", "\"ten\"", "18446744073709551616", "true"}) {
    const std::string message = study_error(dir, std::string(R"({"settings": {"seed": )") + bad + "}" + rest);
    EXPECT_NE(message.find("settings: key 'seed': expected a whole number"), std::string::npos) << bad << message;
  }
}

TEST(StudyFileChecks, NamesThatCannotBeAFolderAreRefusedBeforeComputing) {
  const std::string dir = fresh_dir("names");
  const std::string file = R"(")" + kJudgeBench + R"(")";
  const std::string longest(255, 'n');
  write_all(dir + "/study.json", R"({"inputs": {"jb": )" + file + R"(}, "analyses": [{"name": ")" + longest +
                                     R"(", "analysis": "items", "input": "jb"}]})");
  EXPECT_EQ(load_study(dir + "/study.json").analyses[0].name, longest);
  EXPECT_NE(study_error(dir, R"({"inputs": {"jb": )" + file + R"(}, "analyses": [{"name": ")" + longest +
                                 R"(n", "analysis": "items", "input": "jb"}]})")
                .find("analyses[0]: key 'name': the analysis's folder name"),
            std::string::npos);
  // A default name carries the input's name: one of 250 bytes makes "items_" + 250 too long, one with '/' a path.
  const std::string long_input(250, 'i');
  EXPECT_NE(study_error(dir, R"({"inputs": {")" + long_input + R"(": )" + file +
                                 R"(}, "analyses": [{"analysis": "items", "input": ")" + long_input + R"("}]})")
                .find("key 'input': the analysis's folder name 'items_iii"),
            std::string::npos);
  EXPECT_NE(
      study_error(dir, R"({"inputs": {"../x": )" + file + R"(}, "analyses": [{"analysis": "items", "input": "../x"}]})")
          .find("give the analysis a \"name\""),
      std::string::npos);
  // Names of the tool's own files and folders in DIR: staging, manifest, kept-aside folders.
  for (const char* reserved :
       {".judgestat-staging", ".judgestat-study.json", ".judgestat-stage-1-0", ".judgestat", "kept-by-judgestat-1"}) {
    const std::string message = study_error(dir, R"({"inputs": {"jb": )" + file + R"(}, "analyses": [{"name": ")" +
                                                     reserved + R"(", "analysis": "items", "input": "jb"}]})");
    EXPECT_NE(
        message.find("analyses[0]: key 'name': '" + std::string(reserved) + "' is a file or folder of the study's own"),
        std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace judgestat
