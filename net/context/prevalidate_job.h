// PrevalidateJob: learns a server's certificate chain with a probe TLS
// handshake and hands it to the Prevalidator, so chain building and
// revocation checks happen before the user's request needs them
// (NetworkContext::PrevalidateHost). A DoLoop: an SSLConnectJob whose TLS
// context records the chain without judging it (and has a session cache of
// its own, so the next real connection is a full handshake), then the
// prevalidator.
//
// Owned by its caller; destroying it cancels (no callback runs afterwards).
// The resolver, socket factory and prevalidator are not owned and must
// outlive it; so must |error_detail|, if given. Network-thread affine.

#ifndef NET_CONTEXT_PREVALIDATE_JOB_H_
#define NET_CONTEXT_PREVALIDATE_JOB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "cert/cert_verifier.h"
#include "cert/prevalidator.h"
#include "dns/host_resolver.h"
#include "net/base/weak_ptr.h"
#include "net/http/ssl_connect_job.h"
#include "net/socket/client_socket_factory.h"
#include "net/ssl/ssl_client_context.h"

namespace net {

class PrevalidateJob {
 public:
  PrevalidateJob(HostResolver* resolver, ClientSocketFactory* factory,
                 Prevalidator* prevalidator, std::string host, uint16_t port,
                 absl::Duration connect_timeout, std::string* error_detail);
  ~PrevalidateJob();
  PrevalidateJob(const PrevalidateJob&) = delete;
  PrevalidateJob& operator=(const PrevalidateJob&) = delete;

  // Start: OK once prevalidated, the error of the step that failed (and
  // |error_detail| says which), or ERR_IO_PENDING. Call once.
  int Start(CompletionOnceCallback callback);

 private:
  // Records the server's chain without judging it: the probe handshake only
  // learns what the prevalidator should check.
  class ChainRecorder : public CertVerifier {
   public:
    int Verify(const CertVerifyParams& params, CertVerifyResult* result,
               CompletionOnceCallback, std::unique_ptr<Request>*) override;
    const std::vector<std::string>& chain() const { return chain_; }

   private:
    std::vector<std::string> chain_;
  };

  enum State {
    STATE_NONE,
    STATE_CONNECT,
    STATE_CONNECT_COMPLETE,
    STATE_PREVALIDATE,
    STATE_PREVALIDATE_COMPLETE,
  };

  int DoLoop(int rv);
  int DoConnect();
  int DoConnectComplete(int rv);
  int DoPrevalidate();
  int DoPrevalidateComplete(int rv);
  void OnIOComplete(int rv);
  void SetDetail(const std::string& detail);

  HostResolver* const resolver_;
  ClientSocketFactory* const factory_;
  Prevalidator* const prevalidator_;
  const std::string host_;
  const uint16_t port_;
  const absl::Duration connect_timeout_;
  std::string* const error_detail_;
  ChainRecorder recorder_;
  SSLClientContext probe_context_;
  std::unique_ptr<SSLConnectJob> connect_job_;
  State next_state_ = STATE_NONE;
  CompletionOnceCallback callback_;
  WeakPtrFactory<PrevalidateJob> weak_factory_{this};
};

}  // namespace net

#endif  // NET_CONTEXT_PREVALIDATE_JOB_H_
