// judgestat._judgestat: the compiled half of `import judgestat` (python/judgestat/ is the other).
// It loads records into an ItemMatrix and runs the CLI's analyses; option logic, statistics and
// messages all stay in the library. Bad input raises judgestat.InputError (a ValueError), usage
// errors UsageError (a ValueError); std::invalid_argument becomes ValueError.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "judgestat/import_map.hpp"
#include "judgestat/record_fields.hpp"
#include "judgestat/records.hpp"
#include "records_from_columns.hpp"

namespace py = pybind11;

namespace judgestat::python {
namespace {

/// (low, high) of --scale, as the request layer read it (NativeRequest.scale); None: labels.
using Scale = std::optional<std::pair<double, double>>;

LoadOptions load_options(const std::vector<std::string>& labels, const std::string& item_column, const Scale& scale,
                         const std::string& map = "") {
  LoadOptions options;
  options.labels = labels;
  options.item_column = item_column;
  if (scale) options.scale = ScoreScale{scale->first, scale->second};
  options.map = map;
  return options;
}

/// One or more files (globs already expanded, each checked to exist) merged as the CLI merges
/// them, read as records or, with `map` (a map file or a built-in map's name), through it. A
/// `source` other than "" names the records instead of the paths (a DataFrame written to a
/// temporary file for the map): the matrix's path, with no file digest.
std::shared_ptr<ItemMatrix> load_files(const std::vector<std::string>& paths, const std::vector<std::string>& labels,
                                       const std::string& item_column, const Scale& scale, const std::string& map,
                                       const std::string& source) {
  py::gil_scoped_release released;
  auto matrix = std::make_shared<ItemMatrix>(load_item_matrix(paths, load_options(labels, item_column, scale, map)));
  if (!source.empty()) {
    matrix->path = source;
    matrix->sha256.clear();
  }
  return matrix;
}

/// (name, "text", codes int64[rows], texts), (name, "number", float64[rows], None) or (name,
/// "skipped", None, None) for a column the loader ignores, as _columns.py gives them; the arrays
/// are viewed, not copied.
Column column_of(const py::handle& spec, std::vector<py::object>& keep_alive) {
  const py::tuple entry = py::reinterpret_borrow<py::tuple>(spec);
  Column column;
  column.name = entry[0].cast<std::string>();
  const std::string kind = entry[1].cast<std::string>();
  column.skipped = kind == "skipped";
  column.is_text = kind == "text";
  if (column.skipped) return column;
  if (column.is_text) {
    auto codes = py::array_t<int64_t, 0>::ensure(entry[2]);
    if (!codes || codes.ndim() != 1) throw std::invalid_argument("records: column '" + column.name + "': bad codes");
    column.codes = codes.data();
    column.codes_size = static_cast<size_t>(codes.shape(0));
    column.codes_stride = static_cast<size_t>(codes.strides(0)) / sizeof(int64_t);
    column.texts = entry[3].cast<std::vector<std::string>>();
    keep_alive.push_back(std::move(codes));
  } else {
    auto values = py::array_t<double, 0>::ensure(entry[2]);
    if (!values || values.ndim() != 1) throw std::invalid_argument("records: column '" + column.name + "': bad values");
    column.values = values.data();
    column.values_size = static_cast<size_t>(values.shape(0));
    column.values_stride = static_cast<size_t>(values.strides(0)) / sizeof(double);
    keep_alive.push_back(std::move(values));
  }
  return column;
}

std::shared_ptr<ItemMatrix> load_columns(const py::list& specs, size_t rows, const std::string& source,
                                         const std::vector<std::string>& labels, const std::string& item_column,
                                         const Scale& scale) {
  std::vector<py::object> keep_alive;
  std::vector<Column> columns;
  for (const py::handle spec : specs) columns.push_back(column_of(spec, keep_alive));
  py::gil_scoped_release released;
  const std::vector<Record> records = records_from_columns(columns, rows, source, item_column);
  return std::make_shared<ItemMatrix>(build_item_matrix(records, source, load_options(labels, item_column, scale)));
}

/// Per judge: (judge, records present, invalid records) over every cell.
std::vector<py::tuple> validity(const ItemMatrix& m) {
  std::vector<py::tuple> rows;
  const size_t per_judge = m.n_judges() ? m.verdict.size() / m.n_judges() : 0;
  for (int32_t j = 0; j < m.n_judges(); ++j) {
    int64_t present = 0, invalid = 0;
    for (size_t c = j * per_judge; c < (j + 1) * per_judge; ++c) {
      present += m.present(c);
      invalid += m.verdict[c] == kInvalid;
    }
    rows.push_back(py::make_tuple(m.judges[j], present, invalid));
  }
  return rows;
}

void bind_matrix(py::module_& m) {
  py::class_<ItemMatrix, std::shared_ptr<ItemMatrix>>(m, "NativeMatrix")
      .def_readonly("path", &ItemMatrix::path)
      .def_readonly("sha256", &ItemMatrix::sha256)
      .def_readonly("records", &ItemMatrix::records)
      .def_readonly("invalid", &ItemMatrix::invalid)
      .def_readonly("judges", &ItemMatrix::judges)
      .def_readonly("items", &ItemMatrix::items)
      .def_readonly("labels", &ItemMatrix::labels)
      .def_readonly("clusters", &ItemMatrix::clusters)
      .def_readonly("benchmarks", &ItemMatrix::benchmarks)
      .def_readonly("conditions", &ItemMatrix::conditions)
      .def_readonly("variants", &ItemMatrix::variants)
      .def_readonly("orders", &ItemMatrix::orders)
      .def_readonly("has_probs", &ItemMatrix::has_probs)
      .def_readonly("has_fee", &ItemMatrix::has_fee)
      .def_readonly("has_latency", &ItemMatrix::has_latency)
      .def_readonly("has_rationale", &ItemMatrix::has_rationale)
      .def_readonly("has_adjudicated", &ItemMatrix::has_adjudicated)
      .def("validity", &validity);
}

}  // namespace

/// Sets the Python error: py::set_error from pybind11 2.12 (PyPI's, under pip), where calling the
/// exception is deprecated; Debian's 2.10 (the CMake route) has only the call.
template <typename Error>
void raise(py::exception<Error>& error, const char* message) {
#if PYBIND11_VERSION_HEX >= 0x020C0000
  py::set_error(error, message);
#else
  error(message);
#endif
}

}  // namespace judgestat::python

PYBIND11_MODULE(_judgestat, m) {
  using namespace judgestat;
  m.doc() = "judgestat's engine (use the judgestat package, not this module)";
  m.attr("__version__") = JUDGESTAT_VERSION;
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<UsageError> usage_error(m, "UsageError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const InputError& e) {
      python::raise(input_error, e.what());
    } catch (const UsageError& e) {
      python::raise(usage_error, e.what());
    }
  });
  python::bind_matrix(m);
  // Whether the loader reads a column of this name (a record field, p.<label> or x.<name>): the
  // others are passed by name only, whatever they hold (lists, dicts, long texts).
  m.def(
      "column_is_read", [](const std::string& name) { return !RecordColumn(name).is_ignored(); }, py::arg("name"));
  m.def("load_files", &python::load_files, py::arg("paths"), py::arg("labels"), py::arg("item_column"),
        py::arg("scale"), py::arg("map"), py::arg("source"));
  m.def("builtin_map_names", &builtin_map_names);
  m.def("import_map_text", &import_map_text, py::arg("map"));
  m.def("load_columns", &python::load_columns, py::arg("columns"), py::arg("rows"), py::arg("source"),
        py::arg("labels"), py::arg("item_column"), py::arg("scale"));
  python::bind_analyses(m);
}
