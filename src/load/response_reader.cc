#include "load/response_reader.h"

#include <fmt/format.h>

#include "load/json_scan.h"

namespace servescope {
namespace {

// Fields of an OpenAI-compatible event or body.
enum OpenAiField {
  kText,        // choices[0].text (completions)
  kContent,     // choices[0].delta.content (chat stream)
  kReasoning,   // choices[0].delta.reasoning_content
  kMessage,     // choices[0].message.content (chat body)
  kFinish,      // choices[0].finish_reason
  kPrompt,      // usage.prompt_tokens
  kCompletion,  // usage.completion_tokens
  kError,       // error
  kOpenAiFields
};

const JsonPaths& openai_paths() {
  static const JsonPaths kPaths = {
      {"choices", 0, "text"},
      {"choices", 0, "delta", "content"},
      {"choices", 0, "delta", "reasoning_content"},
      {"choices", 0, "message", "content"},
      {"choices", 0, "finish_reason"},
      {"usage", "prompt_tokens"},
      {"usage", "completion_tokens"},
      {"error"},
  };
  return kPaths;
}

enum NativeField { kNText, kNPrompt, kNCompletion, kNError, kNFinish, kNativeFields };

// The native API's fields, named by the API spec (`api` outlives the reader's use of them).
JsonPaths native_paths(const NativeApi& n) {
  JsonPath paths[kNativeFields];
  if (n.meta_key.empty()) {
    paths[kNPrompt] = {n.prompt_tokens_key.c_str()};
    paths[kNCompletion] = {n.completion_tokens_key.c_str()};
    paths[kNFinish] = {"finish_reason"};
  } else {
    paths[kNPrompt] = {n.meta_key.c_str(), n.prompt_tokens_key.c_str()};
    paths[kNCompletion] = {n.meta_key.c_str(), n.completion_tokens_key.c_str()};
    paths[kNFinish] = {n.meta_key.c_str(), "finish_reason"};
  }
  paths[kNText] = {n.text_key.c_str()};
  paths[kNError] = {"error"};
  return JsonPaths(paths, kNativeFields);
}

}  // namespace

void ResponseReader::start(const ApiSpec& api, bool stream, RequestRecord& record) {
  if (api.kind == ApiKind::kNative)
    native_paths_ = native_paths(api.native);
  api_ = &api;
  stream_ = stream;
  rec_ = &record;
  http_.reset();
  sse_.reset();
  body_.clear();
  gaps_.clear();
  tokens_seen_ = 0;
  usage_seen_ = false;
  done_event_ = false;
  finish_seen_ = false;
  state_ = Progress::kMore;
  detail_.clear();
}

ResponseReader::Progress ResponseReader::failed(ErrorKind kind, std::string why) {
  if (rec_->error == ErrorKind::kNone)
    rec_->error = kind;
  if (detail_.empty())
    detail_ = std::move(why);
  state_ = Progress::kFailed;
  return state_;
}

void ResponseReader::content(double now, std::int64_t tokens_after, bool known) {
  RequestRecord& r = *rec_;
  const std::int32_t tokens = known ? static_cast<std::int32_t>(tokens_after - tokens_seen_) : 0;
  if (r.first_token < 0) {
    r.first_token = now;
    if (known && tokens > 1) {
      // Tokens that came with the first one arrived with no gap.
      gaps_.push_back({0.0f, tokens - 1});
    }
  } else {
    gaps_.push_back({static_cast<float>(now - r.last_token), tokens});
  }
  r.last_token = now;
  ++r.content_events;
  if (known)
    tokens_seen_ = tokens_after;
}

ResponseReader::Progress ResponseReader::event(double now, std::string_view data) {
  RequestRecord& r = *rec_;
  ++r.events;
  if (data == "[DONE]") {
    done_event_ = true;
    return Progress::kMore;
  }
  if (api_->kind == ApiKind::kNative) {
    JsonField f[kNativeFields];
    if (!scan_json(data, native_paths_, f))
      return failed(ErrorKind::kMalformedSse, "an event is not JSON");
    if (f[kNError].type != JsonType::kAbsent && f[kNError].type != JsonType::kNull)
      return failed(ErrorKind::kErrorEvent, fmt::format("error event: {:.120}", data));
    const std::int64_t prompt = f[kNPrompt].integer();
    if (prompt >= 0)
      r.prompt_tokens_reported = prompt;
    const std::int64_t completion = f[kNCompletion].integer();
    if (completion >= 0) {
      usage_seen_ = true;
      if (completion > tokens_seen_)
        content(now, completion, true);
    } else if (f[kNText].nonempty_string()) {
      content(now, 0, false);
    }
    if (f[kNFinish].type == JsonType::kObject || f[kNFinish].type == JsonType::kString)
      finish_seen_ = true;
    return Progress::kMore;
  }
  JsonField f[kOpenAiFields];
  if (!scan_json(data, openai_paths(), f))
    return failed(ErrorKind::kMalformedSse, "an event is not JSON");
  if (f[kError].type != JsonType::kAbsent && f[kError].type != JsonType::kNull)
    return failed(ErrorKind::kErrorEvent, fmt::format("error event: {:.120}", data));
  const std::int64_t prompt = f[kPrompt].integer();
  if (prompt >= 0)
    r.prompt_tokens_reported = prompt;
  const std::int64_t completion = f[kCompletion].integer();
  const bool has_content = f[kText].nonempty_string() || f[kContent].nonempty_string() ||
                           f[kReasoning].nonempty_string();
  if (completion >= 0) {
    // Usage in this event: cumulative when it rides on a content event (continuous usage).
    usage_seen_ = true;
    if (has_content || completion > tokens_seen_) {
      if (has_content)
        content(now, completion, true);
      else
        tokens_seen_ = completion;  // a usage-only event restating the total
    }
  } else if (has_content) {
    content(now, 0, false);
  }
  if (f[kFinish].type == JsonType::kString)
    finish_seen_ = true;
  return Progress::kMore;
}

ResponseReader::Progress ResponseReader::body_done(double now) {
  RequestRecord& r = *rec_;
  r.done = now;
  if (r.http_status == 0)
    r.http_status = http_.status();
  if (r.http_status < 200 || r.http_status > 299)
    return failed(ErrorKind::kHttpStatus, fmt::format("HTTP {}: {:.160}", r.http_status, body_));
  if (stream_ && http_.event_stream()) {
    if (!done_event_ && !finish_seen_) {
      if (sse_.foreign_lines() > 0 && r.events == 0)
        return failed(ErrorKind::kMalformedSse, "the body is not a server-sent-event stream");
      return failed(ErrorKind::kClosedEarly, "the stream ended before [DONE]");
    }
  } else if (!body_.empty() || !stream_ || !http_.event_stream()) {
    // A whole JSON body (non-streaming, or a server that answered a stream with JSON).
    if (api_->kind == ApiKind::kNative) {
      const Progress p = event(now, body_);
      --r.events;
      if (p == Progress::kFailed)
        return p;
    } else {
      JsonField f[kOpenAiFields];
      if (!scan_json(body_, openai_paths(), f))
        return failed(ErrorKind::kMalformedHttp, "the body is not JSON");
      if (f[kError].type != JsonType::kAbsent && f[kError].type != JsonType::kNull)
        return failed(ErrorKind::kErrorEvent, fmt::format("error body: {:.160}", body_));
      if (f[kPrompt].integer() >= 0)
        r.prompt_tokens_reported = f[kPrompt].integer();
      if (f[kCompletion].integer() >= 0) {
        usage_seen_ = true;
        tokens_seen_ = f[kCompletion].integer();
      }
    }
  }
  if (usage_seen_) {
    r.output_tokens = tokens_seen_;
    r.tokens_reported = true;
  } else {
    r.output_tokens = r.content_events;
  }
  // Per-event token counts are known when every content event carried usage.
  r.per_event_tokens = false;
  if (usage_seen_ && r.content_events > 0) {
    bool all = true;
    for (const TokenGap& g : gaps_)
      all = all && g.tokens > 0;
    r.per_event_tokens = all;
  }
  state_ = Progress::kComplete;
  return state_;
}

ResponseReader::Progress ResponseReader::on_bytes(double now, std::string_view bytes) {
  if (state_ != Progress::kMore)
    return state_;
  RequestRecord& r = *rec_;
  Progress inner = Progress::kMore;
  const auto on_body = [&](std::string_view part) {
    if (r.http_status == 0)
      r.http_status = http_.status();
    if (r.http_status >= 200 && r.http_status <= 299 && stream_ && http_.event_stream()) {
      const auto status = sse_.feed(part, [&](std::string_view data) {
        inner = event(now, data);
        return inner == Progress::kMore;
      });
      if (status == SseParser::Status::kTooLong) {
        inner = failed(ErrorKind::kMalformedSse, "an event is longer than 4 MiB");
        return false;
      }
      return inner == Progress::kMore;
    }
    if (body_.size() + part.size() > kMaxBodyBytes) {
      inner = failed(ErrorKind::kMalformedHttp, "the body is longer than 64 MiB");
      return false;
    }
    body_.append(part);
    return true;
  };
  const auto state = http_.feed(bytes, on_body);
  if (inner == Progress::kFailed) {
    r.done = now;
    return state_;
  }
  if (http_.head_done() && r.http_status == 0)
    r.http_status = http_.status();
  if (state == HttpResponseParser::State::kError) {
    r.done = now;
    return failed(ErrorKind::kMalformedHttp, http_.error());
  }
  if (state == HttpResponseParser::State::kDone)
    return body_done(now);
  return Progress::kMore;
}

ResponseReader::Progress ResponseReader::on_closed(double now) {
  if (state_ != Progress::kMore)
    return state_;
  RequestRecord& r = *rec_;
  r.done = now;
  if (http_.state() == HttpResponseParser::State::kBody &&
      http_.close() == HttpResponseParser::State::kDone)
    return body_done(now);
  if (!http_.head_done())
    return failed(ErrorKind::kClosedEarly, "the connection closed before a response");
  if (r.http_status < 200 || r.http_status > 299)
    return failed(ErrorKind::kHttpStatus, fmt::format("HTTP {}: {:.160}", r.http_status, body_));
  if (sse_.foreign_lines() > 0 && r.events == 0)
    return failed(ErrorKind::kMalformedSse, "the body is not a server-sent-event stream");
  return failed(ErrorKind::kClosedEarly,
                fmt::format("the connection closed after {} events", r.events));
}

}  // namespace servescope
