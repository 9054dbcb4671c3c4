// The local files provctl reads (witness, PEM certificates and keys, bearer token) and writes
// (proof.json, public.json). Errors are absl::Status whose message names the file and says why,
// ready to show to the operator.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace provd::client {

// The whole file; NOT_FOUND / PERMISSION_DENIED / FAILED_PRECONDITION with the path and the
// system's reason.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

// ReadWholeFile for a PEM file (certificate or key): also FAILED_PRECONDITION when the file has
// no "-----BEGIN" line, so that a wrong file is named now instead of failing the TLS handshake
// later with a vaguer message.
absl::StatusOr<std::string> ReadPemFile(const std::string& path);

// A bearer token from a file: the content without its trailing newline (files written with
// `echo` or an editor end with one); FAILED_PRECONDITION when nothing is left.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

// The token without a trailing "\n" or "\r\n".
std::string StripTrailingNewline(absl::string_view text);

// OK when `path` can be created or replaced: its directory exists and is writable. Checked
// before a job is submitted, so that a typo does not throw away a finished proof.
absl::Status CheckWritableDestination(const std::string& path);

// Replaces `path` with `contents` so that readers see the old file or the new one, never a part:
// a temp file in the same directory, fsync, rename.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

}  // namespace provd::client
