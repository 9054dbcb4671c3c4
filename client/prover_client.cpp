#include "client/prover_client.hpp"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "prover_core/io/digest.hpp"

namespace provd::client {
namespace {

constexpr std::chrono::system_clock::time_point kNoDeadline =
    std::chrono::system_clock::time_point::max();
constexpr int kInitialReconnectBackoffMs = 250;
constexpr int kMaxReconnectBackoffMs = 1000;

std::shared_ptr<grpc::ChannelCredentials> MakeCredentials(const std::optional<TlsOptions>& tls,
                                                          grpc::ChannelArguments& args) {
  if (!tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = tls->root_certs_pem;
  ssl.pem_cert_chain = tls->cert_chain_pem;
  ssl.pem_private_key = tls->private_key_pem;
  if (!tls->server_name_override.empty()) {
    args.SetSslTargetNameOverride(tls->server_name_override);
  }
  return grpc::SslCredentials(ssl);
}

using BioPtr = std::unique_ptr<BIO, decltype(&BIO_free)>;
using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;
using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

BioPtr MemoryBio(const std::string& pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
}

X509Ptr FirstCertificate(const std::string& pem) {
  BioPtr bio = MemoryBio(pem);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
}

// OpenSSL's default would prompt on the terminal for the passphrase of an encrypted key; gRPC
// cannot use such a key anyway, so refuse it here instead.
int NoPassphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*user*/) { return -1; }

KeyPtr PrivateKey(const std::string& pem) {
  BioPtr bio = MemoryBio(pem);
  return KeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, &NoPassphrase, nullptr),
                &EVP_PKEY_free);
}

