// The analyses through the analysis-request layer (include/judgestat/analysis.hpp): Python's
// keyword arguments arrive as typed values (AnalysisValues: bool, int, float, str, lists, dicts),
// read by each analysis's own option reader, so the options' defaults, checks and messages and
// the outputs are the CLI's. The engine runs with the GIL released; the progress hook, called
// after each chunk, takes the GIL back to check for Ctrl-C (PyErr_CheckSignals) and to report
// progress, and stops the run by throwing.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "judgestat/analysis.hpp"
#include "judgestat/option_table.hpp"
#include "judgestat/report.hpp"
#include "judgestat/study.hpp"

namespace py = pybind11;

namespace judgestat::python {
namespace {

/// Whether an analysis's options have replicate statistics (a `bootstrap` member).
template <typename Options, typename = void>
constexpr bool has_bootstrap = false;
template <typename Options>
constexpr bool has_bootstrap<Options, std::void_t<decltype(std::declval<Options&>().bootstrap)>> = true;

/// Thrown from the progress hook to stop the run; the Python error (KeyboardInterrupt, or what
/// the progress callback raised) waits in `pending` until the GIL is back.
struct Stopped {};

struct Run {
  std::shared_ptr<const AnalysisResult> result;
};

/// The keyword arguments read into the analysis's typed options, and the target they name.
struct Request {
  TypedAnalysisRequest typed;
  ExecTarget target;
};

[[noreturn]] void not_a_value(const std::string& flag, const py::handle& value) {
  throw UsageError("--" + flag + ": expected a bool, int, float, str, path, list or dict, got " +
                   py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
}

/// A Python int (or anything with __index__, as numpy's integers) as a JSON integer.
Json integer_of(const std::string& flag, const py::handle& value) {
  const py::int_ number = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  int overflow = 0;
  const long long signed_value = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  if (overflow == 0)
    return signed_value < 0 ? Json(static_cast<int64_t>(signed_value)) : Json(static_cast<uint64_t>(signed_value));
  const unsigned long long unsigned_value = PyLong_AsUnsignedLongLong(number.ptr());
  if (overflow < 0 || PyErr_Occurred()) {
    PyErr_Clear();
    throw UsageError("--" + flag + ": " + py::repr(value).cast<std::string>() + " does not fit 64 bits");
  }
  return Json(static_cast<uint64_t>(unsigned_value));
}

/// One keyword's value as a typed value (the option's reader checks its type); `flag` names it.
Json json_of(const std::string& flag, const py::handle& value) {
  if (value.is_none()) return nullptr;
  if (PyBool_Check(value.ptr())) return value.cast<bool>();
  if (PyLong_Check(value.ptr()) || py::hasattr(value, "__index__")) return integer_of(flag, value);
  if (PyFloat_Check(value.ptr())) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::hasattr(value, "__fspath__")) return py::module_::import("os").attr("fsdecode")(value).cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    Json array = Json::array();
    for (const py::handle element : value) array.push_back(json_of(flag, element));
    return array;
  }
  if (py::isinstance<py::dict>(value)) {
    Json object = Json::object();
    for (const auto& [key, element] : py::reinterpret_borrow<py::dict>(value)) {
      if (!py::isinstance<py::str>(key)) not_a_value(flag, key);
      object[key.cast<std::string>()] = json_of(flag, element);
    }
    return object;
  }
  if (py::hasattr(value, "__float__")) return value.attr("__float__")().cast<double>();  // numpy's floats
  not_a_value(flag, value);
}

/// The keyword arguments (None = not given) as the analysis's options; with keep_replicates,
/// every replicate value kept (the CLI's --save-replicates).
Request parse(const std::string& command, const py::dict& keywords, bool keep_replicates) {
  AnalysisValues values{command, Json::object()};
  for (const auto& [key, value] : keywords) {
    std::string flag = key.cast<std::string>();
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (!value.is_none()) values.values[flag] = json_of(flag, value);
  }
  py::gil_scoped_release released;
  Request request{parse_analysis_values(values), analysis_values_target(values)};
  if (keep_replicates)
    std::visit(
        [](auto& options) {
          if constexpr (has_bootstrap<std::decay_t<decltype(options)>>) options.bootstrap.keep_replicates = true;
        },
        request.typed.options);
  return request;
}

py::object optional_text(const std::optional<std::string>& value) {
  return value ? py::object(py::str(*value)) : py::object(py::none());
}

py::object optional_int(const std::optional<int>& value) {
  return value ? py::object(py::int_(*value)) : py::object(py::none());
}

/// The statistics' labels, as --save-replicates names its columns plus each field.
py::list labels_of(const BootstrapResult& result) {
  py::list labels;
  for (const StatLabel& label : result.labels) {
    py::dict row;
    row["name"] = label.name;
    row["judge"] = label.judge.empty() ? py::object(py::none()) : py::object(py::str(label.judge));
    row["reference"] = optional_text(label.reference);
    row["of"] = optional_text(label.of);
    row["benchmark"] = optional_text(label.benchmark);
    row["condition"] = optional_text(label.condition);
    row["order"] = optional_int(label.order);
    row["variant"] = optional_text(label.variant);
    row["label"] = optional_text(label.label);
    row["position"] = optional_int(label.position);
    row["threshold"] = optional_text(label.threshold);
    row["n"] = label.n;
    labels.append(row);
  }
  return labels;
}

/// The B x S replicate values (NaN = undefined), viewed in place: the array keeps the result alive.
py::object replicates_of(const Run& run) {
  const BootstrapResult* result = run.result->bootstrap.get();
  if (result == nullptr || result->replicates.empty()) return py::none();
  const size_t S = result->labels.size();
  const size_t B = result->replicates.size() / S;
  auto* owner = new std::shared_ptr<const AnalysisResult>(run.result);
  py::capsule keep(owner, [](void* p) { delete static_cast<std::shared_ptr<const AnalysisResult>*>(p); });
  py::array_t<double> values({B, S}, {S * sizeof(double), sizeof(double)}, result->replicates.data(), keep);
  values.attr("setflags")(py::arg("write") = false);
  return std::move(values);
}

/// The envelope's argv: the command line that gives the same result (records named by `input`).
Json envelope_of(const std::string& command, const std::vector<std::string>& argv, const ItemMatrix& matrix) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  return json_envelope(command, static_cast<int>(pointers.size()), pointers.data(), matrix);
}

