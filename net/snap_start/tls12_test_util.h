// Test doubles for the Snap Start core (testonly): an in-memory transport
// whose far end is the test, and a scripted TLS 1.2 peer built from the
// core's own primitives, which a test drives message by message — sending
// well-formed, malformed, skipped or duplicated messages — to check the exact
// bytes and alerts the socket under test answers with.
//
//   auto wire = std::make_shared<FakeTransport::Wire>();
//   SnapStartServerSocket server(std::make_unique<FakeTransport>(wire), "",
//                                context.get());
//   server.Handshake(callback);
//   ScriptedClient client;
//   wire->Feed(client.ClientHelloRecords());
//   ASSERT_TRUE(client.ReadServerFlight(wire->TakeWritten()));
//   ...

#ifndef NET_SNAP_START_TLS12_TEST_UTIL_H_
#define NET_SNAP_START_TLS12_TEST_UTIL_H_

#include <openssl/evp.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "net/snap_start/tls12_crypto.h"
#include "net/snap_start/tls12_messages.h"
#include "net/snap_start/tls12_record.h"
#include "net/socket/stream_socket.h"

namespace net {

// FakeTransport is a StreamSocket over a Wire the test holds: what the socket
// under test writes collects in the wire; what the test feeds it reads.
// Writes complete at once; a Read with nothing to read waits for Feed().
class FakeTransport : public StreamSocket {
 public:
  class Wire {
   public:
    // Feed makes |bytes| readable and completes a waiting Read.
    void Feed(absl::string_view bytes);
    // FeedEof ends the stream (a waiting Read gets 0).
    void FeedEof();
    // TakeWritten returns and forgets what the socket wrote so far.
    std::string TakeWritten();
    bool disconnected() const { return disconnected_; }

   private:
    friend class FakeTransport;
    void CompleteRead();

    std::string incoming_;
    bool eof_ = false;
    std::string written_;
    bool disconnected_ = false;
    std::shared_ptr<IOBuffer> read_buf_;
    int read_len_ = 0;
    CompletionOnceCallback read_callback_;
  };

  explicit FakeTransport(std::shared_ptr<Wire> wire);
  ~FakeTransport() override;

  int Connect(CompletionOnceCallback callback) override { return OK; }
  int Read(std::shared_ptr<IOBuffer> buf, int len,
           CompletionOnceCallback callback) override;
  int Write(std::shared_ptr<IOBuffer> buf, int len,
            CompletionOnceCallback callback) override;
  void Disconnect() override;
  bool IsConnected() const override { return !wire_->disconnected_; }
  bool IsConnectedAndIdle() const override { return IsConnected(); }
  int GetPeerAddress(IPEndPoint* address) const override;
  int GetLocalAddress(IPEndPoint* address) const override;

 private:
  std::shared_ptr<Wire> wire_;
};

// ParseRecords splits |bytes| into records; an error for a malformed or
// truncated one.
absl::StatusOr<std::vector<TlsRecord>> ParseRecords(absl::string_view bytes);

// PlaintextAlert is a fatal alert record in plaintext: 15 03 03 00 02 02 |d|.
std::string PlaintextAlert(TlsAlert description);

// The DER certificates of a PEM file, leaf first.
std::vector<std::string> ReadPemChain(const std::string& path);

// RawRsaEncrypt encrypts |block| (as long as the modulus) to the RSA key in
// the DER certificate |leaf_der| without padding: ClientKeyExchange contents
// with any padding a test wants.
std::string RawRsaEncrypt(absl::string_view leaf_der, absl::string_view block);

// Pkcs1Block is a PKCS #1 v1.5 encryption block of |modulus_len| bytes around
// |message|: 00 02, nonzero padding, 00, |message|.
std::string Pkcs1Block(size_t modulus_len, absl::string_view message);

// ScriptedClient is a TLS 1.2 client a test drives message by message. It
// keeps the transcript, derives keys (extended master secret when the server
// echoed it) and seals and opens records.
class ScriptedClient {
 public:
  // A ClientHello like the core's client's (NewClientHello) for
  // www.example.test, tickets offered.
  ScriptedClient();
  explicit ScriptedClient(ClientHello hello);

