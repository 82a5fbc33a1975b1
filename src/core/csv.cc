#include "core/csv.h"

#include <csv.h>
#include <fmt/format.h>

namespace servescope {
namespace {

struct CsvRows {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> current;
};

void on_field(void* data, size_t len, void* ctx) {
  static_cast<CsvRows*>(ctx)->current.emplace_back(static_cast<const char*>(data), len);
}

void on_row(int /*terminator*/, void* ctx) {
  auto* rows = static_cast<CsvRows*>(ctx);
  rows->rows.push_back(std::move(rows->current));
  rows->current.clear();
}

}  // namespace

Result<std::vector<std::vector<std::string>>> read_csv(std::string_view text) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_APPEND_NULL) != 0)
    return fail("cannot initialise the CSV parser");
  CsvRows rows;
  std::size_t parsed = csv_parse(&parser, text.data(), text.size(), on_field, on_row, &rows);
  if (parsed != text.size() || csv_fini(&parser, on_field, on_row, &rows) != 0) {
    std::string why = csv_strerror(csv_error(&parser));
    csv_free(&parser);
    return fail(fmt::format("malformed CSV near byte {}: {}", parsed, why));
  }
  csv_free(&parser);
  return rows.rows;
}

}  // namespace servescope