// Parses what gRPC would only parse at the first connection attempt, where a wrong file ends up
// as a vague UNAVAILABLE ("empty address list", "handshake failed").
absl::Status ValidateTls(const TlsOptions& tls) {
  if (!tls.root_certs_pem.empty() && !FirstCertificate(tls.root_certs_pem)) {
    return absl::InvalidArgumentError("TLS: the CA file holds no PEM certificate");
  }
  if (tls.cert_chain_pem.empty() != tls.private_key_pem.empty()) {
    return absl::InvalidArgumentError(
        "TLS: a client certificate needs its private key and a key needs its certificate");
  }
  if (tls.cert_chain_pem.empty()) return absl::OkStatus();
  X509Ptr certificate = FirstCertificate(tls.cert_chain_pem);
  if (!certificate) {
    return absl::InvalidArgumentError("TLS: the client certificate is not a PEM certificate");
  }
  KeyPtr key = PrivateKey(tls.private_key_pem);
  if (!key) {
    return absl::InvalidArgumentError("TLS: the client key is not an unencrypted PEM private key");
  }
  if (X509_check_private_key(certificate.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(
        "TLS: the client key does not belong to the client certificate");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateClientOptions(const ClientOptions& options) {
  if (options.tls) {
    absl::Status tls = ValidateTls(*options.tls);
    // OpenSSL's error queue is per thread and shared with gRPC: leave nothing in it.
    ERR_clear_error();
    if (!tls.ok()) return tls;
  }
  // gRPC refuses (at call time, with an obscure error) ASCII metadata values outside 0x20-0x7e;
  // a bearer token (RFC 6750) has no spaces either.
  for (unsigned char c : options.bearer_token) {
    if (c <= 0x20 || c >= 0x7f) {
      return absl::InvalidArgumentError(
          "the bearer token has a space or a non-printable character; a token is printable "
          "ASCII only");
    }
  }
  return absl::OkStatus();
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

ProverClient::ProverClient(const std::string& target, ClientOptions options)
    : options_(std::move(options)) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options_.max_receive_message_bytes);
  args.SetMaxSendMessageSize(-1);  // the server enforces its own limit and says so
  // gRPC's reconnect backoff grows to 120 s by default, and a call made while the channel backs
  // off fails at once without trying to connect: a client that retries after a daemon restart
  // (job_follow.hpp) would find its channel still backing off long after the daemon is back.
  // A short cap keeps the callers' own (visible, jittered) backoff the one that counts.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, kInitialReconnectBackoffMs);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
  std::shared_ptr<grpc::ChannelCredentials> credentials = MakeCredentials(options_.tls, args);
  channel_ = grpc::CreateCustomChannel(target, credentials, args);
  prover_ = provd::v1::Prover::NewStub(channel_);
  health_ = grpc::health::v1::Health::NewStub(channel_);
}

void ProverClient::PrepareContext(grpc::ClientContext& context,
                                  std::chrono::system_clock::time_point deadline) const {
  // Per-call metadata rather than grpc::AccessTokenCredentials: call credentials are refused on
  // an insecure channel, and a token over a unix socket or loopback is a legitimate setup.
  if (!options_.bearer_token.empty()) {
    context.AddMetadata("authorization", absl::StrCat("Bearer ", options_.bearer_token));
  }
  if (deadline != kNoDeadline) context.set_deadline(deadline);
}

void ProverClient::PrepareUnaryContext(grpc::ClientContext& context) const {
  PrepareContext(context, std::chrono::system_clock::now() + options_.timeout);
}

void ProverClient::PauseBeforeRetry(std::chrono::system_clock::time_point until) {
  if (channel_->WaitForConnected(until)) std::this_thread::sleep_until(until);
}

template <typename Response, typename Call>
absl::StatusOr<Response> ProverClient::Unary(Call call) const {
  grpc::ClientContext context;
  PrepareUnaryContext(context);
  Response response;
  if (grpc::Status s = call(&context, &response); !s.ok()) return FromGrpcStatus(s);
  return response;
}

absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> ProverClient::Health(
    const std::string& service) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  absl::StatusOr<grpc::health::v1::HealthCheckResponse> response =
      Unary<grpc::health::v1::HealthCheckResponse>(
          [&](auto* context, auto* out) { return health_->Check(context, request, out); });
  if (!response.ok()) return response.status();
  return response->status();
}

absl::StatusOr<provd::v1::SubmitJobResponse> ProverClient::SubmitJob(
    const provd::v1::SubmitJobRequest& request) {
  return Unary<provd::v1::SubmitJobResponse>([&](auto* context, auto* response) {
    return prover_->SubmitJob(context, request, response);
  });
}

absl::StatusOr<provd::v1::Job> ProverClient::GetJob(const std::string& job_id) {
  provd::v1::GetJobRequest request;
  request.set_job_id(job_id);
  return Unary<provd::v1::Job>(
      [&](auto* context, auto* job) { return prover_->GetJob(context, request, job); });
}

absl::StatusOr<provd::v1::Job> ProverClient::CancelJob(const std::string& job_id) {
  provd::v1::CancelJobRequest request;
  request.set_job_id(job_id);
  return Unary<provd::v1::Job>(
      [&](auto* context, auto* job) { return prover_->CancelJob(context, request, job); });
}

absl::StatusOr<provd::v1::ListJobsResponse> ProverClient::ListJobs(
    const provd::v1::ListJobsRequest& request) {
  return Unary<provd::v1::ListJobsResponse>(
      [&](auto* context, auto* response) { return prover_->ListJobs(context, request, response); });
}

absl::StatusOr<provd::v1::VerifyProofResponse> ProverClient::VerifyProof(
    const provd::v1::VerifyProofRequest& request) {
  return Unary<provd::v1::VerifyProofResponse>([&](auto* context, auto* response) {
    return prover_->VerifyProof(context, request, response);
  });
}

absl::Status ProverClient::WatchJob(
    const provd::v1::WatchJobRequest& request,
    const std::function<void(const provd::v1::JobEvent&)>& on_event) {
  return WatchJob(request, kNoDeadline, on_event);
}

absl::Status ProverClient::WatchJob(
    const provd::v1::WatchJobRequest& request, std::chrono::system_clock::time_point deadline,
    const std::function<void(const provd::v1::JobEvent&)>& on_event) {
  grpc::ClientContext context;
  PrepareContext(context, deadline);
  std::unique_ptr<grpc::ClientReader<provd::v1::JobEvent>> reader =
      prover_->WatchJob(&context, request);
  provd::v1::JobEvent event;
  while (reader->Read(&event)) on_event(event);
  return FromGrpcStatus(reader->Finish());
}

absl::StatusOr<provd::v1::UploadFileResponse> ProverClient::UploadFile(
    provd::v1::UploadBegin begin, const std::string& path,
    const std::function<void(uint64_t)>& on_progress, std::optional<io::FileDigest> known) {
  if (!known) {
    absl::StatusOr<io::FileDigest> digest = io::Sha256OfFile(path);
    if (!digest.ok()) return digest.status();
    known = *digest;
  }
  std::ifstream file(path, std::ios::binary);
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (!file || ec) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot be read: ", ec ? ec.message() : std::strerror(errno)));
  }
  if (size != known->size) {
    return absl::DataLossError(absl::StrCat(path, ": changed while it was read (", known->size,
                                            " bytes digested, now ", size, ")"));
  }
  begin.set_size(size);
  const io::Sha256Digest& sha = known->sha256;
  std::string chunk(kUploadChunkBytes, '\0');
  grpc::ClientContext context;
  PrepareContext(context, kNoDeadline);
  provd::v1::UploadFileResponse response;
  std::unique_ptr<grpc::ClientWriter<provd::v1::UploadFileRequest>> writer =
      prover_->UploadFile(&context, &response);
  provd::v1::UploadFileRequest message;
  *message.mutable_begin() = std::move(begin);
  // A failed Write means the stream is broken; Finish says why.
  bool open = writer->Write(message);
  uint64_t sent = 0;
  while (open && sent < size) {
    file.read(chunk.data(),
              static_cast<std::streamsize>(std::min<uint64_t>(chunk.size(), size - sent)));
    const size_t got = static_cast<size_t>(file.gcount());
    if (got == 0) {
      context.TryCancel();
      writer->Finish().ok();
      return absl::DataLossError(absl::StrCat(path, ": shrank while it was uploaded (", sent,
                                              " of ", size, " bytes read)"));
    }
    message.set_data(chunk.data(), got);
    open = writer->Write(message);
    sent += got;
    if (open && on_progress) on_progress(sent);
  }
  if (open) {
    message.mutable_end()->set_sha256(
        std::string(reinterpret_cast<const char*>(sha.data()), sha.size()));
    writer->Write(message);
  }
  writer->WritesDone();
  if (grpc::Status s = writer->Finish(); !s.ok()) return FromGrpcStatus(s);
  return response;
}

absl::StatusOr<provd::v1::ListFilesResponse> ProverClient::ListFiles(provd::v1::FileArea area) {
  provd::v1::ListFilesRequest request;
  request.set_area(area);
  return Unary<provd::v1::ListFilesResponse>([&](auto* context, auto* response) {
    return prover_->ListFiles(context, request, response);
  });
}

}  // namespace provd::client