  ClientHello& hello() { return hello_; }
  // OfferSession makes the ClientHello offer |ticket| with a fresh session ID
  // and remembers the session's master secret for a resumption.
  void OfferSession(std::string ticket, std::string master_secret);
  // The ClientHello in records; enters the transcript.
  std::string ClientHelloRecords();
  // ReadServerFlight takes what the server wrote after the ClientHello:
  // ServerHello, Certificate, ServerHelloDone (full handshake) or ServerHello,
  // CCS, Finished (resumption). False, with why(), if it is not that.
  bool ReadServerFlight(absl::string_view bytes);
  const ServerHello& server_hello() const { return server_hello_; }
  const std::vector<std::string>& chain() const { return chain_; }
  bool resumed() const { return resumed_; }
  bool extended_master_secret() const { return ems_; }

  // ClientKeyExchange carrying |encrypted| (default: |premaster| encrypted to
  // the leaf with PKCS #1 v1.5); enters the transcript. The keys derive from
  // |premaster|.
  std::string ClientKeyExchange(const std::string& premaster,
                                std::optional<std::string> encrypted = {});
  // A fresh valid premaster for the offered version.
  std::string NewPremaster() const;
  // The CCS record (activates the write keys).
  std::string ChangeCipherSpec();
  // The Finished record, sealed; |corrupt| flips a bit of verify_data.
  std::string Finished(bool corrupt = false);
  // Seal encrypts |plaintext| as one record of |type| under the write keys.
  std::string Seal(uint8_t type, absl::string_view plaintext);
  // ReadServerFinish takes [NewSessionTicket], CCS, Finished; checks the
  // server Finished.
  bool ReadServerFinish(absl::string_view bytes);
  // Open decrypts one record from the server under the read keys.
  absl::StatusOr<std::string> Open(const TlsRecord& record);
  const std::string& ticket() const { return ticket_; }
  const std::string& master_secret() const { return master_secret_; }
  const std::string& why() const { return why_; }

 private:
  void InstallKeys();
  // Sets why() and returns false.
  bool Failed(std::string why);
  // Activates the read keys and checks the server's Finished in |record|.
  bool CheckServerFinished(const TlsRecord& record);

  ClientHello hello_;
  Transcript transcript_;
  ServerHello server_hello_;
  std::vector<std::string> chain_;
  bool resumed_ = false;
  bool ems_ = false;
  std::string master_secret_;
  std::unique_ptr<RecordCipher> write_;
  std::unique_ptr<RecordCipher> read_;
  std::unique_ptr<RecordCipher> pending_write_;
  std::unique_ptr<RecordCipher> pending_read_;
  std::string session_master_secret_;
  std::string ticket_;
  std::string why_;
};

// ScriptedServer is a TLS 1.2 server a test drives message by message, for
// the client side of the core: it answers a ClientHello with a full static
// RSA handshake using the key in |key_file| and the chain in |chain_file|.
class ScriptedServer {
 public:
  ScriptedServer(const std::string& chain_file, const std::string& key_file);
  ~ScriptedServer();

  // ReadClientHello takes the client's first bytes.
  bool ReadClientHello(absl::string_view bytes);
  const ClientHello& client_hello() const { return client_hello_; }
  // ServerHello (echoing extended_master_secret when offered, unless
  // |extra_extensions| says otherwise: they are appended as given),
  // Certificate, ServerHelloDone.
  std::string ServerFlight(std::vector<Extension> extra_extensions = {},
                           bool echo_ems = true);
  // ReadClientFlight takes ClientKeyExchange, CCS, Finished and checks them.
  bool ReadClientFlight(absl::string_view bytes);
  // CCS and Finished.
  std::string Finish();
  std::string Seal(uint8_t type, absl::string_view plaintext);
  absl::StatusOr<std::string> Open(const TlsRecord& record);
  const std::string& why() const { return why_; }

 private:
  std::vector<std::string> chain_;
  EVP_PKEY* key_ = nullptr;
  ClientHello client_hello_;
  std::string server_random_;
  bool ems_ = false;
  Transcript transcript_;
  std::string master_secret_;
  std::unique_ptr<RecordCipher> write_;
  std::unique_ptr<RecordCipher> read_;
  std::string why_;
};

}  // namespace net

#endif  // NET_SNAP_START_TLS12_TEST_UTIL_H_
