#include "load/sse_parser.h"

namespace servescope {

void SseParser::reset() {
  line_.clear();
  data_.clear();
  data_view_ = {};
  data_in_feed_ = false;
  has_data_ = false;
  after_cr_ = false;
  too_long_ = false;
  foreign_lines_ = 0;
  events_ = 0;
}

void SseParser::keep_data() {
  if (!data_in_feed_)
    return;
  data_.assign(data_view_);
  data_view_ = {};
  data_in_feed_ = false;
}

}  // namespace servescope
