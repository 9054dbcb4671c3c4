#include "arbiter/lock_dir.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/status_matchers.hpp"
#include "tests/support/temp_dir.hpp"

namespace provd::arbiter {
namespace {

using ::provd::testing::IsOk;
using ::provd::testing::ReadFile;
using ::provd::testing::StatusIs;
using ::provd::testing::TempDir;
using ::provd::testing::WriteFile;
using ::testing::HasSubstr;

TEST(LockDirTest, CreatesMissingDirectoryWithGroupSharingMode) {
  TempDir temp;
  auto dir = LockDir::Open(temp / "nested/locks");
  ASSERT_THAT(dir, IsOk());
  struct stat st {};
  ASSERT_EQ(::stat((temp / "nested/locks").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 02770u);
  EXPECT_EQ(ReadFile(temp / "nested/locks/PROTOCOL"), "provd lock protocol 1\n");
  EXPECT_EQ(dir->File("gpu0.lock"), temp.path() / "nested/locks/gpu0.lock");
}

TEST(LockDirTest, ReopeningAnExistingDirectoryKeepsItsProtocolFile) {
  TempDir temp;
  ASSERT_THAT(LockDir::Open(temp / "locks"), IsOk());
  ASSERT_THAT(LockDir::Open(temp / "locks"), IsOk());
  EXPECT_EQ(ReadFile(temp / "locks/PROTOCOL"), "provd lock protocol 1\n");
}

TEST(LockDirTest, ConcurrentOpensAllSucceedAndLeaveNoTempFiles) {
  TempDir temp;
  std::vector<std::thread> threads;
  std::vector<absl::Status> results(8);
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = LockDir::Open(temp / "locks").status(); });
  }
  for (auto& t : threads) t.join();
  for (const auto& status : results) EXPECT_THAT(status, IsOk());
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(temp / "locks")) {
    ++entries;
  }
  EXPECT_EQ(entries, 1u);  // only PROTOCOL
}

TEST(LockDirTest, RefusesAnotherProtocolVersion) {
  TempDir temp;
  std::filesystem::create_directory(temp / "locks");
  WriteFile(temp / "locks/PROTOCOL", "provd lock protocol 0\n");
  EXPECT_THAT(LockDir::Open(temp / "locks"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("another provd version uses this lock dir")));
}

TEST(LockDirTest, APlantedFifoOrSymlinkAsProtocolFileFailsInsteadOfHanging) {
  TempDir temp;
  std::filesystem::create_directory(temp / "fifo");
  ASSERT_EQ(::mkfifo((temp / "fifo/PROTOCOL").c_str(), 0660), 0);
  EXPECT_THAT(LockDir::Open(temp / "fifo"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a regular file")));
  std::filesystem::create_directory(temp / "link");
  WriteFile(temp / "elsewhere", "provd lock protocol 1\n");
  std::filesystem::create_symlink(temp / "elsewhere", temp / "link/PROTOCOL");
  EXPECT_THAT(LockDir::Open(temp / "link"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("PROTOCOL")));
}

TEST(LockDirTest, RefusesAPathThatIsAFile) {
  TempDir temp;
  WriteFile(temp / "file", "x");
  EXPECT_THAT(LockDir::Open(temp / "file"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a directory")));
}

TEST(LockDirTest, RefusesADirectoryBelowAFile) {
  TempDir temp;
  WriteFile(temp / "file", "x");
  EXPECT_THAT(LockDir::Open(temp / "file/locks"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("file/locks")));
}

// Root ignores permission bits, so as root the check runs in a child that dropped to nobody.
TEST(LockDirTest, RefusesAnUnwritableDirectory) {
  TempDir temp;
  std::filesystem::create_directory(temp / "locks");
  std::filesystem::permissions(temp.path(), std::filesystem::perms(0755));
  std::filesystem::permissions(temp / "locks", std::filesystem::perms(0555));
  auto check = [&] { return LockDir::Open(temp / "locks").status(); };
  if (::geteuid() != 0) {
    EXPECT_THAT(check(), StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("locks")));
    return;
  }
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    constexpr uid_t kNobody = 65534;
    if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) ::_exit(3);
    absl::Status status = check();
    ::_exit(status.code() == absl::StatusCode::kPermissionDenied &&
                    status.message().find("locks") != absl::string_view::npos
                ? 0
                : 1);
  }
  int wait_status = 0;
  ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFEXITED(wait_status));
  EXPECT_EQ(WEXITSTATUS(wait_status), 0) << "3: could not drop to nobody; 1: wrong status";
}

TEST(LockDirTest, RefusesAnEmptyPath) {
  EXPECT_THAT(LockDir::Open(""), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
}

TEST(LockDirTest, DefaultIsUnderTheTempDirectory) {
  EXPECT_EQ(DefaultLockDir(), std::filesystem::temp_directory_path() / "provd-locks");
}

}  // namespace
}  // namespace provd::arbiter
