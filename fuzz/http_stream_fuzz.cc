// libFuzzer target: what bench reads from a server — the HTTP/1.1 response framing (status
// line, headers, Content-Length and chunked bodies), server-sent events and the JSON fields of
// each event, for every API, streaming or not, in chunks whose split points the input chooses;
// and the Prometheus text of /metrics.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "load/api.h"
#include "load/prometheus_text.h"
#include "load/request_record.h"
#include "load/response_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2)
    return 0;
  // The first byte picks the API and streaming, the second the chunk size.
  static const char* const kApis[] = {"openai-completions", "openai-chat", "sglang-generate"};
  auto api = servescope::resolve_api(kApis[data[0] % 3]);
  if (!api)
    return 0;
  const bool stream = (data[0] & 4) != 0;
  const std::size_t chunk = 1 + data[1] % 97;
  std::string_view bytes(reinterpret_cast<const char*>(data + 2), size - 2);

  servescope::RequestRecord record;
  servescope::ResponseReader reader;
  reader.start(*api, stream, record);
  double now = 0;
  auto progress = servescope::ResponseReader::Progress::kMore;
  for (std::size_t at = 0;
       at < bytes.size() && progress == servescope::ResponseReader::Progress::kMore; at += chunk) {
    now += 0.001;
    // Each read in its own buffer, freed after it is handled, as the client's shared read
    // buffer is overwritten: a view kept past its read is a use after free here.
    const std::string piece(bytes.substr(at, chunk));
    progress = reader.on_bytes(now, piece);
  }
  if (progress == servescope::ResponseReader::Progress::kMore)
    (void)reader.on_closed(now + 0.001);

  (void)servescope::prometheus_sum(bytes, "sglang:num_running_reqs");
  (void)servescope::prometheus_histogram(bytes, "sglang:queue_time_seconds");
  return 0;
}
