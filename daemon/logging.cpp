#include "daemon/logging.hpp"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace provd::daemon {
namespace {

constexpr absl::string_view kLevels[] = {"trace", "debug", "info", "warn", "error", "critical"};

// Job lines start "job <id>: " (the convention of every job log line in daemon/jobs and the
// service); the id goes into a field of its own, so that a log query can select one job.
absl::string_view JobIdOf(absl::string_view& text) {
  if (!absl::ConsumePrefix(&text, "job ")) return {};
  const size_t colon = text.find(": ");
  if (colon == 0 || colon == absl::string_view::npos || colon > 64) return {};
  const absl::string_view id = text.substr(0, colon);
  for (char c : id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return {};
  }
  text.remove_prefix(colon + 2);
  return id;
}

// %j in a pattern: `"job_id":"...","msg":"..."` for a job line, `"msg":"..."` otherwise; the
// message quoted and escaped as JSON (invalid UTF-8 is replaced rather than thrown on, since
// log messages may quote untrusted input).
class JsonMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    absl::string_view text(msg.payload.data(), msg.payload.size());
    absl::string_view rest = text;
    const absl::string_view job_id = JobIdOf(rest);
    std::string out;
    if (!job_id.empty()) {
      absl::StrAppend(&out, "\"job_id\":\"", job_id, "\",");
      text = rest;
    }
    absl::StrAppend(&out, "\"msg\":",
                    nlohmann::json(std::string(text))
                        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    dest.append(out.data(), out.data() + out.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

}  // namespace

absl::Status ValidateLogSettings(absl::string_view level, absl::string_view format) {
  std::vector<std::string> errors;
  bool known_level = false;
  for (absl::string_view candidate : kLevels) known_level = known_level || candidate == level;
  if (!known_level) {
    errors.push_back(absl::StrCat("--log-level \"", level,
                                  "\": expected trace, debug, info, warn, error or critical"));
  }
  if (format != "text" && format != "json") {
    errors.push_back(absl::StrCat("--log-format \"", format, "\": expected text or json"));
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
}

std::unique_ptr<spdlog::formatter> MakeLogFormatter(absl::string_view format) {
  // UTC timestamps in both formats, so that the logs of several hosts line up.
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  if (format == "json") {
    formatter->add_flag<JsonMessageFlag>('j').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","logger":"%n","thread":%t,%j})");
  } else {
    formatter->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %-5l %v");
  }
  return formatter;
}

void InitLogging(absl::string_view level, absl::string_view format) {
  auto logger =
      std::make_shared<spdlog::logger>("provd", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_formatter(MakeLogFormatter(format));
  logger->set_level(spdlog::level::from_str(std::string(level)));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace provd::daemon
