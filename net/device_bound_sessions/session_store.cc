#include "net/device_bound_sessions/session_store.h"

#include <errno.h>
#include <openssl/bytestring.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/evp.h>
#include <openssl/nid.h>
#include <sys/stat.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "net/base/file_util.h"
#include "net/base/framed_file.h"
#include "net/device_bound_sessions/session_config.h"
#include "net/device_bound_sessions/session_store.pb.h"

namespace net {
namespace {

namespace pb = ::netstack::net::device_bound_sessions;

int64_t ToMicros(absl::Time t) { return absl::ToUnixMicros(t); }
absl::Time FromMicros(int64_t us) { return absl::FromUnixMicros(us); }

bool IsPrintableAscii(absl::string_view s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// An identifier for an error message: printable, at most 64 characters.
std::string Printable(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(c >= 0x20 && c <= 0x7e ? c : '?');
  return out.size() > 64 ? out.substr(0, 64) + "..." : out;
}

// A PKCS#8 P-256 private key, or null.
bssl::UniquePtr<EVP_PKEY> ParseP256PrivateKey(absl::string_view der) {
  CBS cbs;
  CBS_init(&cbs, reinterpret_cast<const uint8_t*>(der.data()), der.size());
  bssl::UniquePtr<EVP_PKEY> key(EVP_parse_private_key(&cbs));
  if (!key || CBS_len(&cbs) != 0 || EVP_PKEY_id(key.get()) != EVP_PKEY_EC)
    return nullptr;
  const EC_KEY* ec = EVP_PKEY_get0_EC_KEY(key.get());
  if (!ec ||
      EC_GROUP_get_curve_name(EC_KEY_get0_group(ec)) != NID_X9_62_prime256v1)
    return nullptr;
  return key;
}

// Checks one record: it must be something the SessionService could have
// stored.
absl::StatusOr<std::unique_ptr<Session>> FromProto(const pb::StoredSession& p) {
  auto bad = [&p](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat("session ", Printable(p.session_id()), ": ", why));
  };
  auto session = std::make_unique<Session>();
  if (p.session_id().empty() || p.session_id().size() > kMaxSessionIdBytes ||
      !IsPrintableAscii(p.session_id()))
    return bad("bad identifier");
  session->id = p.session_id();
  absl::StatusOr<Url> refresh = Url::Parse(p.refresh_url());
  if (!refresh.ok()) return bad("bad refresh URL");
  session->refresh_url = *refresh;
  if ((p.scope_scheme() != "https" && p.scope_scheme() != "http") ||
      p.scope_host().empty() || p.scope_port() == 0 || p.scope_port() > 65535)
    return bad("bad scope origin");
  session->scope.origin = Origin(p.scope_scheme(), p.scope_host(),
                                 static_cast<uint16_t>(p.scope_port()));
  session->scope.include_site = p.include_site();
  if (p.site().empty() || p.site() != SiteOf(p.scope_host()))
    return bad("site does not match the scope origin");
  session->site = p.site();
  if (p.scope_rules_size() > static_cast<int>(kMaxScopeRules) ||
      p.credentials_size() > static_cast<int>(kMaxCredentials) ||
      p.credentials_size() == 0 ||
      p.allowed_refresh_initiators_size() >
          static_cast<int>(kMaxRefreshInitiators))
    return bad("too many or no entries");
  for (const pb::StoredScopeRule& r : p.scope_rules()) {
    if (r.domain().empty() || r.path().empty() || r.path()[0] != '/')
      return bad("bad scope rule");
    session->scope.rules.push_back({r.include(), r.domain(), r.path()});
  }
  for (const pb::StoredCredential& c : p.credentials()) {
    if (c.name().empty() || c.domain().empty() || c.path().empty() ||
        c.path()[0] != '/')
      return bad("bad credential");
    SessionCredential credential;
    credential.name = c.name();
    credential.attributes = c.attributes();
    credential.domain = c.domain();
    credential.host_only = c.host_only();
    credential.path = c.path();
    credential.secure = c.secure();
    credential.http_only = c.http_only();
    session->credentials.push_back(std::move(credential));
  }
  for (const std::string& initiator : p.allowed_refresh_initiators()) {
    if (initiator.empty()) return bad("empty refresh initiator");
    session->allowed_refresh_initiators.push_back(initiator);
  }
  session->key = ParseP256PrivateKey(p.key_pkcs8());
  if (!session->key) return bad("the key is not a PKCS#8 ECDSA P-256 key");
  session->key_pkcs8 = p.key_pkcs8();
  if (p.has_cached_challenge()) {
    if (p.cached_challenge().size() > kMaxChallengeBytes)
      return bad("challenge too long");
    session->cached_challenge = p.cached_challenge();
  } else if (!p.cached_challenge().empty()) {
    return bad("a challenge without its flag");
  }
  session->creation = FromMicros(p.creation_unix_micros());
  session->expiry = FromMicros(p.expiry_unix_micros());
  session->last_use = FromMicros(p.last_use_unix_micros());
  return session;
}

}  // namespace

absl::Status SessionStore::Add(std::unique_ptr<Session> session) {
  const Key key(session->site, session->id);
  auto existing = sessions_.find(key);
  if (existing == sessions_.end()) {
    size_t same_site = 0;
    for (auto it = sessions_.lower_bound(Key(session->site, ""));
         it != sessions_.end() && it->first.first == session->site; ++it)
      ++same_site;
    if (same_site >= limits_.max_per_site)
      return absl::ResourceExhaustedError(
          absl::StrCat(session->site, " already has ", same_site,
                       " device bound sessions (the limit per site)"));
    while (sessions_.size() >= limits_.max_total) {
      auto oldest = sessions_.end();
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        if (oldest == sessions_.end() ||
            it->second->last_use < oldest->second->last_use)
          oldest = it;
      }
      sessions_.erase(oldest);
    }
  }
  sessions_[key] = std::move(session);
  changed_ = true;
  return absl::OkStatus();
}

