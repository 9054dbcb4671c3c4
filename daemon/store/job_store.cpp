#include "daemon/store/job_store.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/time_util.h"

namespace provd::daemon {
namespace {

constexpr char kPageTokenPrefix[] = "before:";
constexpr uint32_t kDefaultPageSize = 100;
constexpr uint32_t kMaxPageSize = 1000;

}  // namespace

bool IsFinalState(provd::v1::JobState state) {
  return state == provd::v1::JOB_STATE_SUCCEEDED || state == provd::v1::JOB_STATE_FAILED ||
         state == provd::v1::JOB_STATE_CANCELLED;
}

std::string NewJobId() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = ::getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::abort();  // the kernel's entropy source is gone: nothing sane to do
    got += static_cast<size_t>(n);
  }
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<char*>(bytes), sizeof(bytes)));
}

provd::v1::JobEvent FinalEvent(const JobEnding& ending) {
  provd::v1::JobEvent event;
  switch (ending.state) {
    case provd::v1::JOB_STATE_SUCCEEDED:
      event.mutable_succeeded();
      break;
    case provd::v1::JOB_STATE_CANCELLED:
      event.mutable_cancelled()->set_reason(ending.cancel_reason);
      break;
    default:
      event.mutable_failed()->mutable_error()->set_code(static_cast<int32_t>(ending.error.code()));
      event.mutable_failed()->mutable_error()->set_message(std::string(ending.error.message()));
      break;
  }
  return event;
}

absl::StatusOr<int64_t> OrderBeforePageToken(const std::string& page_token) {
  if (page_token.empty()) return INT64_MAX;
  absl::string_view token = page_token;
  int64_t before = 0;
  if (!absl::ConsumePrefix(&token, kPageTokenPrefix) || !absl::SimpleAtoi(token, &before) ||
      before <= 0) {
    return absl::InvalidArgumentError("page_token: not a token this server issued");
  }
  return before;
}

std::string PageToken(int64_t last_order) { return absl::StrCat(kPageTokenPrefix, last_order); }

uint32_t PageLimit(uint32_t page_size) {
  return page_size == 0 ? kDefaultPageSize : std::min(page_size, kMaxPageSize);
}

std::string ListFilterAndOrder(const std::vector<provd::v1::JobState>& states,
                               provd::v1::Priority priority, uint32_t limit) {
  std::string sql;
  if (!states.empty()) {
    std::vector<std::string> values;
    for (provd::v1::JobState state : states) {
      values.push_back(absl::StrCat(static_cast<int>(state)));
    }
    absl::StrAppend(&sql, " AND state IN (", absl::StrJoin(values, ","), ")");
  }
  if (priority != provd::v1::PRIORITY_UNSPECIFIED) {
    absl::StrAppend(&sql, " AND priority = ", static_cast<int>(priority));
  }
  absl::StrAppend(&sql, " ORDER BY seq DESC LIMIT ", limit + 1);
  return sql;
}

google::protobuf::Timestamp TimestampFromUnixNanos(int64_t unix_nanos) {
  return google::protobuf::util::TimeUtil::NanosecondsToTimestamp(unix_nanos);
}

absl::Status JobNotFound(const std::string& id) {
  return absl::NotFoundError(absl::StrCat("no job with id \"", id, "\""));
}

}  // namespace provd::daemon
