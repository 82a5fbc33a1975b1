// libFuzzer target: the log reader and the SGLang grammar (every line form, the ServerArgs
// repr parser, version inference, summary), the JSON and text renderers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engines/python_repr.h"
#include "evidence/log_reader.h"
#include "report/logs_json.h"
#include "report/logs_text.h"

namespace {

// Serialises every fact as the streaming JSON writer would.
class JsonSink final : public servescope::FactSink {
 public:
  void on_fact(const servescope::Fact& fact) override {
    buf_.clear();
    servescope::append_fact_json(buf_, fact);
  }

 private:
  std::string buf_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  JsonSink sink;
  servescope::LogReadOptions options;
  options.sink = &sink;
  options.chunk_bytes = 4096;      // lines across chunk boundaries
  options.max_line_bytes = 16384;  // and cut lines
  options.keep_batch_per_kind = 64;
  auto facts = servescope::read_log_text(text, "fuzz.log", options);
  if (facts) {
    (void)servescope::render_logs_text(*facts, "fuzz.log");
    (void)servescope::logs_tail_to_json(*facts).dump(-1, ' ', false,
                                                     nlohmann::json::error_handler_t::replace);
  }
  (void)servescope::parse_python_call(text);
  return 0;
}