Session* SessionStore::Find(const std::string& site, const std::string& id) {
  auto it = sessions_.find(Key(site, id));
  return it == sessions_.end() ? nullptr : it->second.get();
}

bool SessionStore::Remove(const std::string& site, const std::string& id) {
  if (sessions_.erase(Key(site, id)) == 0) return false;
  changed_ = true;
  return true;
}

std::vector<Session*> SessionStore::SessionsForSite(const std::string& site) {
  std::vector<Session*> out;
  for (auto it = sessions_.lower_bound(Key(site, ""));
       it != sessions_.end() && it->first.first == site; ++it)
    out.push_back(it->second.get());
  return out;
}

void SessionStore::RemoveExpired(absl::Time now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second->expiry <= now) {
      it = sessions_.erase(it);
      changed_ = true;
    } else {
      ++it;
    }
  }
}

void SessionStore::DeleteAll() {
  if (!sessions_.empty()) changed_ = true;
  sessions_.clear();
}

std::string SessionStore::Serialize(absl::Time now) const {
  pb::StoredSessions stored;
  for (const auto& [key, s] : sessions_) {
    if (s->expiry <= now) continue;
    pb::StoredSession* p = stored.add_sessions();
    p->set_site(s->site);
    p->set_session_id(s->id);
    p->set_refresh_url(s->refresh_url.spec());
    p->set_scope_scheme(s->scope.origin.scheme());
    p->set_scope_host(s->scope.origin.host());
    p->set_scope_port(s->scope.origin.port());
    p->set_include_site(s->scope.include_site);
    for (const SessionScopeRule& r : s->scope.rules) {
      pb::StoredScopeRule* pr = p->add_scope_rules();
      pr->set_include(r.include);
      pr->set_domain(r.domain);
      pr->set_path(r.path);
    }
    for (const SessionCredential& c : s->credentials) {
      pb::StoredCredential* pc = p->add_credentials();
      pc->set_name(c.name);
      pc->set_attributes(c.attributes);
      pc->set_domain(c.domain);
      pc->set_host_only(c.host_only);
      pc->set_path(c.path);
      pc->set_secure(c.secure);
      pc->set_http_only(c.http_only);
    }
    for (const std::string& i : s->allowed_refresh_initiators)
      p->add_allowed_refresh_initiators(i);
    p->set_key_pkcs8(s->key_pkcs8);
    p->set_has_cached_challenge(s->cached_challenge.has_value());
    if (s->cached_challenge) p->set_cached_challenge(*s->cached_challenge);
    p->set_creation_unix_micros(ToMicros(s->creation));
    p->set_expiry_unix_micros(ToMicros(s->expiry));
    p->set_last_use_unix_micros(ToMicros(s->last_use));
  }
  return FrameFileContents(kMagic, kVersion, stored.SerializeAsString());
}

absl::StatusOr<SessionStore> SessionStore::Parse(const std::string& bytes,
                                                 const std::string& name,
                                                 absl::Time now,
                                                 Limits limits) {
  auto corrupt = [&name](absl::string_view why) {
    return CorruptFileError(
        name, why, "move it away to start with no device bound sessions");
  };
  absl::StatusOr<std::string> payload =
      UnframeFileContents(bytes, kMagic, kVersion);
  if (!payload.ok()) return corrupt(payload.status().message());
  pb::StoredSessions stored;
  if (!stored.ParseFromString(*payload))
    return corrupt("payload does not parse");
  if (stored.sessions_size() > static_cast<int>(limits.max_total))
    return corrupt(absl::StrCat("more than ", limits.max_total, " sessions"));
  SessionStore store(limits);
  for (const pb::StoredSession& p : stored.sessions()) {
    absl::StatusOr<std::unique_ptr<Session>> session = FromProto(p);
    if (!session.ok()) return corrupt(session.status().message());
    const Key key((*session)->site, (*session)->id);
    if (store.sessions_.count(key))
      return corrupt(
          absl::StrCat("duplicate session ", key.second, " for ", key.first));
    if ((*session)->expiry <= now) {
      store.changed_ = true;
      continue;
    }
    store.sessions_.emplace(key, *std::move(session));
  }
  return store;
}

absl::StatusOr<SessionStore> SessionStore::Load(const std::string& path,
                                                absl::Time now, Limits limits) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT)
    return SessionStore(limits);
  // A store of max_total sessions is far below this; a bigger file is not
  // ours.
  absl::StatusOr<std::string> bytes = ReadFileToString(path, 16 << 20);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path, now, limits);
}

absl::Status SessionStore::Save(const std::string& path, absl::Time now) {
  absl::Status status = WriteFileAtomically(path, Serialize(now));
  if (status.ok()) changed_ = false;
  return status;
}

}  // namespace net
