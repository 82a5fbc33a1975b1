#include "evidence/timeline.h"

#include <algorithm>

namespace servescope {

namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size())
    return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9')
      return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
long long days_from_civil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long doy = (153LL * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void update_peak(TimelinePeak& peak, double value, const Fact& f) {
  if (value > peak.value) {
    peak.value = value;
    peak.line = f.line;
    peak.time = f.timestamp;
  }
}

}  // namespace

double timestamp_seconds(std::string_view t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  // "MM-DD HH:MM:SS" (vLLM's logger prints no year): read in leap year 2000, so offsets inside
  // one log hold (a log that crosses New Year's Eve gets a negative jump).
  if (t.size() >= 14 && t[2] == '-' && t[5] == ' ' && digits(t, 0, 2, mo)) {
    std::string full = "2000-";
    full.append(t);
    return timestamp_seconds(full);
  }
  if (!digits(t, 0, 4, y) || t.size() < 19 || t[4] != '-' || !digits(t, 5, 2, mo) || t[7] != '-' ||
      !digits(t, 8, 2, d) || !digits(t, 11, 2, h) || t[13] != ':' || !digits(t, 14, 2, mi) ||
      t[16] != ':' || !digits(t, 17, 2, s) || mo < 1 || mo > 12 || d < 1 || d > 31)
    return -1;
  double frac = 0;
  if (t.size() > 20 && (t[19] == '.' || t[19] == ',')) {
    double scale = 0.1;
    for (std::size_t i = 20; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, scale /= 10)
      frac += (t[i] - '0') * scale;
  }
  return static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) + frac;
}

Timeline::Timeline(std::string rank_label, std::size_t max_points)
    : rank_(std::move(rank_label)), max_points_(std::max<std::size_t>(max_points, 2)) {}

void Timeline::merge_into(TimelinePoint& into, const TimelinePoint& from) {
  if (into.samples == 0) {
    into = from;
    return;
  }
  into.last_line = from.last_line;
  if (into.time.empty()) {
    into.time = from.time;
    into.offset_s = from.offset_s;
  }
  const double n1 = into.decode_samples;
  const double n2 = from.decode_samples;
  if (from.gen_throughput_tok_per_s >= 0) {
    into.gen_throughput_tok_per_s =
        into.gen_throughput_tok_per_s >= 0
            ? (into.gen_throughput_tok_per_s * n1 + from.gen_throughput_tok_per_s * n2) /
                  std::max(1.0, n1 + n2)
            : from.gen_throughput_tok_per_s;
  }
  into.samples += from.samples;
  into.decode_samples += from.decode_samples;
  into.running_req = std::max(into.running_req, from.running_req);
  into.queue_req = std::max(into.queue_req, from.queue_req);
  into.token_usage = std::max(into.token_usage, from.token_usage);
  into.mamba_usage = std::max(into.mamba_usage, from.mamba_usage);
}

void Timeline::add(const Fact& f) {
  const bool decode = f.kind == "decode_batch";
  TimelinePoint p;
  p.first_line = p.last_line = f.line;
  p.samples = 1;
  p.decode_samples = decode ? 1 : 0;
  if (!f.timestamp.empty()) {
    // Batch lines come many to the second: convert each printed time once.
    if (f.timestamp != last_timestamp_) {
      last_timestamp_ = f.timestamp;
      last_timestamp_s_ = timestamp_seconds(f.timestamp);
    }
    const double t = last_timestamp_s_;
    if (t >= 0) {
      if (first_time_s_ < 0)
        first_time_s_ = t;
      last_time_s_ = std::max(last_time_s_, t);
      p.time = f.timestamp;
      p.offset_s = t - first_time_s_;
    }
  }
  // One pass over the fields (this runs for every batch line of the log).
  double full_usage = -1;
  for (const Field& field : f.fields) {
    const std::string& n = field.name;
    const Value& v = field.value;
    if (!v.is_number())
      continue;
    switch (n.size()) {
      case 9:
        if (n == "queue_req" && v.is_int())
          p.queue_req = v.as_int();
        break;
      case 11:
        if (n == "running_req" && v.is_int())
          p.running_req = v.as_int();
        else if (n == "token_usage")
          p.token_usage = v.as_number();
        else if (n == "mamba_usage")
          p.mamba_usage = v.as_number();
        break;
      case 16:
        if (n == "full_token_usage")
          full_usage = v.as_number();
        break;
      case 24:
        if (decode && n == "gen_throughput_tok_per_s")
          p.gen_throughput_tok_per_s = v.as_number();
        break;
      default:
        break;
    }
  }
  if (p.token_usage < 0)
    p.token_usage = full_usage;  // hybrid models print the full-attention usage
  ++samples_;
  if (decode)
    ++decode_samples_;
  update_peak(peak_running_, static_cast<double>(p.running_req), f);
  update_peak(peak_queue_, static_cast<double>(p.queue_req), f);
  update_peak(peak_token_usage_, p.token_usage, f);
  update_peak(peak_gen_throughput_, p.gen_throughput_tok_per_s, f);

  merge_into(pending_, p);
  if (pending_.samples < stride_)
    return;
  points_.push_back(pending_);
  pending_ = TimelinePoint();
  if (points_.size() < max_points_)
    return;
  // Full: halve the resolution.
  std::vector<TimelinePoint> merged;
  merged.reserve(max_points_ / 2 + 1);
  for (std::size_t i = 0; i < points_.size(); i += 2) {
    TimelinePoint m = points_[i];
    if (i + 1 < points_.size())
      merge_into(m, points_[i + 1]);
    merged.push_back(std::move(m));
  }
  points_ = std::move(merged);
  stride_ *= 2;
}

std::vector<TimelinePoint> Timeline::points() const {
  std::vector<TimelinePoint> out = points_;
  if (pending_.samples > 0)
    out.push_back(pending_);
  return out;
}

double Timeline::span_s() const {
  if (first_time_s_ < 0)
    return -1;
  return last_time_s_ - first_time_s_;
}

}  // namespace servescope