Run run(const Request& request, const ItemMatrix& matrix, const std::vector<std::string>& argv, double load_s,
        const py::object& progress, uint64_t chunk) {
  ReportHead head;
  head.envelope = envelope_of(analysis_command(request.typed.options), argv, matrix);
  head.load_s = load_s;
  AnalysisHooks hooks;
  std::optional<py::error_already_set> pending;
  hooks.progress = [&](uint64_t done, uint64_t total) {
    py::gil_scoped_acquire held;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none()) progress(done, total);
    } catch (py::error_already_set& error) {
      pending.emplace(std::move(error));
      throw Stopped{};
    }
  };
  Run out;
  try {
    py::gil_scoped_release released;
    ExecTarget target = request.target;
    // A run stops between chunks only: on the CPU, unless chunk= says otherwise, chunks small
    // enough to check for Ctrl-C often (results do not depend on the chunk size;
    // docs/statistics.md §2). A GPU chunk is short anyway, and smaller ones would cost.
    if (target.chunk == 0 && !exec_target_uses_cuda(target)) target.chunk = chunk;
    out.result = std::make_shared<const AnalysisResult>(run_analysis(request.typed, matrix, target, head, hooks));
  } catch (const Stopped&) {
    throw std::move(*pending);
  }
  return out;
}

// `judgestat run STUDY --out DIR` (include/judgestat/study.hpp): the study file checked whole
// before anything runs, then run with the GIL released. Returns (computed, reused, results path,
// report path).
py::tuple run_study_file(const std::string& path, const std::string& out_dir, std::optional<uint64_t> seed,
                         std::optional<uint64_t> replicates, std::optional<std::string> backend,
                         std::optional<int> threads, bool force) {
  StudyOutcome outcome;
  {
    py::gil_scoped_release released;
    const Study study = load_study(path);
    StudyRunOptions run;
    run.out_dir = out_dir;
    run.seed = seed, run.replicates = replicates, run.backend = backend, run.threads = threads;
    run.force = force;
    run.quiet = true;
    outcome = run_study(study, run);
  }
  return py::make_tuple(outcome.computed, outcome.reused, outcome.results_path, outcome.report_path);
}

/// analysis_option_table(command) as dicts (name, type, help, default, has_default, output).
py::list option_table(const std::string& command) {
  py::list rows;
  for (const AnalysisOption& option : analysis_option_table(command))
    rows.append(py::dict(py::arg("name") = option.name, py::arg("type") = option_type_name(option.type),
                         py::arg("help") = option.help, py::arg("default") = option.default_value,
                         py::arg("has_default") = option.has_default, py::arg("output") = option.output));
  return rows;
}

}  // namespace

void bind_analyses(py::module_& m) {
  py::class_<Run>(m, "NativeResult")
      .def_property_readonly("json_text", [](const Run& r) { return py::bytes(dump_json(r.result->json, 1) + "\n"); })
      .def_property_readonly("text", [](const Run& r) { return r.result->text; })
      .def_property_readonly("csv", [](const Run& r) { return r.result->csv; })
      .def_property_readonly("plots",
                             [](const Run& r) {
                               py::list plots;
                               for (const PlotFile& plot : r.result->plots)
                                 plots.append(py::make_tuple(plot.name, plot.svg, plot.csv));
                               return plots;
                             })
      .def_property_readonly(
          "labels", [](const Run& r) { return r.result->bootstrap ? labels_of(*r.result->bootstrap) : py::list(); })
      .def_property_readonly("replicates", &replicates_of);
  py::class_<Request>(m, "NativeRequest")
      .def_property_readonly("labels", [](const Request& r) { return r.typed.load.labels; })
      .def_property_readonly("item_column", [](const Request& r) { return r.typed.load.item_column; })
      .def_property_readonly("scale", [](const Request& r) -> py::object {
        if (!r.typed.load.scale) return py::none();
        return py::make_tuple(r.typed.load.scale->low, r.typed.load.scale->high);
      });
  m.def("parse", &parse, py::arg("command"), py::arg("keywords"), py::arg("keep_replicates"));
  m.def("run", &run, py::arg("request"), py::arg("matrix"), py::arg("argv"), py::arg("load_s"), py::arg("progress"),
        py::arg("chunk"));
  m.def("run_study", &run_study_file, py::arg("path"), py::arg("out"), py::arg("seed"), py::arg("replicates"),
        py::arg("backend"), py::arg("threads"), py::arg("force"));
  m.def("flags", &analysis_flags);
  m.def("commands", &analysis_commands);
  m.def("option_table", &option_table, py::arg("command"));
}

}  // namespace judgestat::python
