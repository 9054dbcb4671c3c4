#include "daemon/logging.hpp"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "spdlog/details/log_msg.h"
#include "tests/support/status_matchers.hpp"

namespace provd::daemon {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::StatusIs;
using ::testing::HasSubstr;

std::string Format(absl::string_view format, absl::string_view message) {
  auto formatter = MakeLogFormatter(format);
  spdlog::details::log_msg msg("provd", spdlog::level::warn,
                               spdlog::string_view_t(message.data(), message.size()));
  spdlog::memory_buf_t out;
  formatter->format(msg, out);
  return std::string(out.data(), out.size());
}

TEST(LoggingTest, JsonLinesStayValidJsonWhateverTheMessageHolds) {
  const std::string nasty = "quote \" backslash \\ newline \n tab \t bad utf8 \xff end";
  std::string line = Format("json", nasty);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  nlohmann::json parsed = nlohmann::json::parse(line);
  EXPECT_EQ(parsed["level"], "warning");
  EXPECT_EQ(parsed["logger"], "provd");
  EXPECT_THAT(parsed["msg"].get<std::string>(), HasSubstr("quote \" backslash \\ newline \n"));
  EXPECT_TRUE(parsed["time"].get<std::string>().ends_with("Z"));
}

TEST(LoggingTest, JsonJobLinesCarryTheJobIdAsAField) {
  nlohmann::json job = nlohmann::json::parse(
      Format("json", "job 0123456789abcdef0123456789abcdef: started (attempt 1)"));
  EXPECT_EQ(job["job_id"], "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(job["msg"], "started (attempt 1)");
  // Anything else keeps its whole message and has no job id.
  for (const char* other : {"jobs: 3 queued", "job : x", "job a b: c", "job \"q\": x"}) {
    nlohmann::json line = nlohmann::json::parse(Format("json", other));
    EXPECT_FALSE(line.contains("job_id")) << other;
    EXPECT_EQ(line["msg"], other);
  }
}

TEST(LoggingTest, TextLinesCarryLevelAndMessage) {
  std::string line = Format("text", "hello");
  EXPECT_THAT(line, HasSubstr("warning hello"));
}

TEST(LoggingTest, ValidatesLevelAndFormat) {
  EXPECT_THAT(ValidateLogSettings("debug", "json"), IsOk());
  EXPECT_THAT(ValidateLogSettings("verbose", "text"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--log-level")));
  EXPECT_THAT(ValidateLogSettings("info", "logfmt"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--log-format")));
}

}  // namespace
}  // namespace provd::daemon
