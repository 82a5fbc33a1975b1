#include "load/sse_parser.h"

namespace servescope {

void SseParser::reset() {
  line_.clear();
  data_.clear();
  has_data_ = false;
  after_cr_ = false;
  too_long_ = false;
  foreign_lines_ = 0;
  events_ = 0;
}

}  // namespace servescope
