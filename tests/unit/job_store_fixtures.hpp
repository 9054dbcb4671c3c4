// Jobs and endings the job store tests submit, shared by the contract suite and the tests of
// each store.
#pragma once

#include <string>

#include "daemon/store/job_store.hpp"

namespace provd::daemon {

inline JobSubmission Submission(provd::v1::Priority priority = provd::v1::PRIORITY_LOW,
                                std::string request_id = "") {
  JobSubmission submission;
  submission.priority = priority;
  submission.zkey_name = "circuit.zkey";
  submission.witness = std::string("wtns\x02\0\0\0", 8) + "witness bytes";
  submission.seed = std::string(32, '\x07');
  submission.request_id = std::move(request_id);
  return submission;
}

inline JobEnding Succeeded() {
  JobEnding ending;
  ending.state = provd::v1::JOB_STATE_SUCCEEDED;
  ending.result.set_proof_json("{\"protocol\":\"groth16\"}");
  ending.result.set_public_json("[\"33\"]");
  return ending;
}

}  // namespace provd::daemon
